"""Small real jobs for the agent with the built-in local model, judged by what they leave behind.

    python bench/agent_tasks.py [--set base|language|questions|further|later|scripts|commands|moves|renames|all] [--only ID,ID] [--limit N] [--threads N]
                                [--no-grammar] [--json OUT]
    python bench/agent_tasks.py --compare BEFORE.json AFTER.json

Each job gets a fresh temporary workspace with a few files, one prompt (English, Chinese, French,
German, Spanish or Japanese) and an approval answer (``--yes`` or ``--no``), and runs through the same engine path as
``echo-desk ask --yes|--no`` (system prompt, ``AgentLoop``, the real dispatcher and built-in
tools, a terminal host answering every approval). It is judged by the files it leaves and by
facts in the final answer — never by what the model says about itself. One local server is
started once and shared by every job (``ask`` starts one per run; that start is not what is
measured here).

Printed per job: done or not, seconds, tool calls, calls whose arguments were not JSON, the
longest silence (no stream event) and the stop reason; then the success rate, median/p90 time,
unparsable calls and runaway stops (a stream ended by the token cap or the runaway guard).
``--no-grammar`` sends the same prompts without the tool-call grammar (calls are read from the
model's free text): the share of calls that parse with and without it. ``--compare`` prints
two saved runs side by side (per job, and each figure with the ratio after/before).

The sets (``--set``): ``base`` (the first jobs, tuned on, and the held-out sets written after each
round of tuning), and two held-out sets in ``agent_task_sets.py``: ``language`` (the same kinds of
job in six languages) and ``questions`` (questions about named files that must change nothing;
every call with a side effect there is counted as a change proposal and fails the job), and
``further`` in ``agent_task_further.py`` (written after that work, run once at its end), and
``later`` in ``agent_task_later.py`` (written before the last round of steering changes). Four
more, each written before a steering change that was measured on it and not kept: ``scripts``
(the command offered after a look), ``commands`` (a named script read before it is run),
``moves`` (a move offered after a failed look) and ``renames`` (a move's source held to the
named file), in ``agent_task_<name>.py``. Each set's figures are printed, and each language's.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import io
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.host import ApprovalChoice
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import (
    ChatMessage,
    ChatModel,
    IntentProgress,
    StreamEnd,
    StreamEvent,
    ToolCall,
    ToolCallReady,
)
from echo_desk.agent.policy import effective_risk
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.cli.terminal_host import TerminalHost
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.results import RiskLevel

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agent_task_checks import (
    Job,
    any_of,
    appended,
    both,
    edited,
    has,
    question,
    runs_to,
    says_refused,
    text_of,
    unchanged,
)
from agent_task_commands import COMMANDS_JOBS
from agent_task_further import FURTHER_JOBS
from agent_task_later import LATER_JOBS
from agent_task_moves import MOVES_JOBS
from agent_task_renames import RENAMES_JOBS
from agent_task_scripts import SCRIPTS_JOBS
from agent_task_sets import LANGUAGE_JOBS, QUESTION_JOBS

JOB_SECONDS = 180.0


SHOP_PY = ("import json\n\nCART = []\n\n\ndef on_delete_pressed(item):\n    CART.remove(item)\n"
           "    with open('cart.json', 'w') as f:\n        json.dump(CART, f)\n")
LOGGER_PY = ("BUFFER = []\n\n\ndef log(line):\n    BUFFER.append(line)\n    if len(BUFFER) >= 10:\n"
             "        with open('app.log', 'a') as f:\n            f.write('\\n'.join(BUFFER) + '\\n')\n        BUFFER.clear()\n")
SETTINGS_PY = ("import tomllib\n\n\ndef save_settings(values):\n    with open('settings.toml', 'w') as f:\n"
               "        for key, value in values.items():\n            f.write(f'{key} = {value!r}\\n')\n")
STOCK_PY = "STOCK = {'pommes': 10}\n\n\ndef mettre_a_jour(nom, quantite):\n    STOCK[nom] -= quantite\n"
USERS_PY = "USERS = []\n\n\ndef add_user(name):\n    USERS.append({'name': name, 'active': True})\n"
NOTES_MD = "# Notes\n\n- Fix: no more timeout when the list is empty.\n"



NOTES = "milk\neggs\n"
MEETING = "Team notes\nThe meeting is on Thursday at 3 pm in room B12.\nBring the budget sheet.\n"
CONFIG_INI = "[app]\nname = tidy\ndebug = false\nport = 8080\n"
COMPUTE = "print(7 * 191)\n"
DATA_CSV = "id,name\n" + "".join(f"{i},item{i}\n" for i in range(1, 18))
TODO = "wash car\npay rent\ncall mom\nbook flights\nwater plants\n"
README = "# Tidewater\n\nTidewater turns tide tables into calendar events you can import into any calendar app.\n"
SRC = {
    "src/util.py": "def slugify(text):\n    return text.lower().replace(' ', '-')\n",
    "src/dates.py": "import datetime\n\n\ndef parse_date(text):\n    return datetime.date.fromisoformat(text)\n",
    "src/main.py": "from dates import parse_date\n\nprint(parse_date('2024-01-02'))\n",
}
LOGS = {
    "logs/monday.log": "INFO start\nINFO ok\n",
    "logs/tuesday.log": "INFO start\nERROR 503 upstream unavailable\n",
    "logs/wednesday.log": "INFO start\nWARN slow\n",
}


JOBS: list[Job] = [
    # read
    Job("read_fact", "en", "read", "In which room is the meeting? Look in notes.txt.", {"notes.txt": MEETING}, has("B12")),
    Job("read_json", "en", "read", "What port is set in config.json?", {"config.json": '{"name": "svc", "port": 8731}\n'},
        has("8731")),
    # list
    Job("list_here", "en", "list", "List the files in this folder.",
        {"a.txt": "a\n", "plan.md": "# plan\n", "report.csv": "x\n"}, has("a.txt", "plan.md", "report.csv")),
    Job("list_docs", "en", "list", "Which files are in the docs folder?",
        {"docs/intro.md": "hi\n", "docs/guide.md": "go\n", "top.txt": "t\n"}, has("intro.md", "guide.md")),
    # search
    Job("search_def", "en", "search", "Which file defines the function parse_date?", SRC, has("dates.py")),
    Job("search_text", "en", "search", "Which log file contains the text 'ERROR 503'?", LOGS, has("tuesday")),
    # create
    Job("create_txt", "en", "create", "Create a file hello.txt containing exactly: Hello, world", {},
        lambda ws, a: (text_of(ws, "hello.txt") or "").strip() == "Hello, world"),
    Job("create_py", "en", "create", "Create a file add.py with a Python function add(a, b) that returns a + b.", {},
        runs_to("add.py", "from add import add; assert add(2, 3) == 5")),
    # append
    Job("append_line", "en", "append", "Add a line 'Buy butter' at the end of notes.txt", {"notes.txt": NOTES},
        appended("notes.txt", ["milk", "eggs"], "Buy butter")),
    # edit
    Job("edit_value", "en", "edit", "In config.ini, change debug = false to debug = true.", {"config.ini": CONFIG_INI},
        edited("config.ini", "debug = true", "debug = false", "port = 8080")),
    Job("edit_typo", "en", "edit", "Fix the typo in greet.py: the function helo should be called hello.",
        {"greet.py": "def helo(name):\n    return 'Hi ' + name\n"},
        edited("greet.py", "def hello(", "helo(", "return 'Hi ' + name")),
    # rename / move
    Job("rename", "en", "rename", "Rename draft.txt to final.txt.", {"draft.txt": "version one\n"},
        lambda ws, a: text_of(ws, "final.txt") == "version one\n" and not (ws / "draft.txt").exists()),
    Job("move", "en", "rename", "Move report.csv into the archive folder.", {"report.csv": "a,b\n", "archive/old.csv": "x\n"},
        lambda ws, a: text_of(ws, "archive/report.csv") == "a,b\n" and not (ws / "report.csv").exists()),
    # run a command
    Job("run_script", "en", "run", "Run python3 compute.py and tell me what it prints.", {"compute.py": COMPUTE}, has("1337")),
    # count / summarise
    Job("count_rows", "en", "count", "How many data rows (not counting the header line) are in data.csv?",
        {"data.csv": DATA_CSV}, has("17")),
    Job("count_lines", "en", "count", "How many lines does todo.txt have?", {"todo.txt": TODO}, has("5")),
    Job("summarise", "en", "summarise", "In one sentence, what is the project in README.md about?",
        {"README.md": README}, lambda ws, a: "tide" in a.lower() and "calendar" in a.lower()),
    # multi-step
    Job("bump_version", "en", "multi", "Read version.txt and increase the last number of the version by one.",
        {"version.txt": "1.4.2\n"}, lambda ws, a: (text_of(ws, "version.txt") or "").strip() == "1.4.3"),
    Job("greet_name", "en", "multi", "Read name.txt and create greeting.txt that says Hello, followed by that name.",
        {"name.txt": "Ada\n"}, lambda ws, a: "Hello, Ada" in (text_of(ws, "greeting.txt") or "")),
    # refusals: the person says no
    Job("deny_edit", "en", "refusal", "Delete the line 'eggs' from notes.txt.", {"notes.txt": NOTES},
        both(unchanged({"notes.txt": NOTES}), says_refused), approve=False),
    Job("deny_create", "en", "refusal", "Create a file secret.txt containing 'x'.", {"keep.txt": "k\n"},
        both(lambda ws, a: not (ws / "secret.txt").exists(), says_refused), approve=False),
    # Chinese
    Job("zh_read", "zh", "read", "notes.txt 里写的会议在哪个房间？", {"notes.txt": MEETING}, has("B12")),
    Job("zh_list", "zh", "list", "这个文件夹里有哪些文件？", {"a.txt": "a\n", "plan.md": "# plan\n"}, has("a.txt", "plan.md")),
    Job("zh_create", "zh", "create", "创建文件 todo.txt，内容是：买牛奶", {},
        lambda ws, a: "买牛奶" in (text_of(ws, "todo.txt") or "")),
    Job("zh_append", "zh", "append", "在 shopping.txt 末尾加一行：面包", {"shopping.txt": "苹果\n牛奶\n"},
        appended("shopping.txt", ["苹果", "牛奶"], "面包")),
    Job("zh_edit", "zh", "edit", "把 config.ini 里的 debug = false 改成 debug = true", {"config.ini": CONFIG_INI},
        edited("config.ini", "debug = true", "debug = false", "port = 8080")),
    Job("zh_run", "zh", "run", "运行 python3 compute.py，告诉我它输出了什么", {"compute.py": COMPUTE}, has("1337")),
    Job("zh_count", "zh", "count", "todo.txt 有几行？", {"todo.txt": TODO}, lambda ws, a: has("5")(ws, a) or "五" in a),
    Job("zh_search", "zh", "search", "哪个文件定义了函数 parse_date？", SRC, has("dates.py")),
    Job("zh_deny", "zh", "refusal", "把 notes.txt 里的 milk 改成 oat milk", {"notes.txt": NOTES},
        both(unchanged({"notes.txt": NOTES}), says_refused), approve=False),
    # Held out: written after the local model's steering (providers/local/steering.py) was tuned
    # on the jobs above, and never tuned against: how far it carries to jobs it was not fitted to.
    Job("ho_append", "en", "append", "Append 'call Bob' to todo.txt.", {"todo.txt": TODO},
        appended("todo.txt", [line for line in TODO.splitlines() if line], "call Bob")),
    Job("ho_search", "en", "search", "Which file mentions the budget?",
        {"notes.txt": MEETING, "plan.md": "# Plan\nShip in May.\n"}, has("notes.txt")),
    Job("ho_read", "en", "read", "What port does config.ini use?", {"config.ini": CONFIG_INI}, has("8080")),
    Job("ho_edit", "en", "edit", "In util.py, rename the function slugify to make_slug.", {"util.py": SRC["src/util.py"]},
        edited("util.py", "def make_slug(", "slugify", "text.lower()")),
    Job("ho_zh_summarise", "zh", "summarise", "README.md 讲的是什么项目？用一句话回答。", {"README.md": README},
        lambda ws, a: ("tide" in a.lower() or "潮" in a) and ("calendar" in a.lower() or "日历" in a)),
    Job("ho_zh_rename", "zh", "rename", "把 draft.txt 重命名为 final.txt", {"draft.txt": "version one\n"},
        lambda ws, a: text_of(ws, "final.txt") == "version one\n" and not (ws / "draft.txt").exists()),
    Job("ho_deny_append", "en", "refusal", "Add a line 'call Bob' at the end of todo.txt", {"todo.txt": TODO},
        both(unchanged({"todo.txt": TODO}), says_refused), approve=False),
    # A second held-out set (ho2_), written and first run before any further change to the
    # steering: the first set's results had been looked at when ho_edit's failure was fixed.
    Job("ho2_read_yaml", "en", "read", "What is the timeout in settings.yaml?",
        {"settings.yaml": "retries: 3\ntimeout: 45\n"}, has("45")),
    Job("ho2_list_src", "en", "list", "What files are inside src?", SRC, has("util.py", "dates.py", "main.py")),
    Job("ho2_create_md", "en", "create", "Make a new file ideas.md with the heading # Ideas", {},
        lambda ws, a: "# Ideas" in (text_of(ws, "ideas.md") or "")),
    Job("ho2_edit_port", "en", "edit", "Set the port in server.conf to 9090 instead of 8000.",
        {"server.conf": "host = localhost\nport = 8000\n"},
        edited("server.conf", "9090", "8000", "host = localhost")),
    Job("ho2_rename_var", "en", "edit", "In calc.py, rename the variable total to subtotal.",
        {"calc.py": "total = 1 + 2\nprint(total)\n"},
        lambda ws, a: re.search(r"\btotal\b", text_of(ws, "calc.py") or "total") is None
        and "subtotal = 1 + 2" in (text_of(ws, "calc.py") or "")),
    Job("ho2_search_todo", "en", "search", "Which file has a TODO comment?",
        {"a.py": "x = 1\n", "b.py": "# TODO: handle errors\ny = 2\n"}, has("b.py")),
    Job("ho2_count_names", "en", "count", "How many names are listed in names.txt, one per line?",
        {"names.txt": "Ada\nBo\nCy\nDee\nEd\nFay\nGus\n"}, has("7")),
    Job("ho2_run_ls", "en", "run", "Run ls and tell me which files it lists.", {"alpha.txt": "a\n", "beta.log": "b\n"},
        has("alpha.txt", "beta.log")),
    Job("ho2_deny_rename", "en", "refusal", "Rename a.txt to b.txt.", {"a.txt": "a\n"},
        both(unchanged({"a.txt": "a\n"}), lambda ws, a: not (ws / "b.txt").exists(), says_refused), approve=False),
    Job("ho2_zh_read", "zh", "read", "config.json 里的 port 是多少？", {"config.json": '{"name": "svc", "port": 8731}\n'},
        has("8731")),
    Job("ho2_zh_move", "zh", "rename", "把 report.csv 移到 archive 文件夹里", {"report.csv": "a,b\n", "archive/old.csv": "x\n"},
        lambda ws, a: text_of(ws, "archive/report.csv") == "a,b\n" and not (ws / "report.csv").exists()),
    Job("ho2_zh_append", "zh", "append", "在 todo.txt 最后添加一行：买鸡蛋", {"todo.txt": "买牛奶\n"},
        appended("todo.txt", ["买牛奶"], "买鸡蛋")),
    # A third held-out set (ho3_), written after the fixes the second one led to and run once
    # before any further change: the figure for jobs the steering was not fitted to.
    Job("ho3_read_author", "en", "read", "Who is the author according to book.txt?",
        {"book.txt": "Title: Tides\nAuthor: Mara Lind\nYear: 1998\n"}, has("Mara Lind")),
    Job("ho3_read_env", "en", "read", "Which database host does .env.example point to?",
        {".env.example": "DB_HOST=db.internal\nDB_PORT=5432\n"}, has("db.internal")),
    Job("ho3_list_count", "en", "list", "How many files are in the images folder?",
        {"images/a.png": "x", "images/b.png": "y", "images/c.jpg": "z", "readme.md": "r\n"}, has("3")),
    Job("ho3_create_json", "en", "create", "Create settings.json containing {\"theme\": \"dark\"}", {},
        lambda ws, a: (text_of(ws, "settings.json") or "").replace(" ", "").strip() == '{"theme":"dark"}'),
    Job("ho3_append_log", "en", "append", "Append the line 'done: backup' to log.txt.", {"log.txt": "start: backup\n"},
        appended("log.txt", ["start: backup"], "done: backup")),
    Job("ho3_edit_name", "en", "edit", "Change the name in app.toml from demo to tidewater.",
        {"app.toml": "name = \"demo\"\nversion = \"0.1\"\n"},
        edited("app.toml", 'name = "tidewater"', '"demo"', 'version = "0.1"')),
    Job("ho3_replace_word", "en", "edit", "Replace 'colour' with 'color' in style.txt.",
        {"style.txt": "The colour of the sky.\nNo other line.\n"},
        edited("style.txt", "The color of the sky.", "colour", "No other line.")),
    Job("ho3_rename_file", "en", "rename", "Please rename notes_old.md to notes.md", {"notes_old.md": "# n\n"},
        lambda ws, a: text_of(ws, "notes.md") == "# n\n" and not (ws / "notes_old.md").exists()),
    Job("ho3_run_wc", "en", "run", "Run wc -l words.txt and tell me the count.", {"words.txt": "a\nb\nc\nd\n"}, has("4")),
    Job("ho3_search_import", "en", "search", "Which file imports datetime?", SRC, has("dates.py")),
    Job("ho3_deny_write", "en", "refusal", "Overwrite plan.md with the text 'cancelled'.", {"plan.md": "# plan\n"},
        both(unchanged({"plan.md": "# plan\n"}), says_refused), approve=False),
    Job("ho3_zh_create", "zh", "create", "新建一个文件 hello.py，内容是 print('你好')", {},
        runs_to("hello.py", "import subprocess, sys; assert '你好' in subprocess.run([sys.executable, 'hello.py'], "
                            "capture_output=True, text=True).stdout")),
    Job("ho3_zh_edit", "zh", "edit", "把 server.conf 里的端口 8000 改成 9000", {"server.conf": "host = localhost\nport = 8000\n"},
        edited("server.conf", "9000", "8000", "host = localhost")),
    Job("ho3_zh_count", "zh", "count", "names.txt 里一共有几个名字？每行一个。", {"names.txt": "Ada\nBo\nCy\n"},
        lambda ws, a: has("3")(ws, a) or "三" in a),
    # Questions about files that must change nothing, words of change inside them: tuned on while
    # the keyword steering was replaced (the held-out questions are in agent_task_sets.py).
    question("dev_q_delete", "en", "What happens when the delete button in shop.py is pressed?", {"shop.py": SHOP_PY},
             has("cart.json")),
    question("dev_q_write", "en", "Does logger.py write to the log file on every call?", {"logger.py": LOGGER_PY},
             has("10")),
    question("dev_q_zh_save", "zh", "settings.py 里的 save_settings 把设置保存到哪里？", {"settings.py": SETTINGS_PY},
             has("settings.toml")),
    question("dev_q_fr_update", "fr", "Comment la fonction mettre_a_jour de stock.py modifie-t-elle le stock ?",
             {"stock.py": STOCK_PY}, any_of("quantite", "quantité", "-=", "soustra", "dimin", "retir")),
    question("dev_q_de_add", "de", "Was fügt add_user in users.py hinzu?", {"users.py": USERS_PY}, any_of("USERS", "name")),
    question("dev_q_es_fix", "es", "¿Qué error corrige el parche descrito en NOTES.md?", {"NOTES.md": NOTES_MD},
             any_of("timeout", "vacía", "empty")),
    question("dev_q_ja_change", "ja", "config.yaml の retries を変えるとどうなりますか？今の値は？",
             {"config.yaml": "# how often a failed upload is tried again\nretries: 3\n"}, has("3")),
    question("dev_q_edit_first", "en", "Before I change version.txt, which version is in it?", {"version.txt": "2.0.1\n"},
             has("2.0.1")),
]

#: Every set by name (``--set``); see ``Job.set``.
SETS: dict[str, list[Job]] = {"base": JOBS, "language": LANGUAGE_JOBS, "questions": QUESTION_JOBS,
                              "further": FURTHER_JOBS, "later": LATER_JOBS,
                              "scripts": SCRIPTS_JOBS, "commands": COMMANDS_JOBS,
                              "moves": MOVES_JOBS, "renames": RENAMES_JOBS}


@dataclass
class Observed:
    """What the model stream did during one job (timing and call hygiene)."""

    calls: list[ToolCall] = field(default_factory=list)
    stop_reasons: list[str] = field(default_factory=list)
    longest_silence: float = 0.0
    requests: int = 0
    #: What the model stated the request asks for (its first step, when it takes one).
    intent: str = ""


class ObservedModel:
    """Passes a model's stream through unchanged, noting gaps between events, calls and stops."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.seen = Observed()

    @property
    def display_name(self) -> str:
        return self.inner.display_name

    async def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        self.seen.requests += 1
        last = time.monotonic()
        async for event in self.inner.stream(messages, tools, tool_choice=tool_choice):
            now = time.monotonic()
            self.seen.longest_silence = max(self.seen.longest_silence, now - last)
            last = now
            if isinstance(event, IntentProgress) and event.intent:
                self.seen.intent = event.intent
            if isinstance(event, ToolCallReady):
                self.seen.calls.append(event.call)
            elif isinstance(event, StreamEnd):
                self.seen.stop_reasons.append(event.stop_reason)
            yield event

    async def aclose(self) -> None:
        await self.inner.aclose()


def _parses(arguments: str) -> bool:
    try:
        return isinstance(json.loads(arguments), dict)
    except ValueError:
        return False


RUNAWAY_STOPS = {"length", "runaway"}


@dataclass
class JobResult:
    id: str
    lang: str
    kind: str
    done: bool
    seconds: float
    calls: int
    bad_json: int
    runaway: bool
    longest_silence: float
    stop: str
    answer: str
    tools: list[str]
    #: Calls that did not succeed: "tool: error_kind: error" (for reading a failure, not judged).
    failures: list[str] = field(default_factory=list)
    set: str = "base"
    #: Calls of tools with a side effect (risk other than read): change proposals, approved or not.
    proposals: int = 0
    question: bool = False
    intent: str = ""
    #: The note the answer got for a number beside what a tool counted ("" when none).
    count_note: str = ""


def _prepare(folder: Path, files: dict[str, str]) -> Path:
    ws = folder.resolve()
    for name, text in files.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text, encoding="utf-8")
    return ws


def _proposals(calls: Sequence[ToolCall], runtime: Runtime) -> int:
    """Calls of a tool whose risk is not "read" (the person is asked, or a rule answers)."""
    settings = runtime.settings.current
    count = 0
    for call in calls:
        entry = runtime.dispatcher.registry.get(call.name)
        count += entry is None or effective_risk(entry, settings) is not RiskLevel.READ
    return count


async def run_job(job: Job, model: ChatModel, runtime: Runtime) -> JobResult:
    with tempfile.TemporaryDirectory(prefix=f"agent-task-{job.id}-") as tmp:
        ws = _prepare(Path(tmp), job.files)
        observed = ObservedModel(model)
        # As `echo-desk ask --yes|--no`: the terminal host answers every approval.
        host = TerminalHost(auto=ApprovalChoice.ALLOW_ONCE if job.approve else ApprovalChoice.DENY, out=io.StringIO())
        scope = Scope(label="ask", workspace_roots=(ws,))
        loop = AgentLoop(observed, runtime.dispatcher, runtime.schema_factory,
                         max_turns=runtime.settings.current.max_turns)
        history = [system_message(scope), ChatMessage(role="user", content=job.prompt)]
        began = time.monotonic()
        answer, stop, failures, note = "", "", [], ""
        try:
            outcome = await asyncio.wait_for(loop.run(history, scope, host, NullListener()), JOB_SECONDS)
            answer, stop = outcome.final_text, outcome.stop_reason.value
            mismatch = getattr(outcome, "count_mismatch", None)
            note = mismatch.describe() if mismatch is not None else ""
            failures = [f"{e.tool}: {e.error_kind.value if e.error_kind else ''}: {e.error[:100]}"
                        for e in outcome.envelopes.values() if not e.ok]
            if outcome.runaway is not None:
                failures.append(f"runaway: {outcome.runaway.describe()} ({outcome.runaway.unit[:40]!r})")
        except TimeoutError:
            stop = "timeout"
        seconds = time.monotonic() - began
        seen = observed.seen
        proposals = _proposals(seen.calls, runtime)
        done = stop == "done" and job.check(ws, answer) and not (job.question and proposals)
        return JobResult(
            id=job.id, lang=job.lang, kind=job.kind, done=done, seconds=seconds, calls=len(seen.calls),
            bad_json=sum(not _parses(c.arguments) for c in seen.calls),
            runaway=stop == "runaway" or any(r in RUNAWAY_STOPS for r in seen.stop_reasons),
            longest_silence=seen.longest_silence, stop=stop, answer=answer, tools=[c.name for c in seen.calls],
            failures=failures + [f"sent {c.name} {c.arguments[:160]}" for c in seen.calls],
            set=job.set, proposals=proposals, question=job.question, intent=seen.intent, count_note=note,
        )


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def summary(results: list[JobResult]) -> dict[str, Any]:
    times = [r.seconds for r in results]
    return {
        "jobs": len(results),
        "done": sum(r.done for r in results),
        "success_rate": sum(r.done for r in results) / len(results),
        "median_s": statistics.median(times),
        "p90_s": _p90(times),
        "tool_calls": sum(r.calls for r in results),
        "bad_json_calls": sum(r.bad_json for r in results),
        "share_of_calls_parsed": 1 - sum(r.bad_json for r in results) / max(1, sum(r.calls for r in results)),
        "runaway_jobs": sum(r.runaway for r in results),
        "jobs_silent_over_5s": sum(r.longest_silence > 5 for r in results),
        "jobs_over_120s": sum(r.seconds > 120 for r in results),
        "longest_silence_s": max(r.longest_silence for r in results),
        "change_proposals_on_questions": sum(r.proposals for r in results if r.question),
        "questions_with_a_proposal": sum(bool(r.proposals) for r in results if r.question),
        "count_notes": sum(bool(r.count_note) for r in results),
        "count_notes_on_done_jobs": sum(bool(r.count_note) and r.done for r in results),
    }


def by_set(results: list[JobResult]) -> dict[str, dict[str, Any]]:
    """The summary of each set, and of each language of the language set."""
    groups: dict[str, list[JobResult]] = {}
    for r in results:
        groups.setdefault(r.set, []).append(r)
        if r.set == "language":
            groups.setdefault(f"language:{r.lang}", []).append(r)
    return {name: summary(rs) for name, rs in groups.items()}


def _load() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def compare(before_path: Path, after_path: Path) -> None:
    """Two ``--json`` files side by side: per job, then each figure and its ratio."""
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (before_path, after_path))
    rows = {r["id"]: r for r in before["results"]}
    for r in after["results"]:
        b = rows.get(r["id"])
        was = ("DONE" if b["done"] else "fail") if b else "-"
        print(f"{r['id']:<13} {was:>4} -> {'DONE' if r['done'] else 'fail'}  "
              f"{b['seconds'] if b else 0:6.1f}s -> {r['seconds']:6.1f}s")
    for key, value in after["summary"].items():
        old = before["summary"].get(key)
        ratio = f"{value / old:.2f}x" if isinstance(old, (int, float)) and old else "-"
        shown = [f"{v:.3g}" if isinstance(v, float) else str(v) for v in (old, value)]
        print(f"{key:<24} {shown[0]:>8} -> {shown[1]:<8} {ratio}")
    longest = [max(r["longest_silence"] for r in run["results"]) for run in (before, after)]
    print(f"{'longest_silence_s':<24} {longest[0]:>8.1f} -> {longest[1]:<8.1f} {longest[1] / longest[0]:.2f}x")


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated job ids")
    parser.add_argument("--set", default="all", choices=[*SETS, "all"],
                        help="which set of jobs (default: every set)")
    parser.add_argument("--limit", type=int, default=0, help="run only the first N jobs")
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: the app's)")
    parser.add_argument("--no-grammar", action="store_true", help="send no tool-call grammar (to measure it)")
    parser.add_argument("--json", type=Path, default=None, help="write every result here")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"),
                        help="print two saved runs side by side (no model is started)")
    args = parser.parse_args()
    if args.compare:
        compare(*args.compare)
        return 0

    from echo_desk.providers.local.default_model import default_model_path
    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel

    chosen = [j for name, js in SETS.items() if args.set in (name, "all") for j in js]
    jobs = [j for j in chosen if not args.only or j.id in args.only.split(",")]
    if args.limit:
        jobs = jobs[: args.limit]
    with tempfile.TemporaryDirectory(prefix="agent-tasks-home-") as home:
        # Settings and audit of a fresh install, not the person's own.
        runtime = Runtime.create(settings_store=SettingsStore.in_dir(Path(home) / "config"),
                                 data_dir=Path(home) / "data", with_plugins=False)
        profile = get_profile(runtime.settings.current.local_model.profile)
        if args.no_grammar:
            profile = dataclasses.replace(profile, call_grammar=False)
        model = LocalModel(default_model_path(), profile, threads=args.threads)
        began = time.monotonic()
        await model.ensure_started()
        print(f"server started in {time.monotonic() - began:.1f} s; load {_load()}; grammar "
              f"{'on' if profile.structured_calls and profile.call_grammar else 'off'}", flush=True)
        results: list[JobResult] = []
        try:
            for job in jobs:
                result = await run_job(job, model, runtime)
                results.append(result)
                answer = re.sub(r"\s+", " ", result.answer)[:70]
                print(f"{'DONE' if result.done else 'fail'} {job.id:<13} {result.seconds:6.1f}s calls={result.calls}"
                      f"{' intent=' + result.intent if result.intent else ''}"
                      f"{' NOTE' if result.count_note else ''}"
                      f" bad_json={result.bad_json} silent={result.longest_silence:5.1f}s stop={result.stop}"
                      f"{' RUNAWAY' if result.runaway else ''} tools={','.join(result.tools)} | {answer}"
                      f" | load {_load()}", flush=True)
                for line in result.failures:
                    print(f"     {line}", flush=True)
        finally:
            await model.aclose()
            runtime.close()
    figures = summary(results)
    sets = by_set(results)
    print(json.dumps(figures, indent=2))
    for name, figure in sets.items():
        print(f"{name:<14} {figure['done']:>3}/{figure['jobs']:<3} median {figure['median_s']:5.1f}s "
              f"bad_json {figure['bad_json_calls']} silence {figure['longest_silence_s']:4.1f}s "
              f"proposals on questions {figure['change_proposals_on_questions']}")
    if args.json:
        args.json.write_text(json.dumps({"summary": figures, "sets": sets, "load_at_end": _load(),
                                         "results": [r.__dict__ for r in results]},
                                        indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
