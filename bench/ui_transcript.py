"""Opening a long conversation and streaming a long answer, against a baseline tree.

1. Open: 1,000 messages from the real SQLite store (300 tool cards, 200 answers with a code
   block in Python, JavaScript, shell or without a language) — reading the store, rebuilding the
   transcript model and painting the window, i.e. clicking the conversation until it is on
   screen. Target ≤ 500 ms and ≤ 1.5× the baseline.
2. Stream: 2,000 tokens of Markdown with code blocks, a table and lists, 400 tokens/s into the
   transcript while a 5 ms timer records how late each tick arrives. Target: UI stall p99 ≤ 16 ms.

Before measuring, each process starts up as the app does (``start_up_as_the_app``: the app,
engine and agent-loop imports, the Markdown and diff warm-ups, the Pygments lexers, the garbage
collector's freeze), with what its own tree has of that start-up: the app pays those once while
loading, not when a conversation opens.

Both run for this tree and for a baseline (``--baseline REF``, default ``main``: its files are
taken with ``git archive``, nothing in any checkout changes), each in a fresh process, rounds
alternating; the figures are medians, the open time also as a ratio to the baseline's. The open
is timed on the wall clock (the target) and in CPU time of the process (printed next to it with
each round's figures: on a shared, busy machine the wall clock swings with other processes' load).
Run: QT_QPA_PLATFORM=offscreen python bench/ui_transcript.py [--baseline REF] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MESSAGES = 1000
CODE_BLOCKS = 200
STREAM_TOKENS = 2000
TOKENS_PER_SECOND = 400
DIFF = "--- a/f.py\n+++ b/f.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n"
CODES = (
    "```python\ndef handler(event):\n    url = \"http://example.com/#{n}\"\n    return event.value * {n}  # scaled\n```",
    "```js\nconst total = items.reduce((a, b) => a + b.price, {n});\nconsole.log(`total: ${{total}}`);\n```",
    "```bash\nfor f in *.log; do grep -c ERROR \"$f\"; done | sort -n | tail -{n}\n```",
    "```\nimport os\nprint(os.listdir(\"/tmp/{n}\"))\n```",
)


def answer(n: int, code: bool) -> str:
    text = f"Here is what I found in **item {n}**, see `config.toml`:\n\n- the first point\n- the second point\n\n"
    if code:
        text += CODES[n % len(CODES)].format(n=n) + "\n\n"
    return text + "Anything else?"


def stream_text() -> str:
    """About ``STREAM_TOKENS`` tokens of what an agent writes: prose, lists, a table, code."""
    parts = []
    n = 0
    while sum(len(p) for p in parts) < STREAM_TOKENS * 4:
        parts.append(f"## Step {n}\n\nThe function `parse_{n}` reads the file and **returns** a list:\n\n"
                     f"1. open it\n2. split lines\n\n| name | value |\n|---|---|\n| a{n} | {n} |\n\n"
                     + CODES[n % len(CODES)].format(n=n) + "\n\n")
        n += 1
    return "".join(parts)


# -- one measurement, in a process whose echo_desk is the tree under test --------------------
def ui_module(part: str, name: str) -> Any:
    """``echo_desk.ui.<part>.<name>`` in a tree laid out in parts (chat, widgets, …), or
    ``echo_desk.ui.<name>`` in an older, flat one such as the default baseline."""
    import importlib

    try:
        return importlib.import_module(f"echo_desk.ui.{part}.{name}")
    except ModuleNotFoundError:
        return importlib.import_module(f"echo_desk.ui.{name}")


def fill(store: object, conversation_id: str) -> tuple[int, int]:
    """150 exchanges with two tool calls each (5 messages, 2 cards), then 125 plain exchanges."""
    from echo_desk.agent.model import ChatMessage, ToolCall

    cards = codes = 0
    answers = 0

    def next_answer(n: int) -> str:
        nonlocal answers, codes
        answers += 1
        with_code = codes < CODE_BLOCKS and answers % 11 not in (0, 5, 8)
        codes += with_code
        return answer(n, with_code)

    for n in range(150):
        store.append(conversation_id, ChatMessage(role="user", content=f"Please fix items {n} and {n + 1}."))  # type: ignore[attr-defined]
        calls = tuple(ToolCall(id=f"c{n}-{k}", name="edit_file", arguments=json.dumps({"path": f"/w/f{n}{k}.py"}))
                      for k in range(2))
        store.append(conversation_id, ChatMessage(role="assistant", content="", tool_calls=calls))  # type: ignore[attr-defined]
        for call in calls:
            envelope = {"schema": "echo_desk_tool_output_v1", "ok": True, "tool": "edit_file",
                        "content": f"edited {call.arguments}", "error": "", "error_kind": "",
                        "file_changes": [{"path": "/w/f.py", "kind": "modify", "diff": DIFF,
                                          "before_sha256": "a", "after_sha256": "b", "truncated": False}]}
            store.append(conversation_id, ChatMessage(role="tool", content=json.dumps(envelope),  # type: ignore[attr-defined]
                                                      tool_call_id=call.id, name="edit_file"), envelope)
            cards += 1
        store.append(conversation_id, ChatMessage(role="assistant", content=next_answer(n)))  # type: ignore[attr-defined]
    for n in range(125):
        store.append(conversation_id, ChatMessage(role="user", content=f"And what about {n}?"))  # type: ignore[attr-defined]
        store.append(conversation_id, ChatMessage(role="assistant", content=next_answer(n)))  # type: ignore[attr-defined]
    return cards, codes


def measure_open(app: object, tmp: str) -> dict[str, float]:
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.ui.approval.host import QtHost

    ChatSession = ui_module("chat", "chat_session").ChatSession
    TranscriptView = ui_module("chat", "transcript_view").TranscriptView

    store = ConversationStore(Path(tmp) / "c.sqlite3")
    conversation = store.create("Long one", tmp, "bench")
    other = store.create("Short one", tmp, "bench")
    cards, codes = fill(store, conversation.id)
    session = ChatSession(QtHost())
    session.store = store
    view = TranscriptView()
    view.setModel(session.transcript)
    view.resize(760, 640)
    session.open(other)
    view.show()
    app.processEvents()  # type: ignore[attr-defined]
    start, cpu_start = time.perf_counter(), time.process_time()
    session.open(conversation)
    app.processEvents()  # type: ignore[attr-defined]
    view.repaint()
    opened = (time.perf_counter() - start) * 1000
    opened_cpu = (time.process_time() - cpu_start) * 1000
    messages = len(store.messages(conversation.id))
    # Batched layout measures the remaining rows on later turns of the event loop.
    start = time.perf_counter()
    bar = view.verticalScrollBar()
    stable, last = 0, -1
    while stable < 5 and time.perf_counter() - start < 10:
        app.processEvents()  # type: ignore[attr-defined]
        stable = stable + 1 if bar.maximum() == last else 0
        last = bar.maximum()
    settled = (time.perf_counter() - start) * 1000
    view.close()
    store.close()
    return {"open_ms": opened, "open_cpu_ms": opened_cpu, "settle_ms": settled, "messages": messages, "cards": cards, "codes": codes}


class _Probe:
    """A 5 ms timer noting how late each tick comes: the UI thread's stalls."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.interval = 0.005
        self.lates: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(int(self.interval * 1000))
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lates.append(max(0.0, now - self._last - self.interval) * 1000)
        self._last = now

    def start(self) -> None:
        self._last = time.perf_counter()
        self.timer.start()

    def figures(self, prefix: str) -> dict[str, float]:
        self.timer.stop()
        ms = sorted(self.lates)
        return {f"{prefix}_p50_ms": statistics.median(ms), f"{prefix}_p99_ms": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
                f"{prefix}_max_ms": ms[-1]}


def measure_idle(app: object, seconds: float = 2.0) -> dict[str, float]:
    """The same probe with nothing to do: what the machine itself costs (a busy shared VM
    takes the CPU away for tens of ms), the floor under any stall figure of this run."""
    probe = _Probe()
    probe.start()
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents()  # type: ignore[attr-defined]
    return probe.figures("idle")


def measure_stream(app: object) -> dict[str, float]:
    from PySide6.QtCore import QTimer

    TranscriptModel = ui_module("chat", "transcript").TranscriptModel
    TranscriptView = ui_module("chat", "transcript_view").TranscriptView

    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(760, 640)
    view.show()
    model.add_user("Explain the parser, step by step.")
    app.processEvents()  # type: ignore[attr-defined]
    text = stream_text()
    tokens = [text[i:i + 4] for i in range(0, len(text), 4)][:STREAM_TOKENS]
    probe = _Probe()
    sent = [0]
    start = time.perf_counter()

    def feed() -> None:
        due = min(len(tokens), int((time.perf_counter() - start) * TOKENS_PER_SECOND) + 1)
        while sent[0] < due:
            model.append_text(tokens[sent[0]])
            sent[0] += 1

    feeder = QTimer()
    feeder.setInterval(10)
    feeder.timeout.connect(feed)
    probe.start()
    feeder.start()
    while sent[0] < len(tokens):
        app.processEvents()  # type: ignore[attr-defined]
    model.end_assistant()
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        app.processEvents()  # type: ignore[attr-defined]
    figures = probe.figures("stream")
    feeder.stop()
    view.close()
    return {**figures, "stream_tokens": len(tokens), "stream_seconds": time.perf_counter() - start}


def start_up_as_the_app() -> None:
    """What ``App.load`` (``ui/app.py``) does before a conversation can be opened, whatever that
    tree has of it: import the app's module, the engine (``echo_desk.runtime``, which loads the
    permission engine the tool cards ask for their icon's family) and the agent loop, render the
    warm-up documents, ready the Pygments lexers, and freeze start-up's objects out of the garbage
    collector (``freeze_start_up_objects``). Each side gets its own tree's start-up, so neither is charged
    at open time for an import or a compile its app has already paid for."""
    import importlib

    markdown = ui_module("chat", "markdown")
    for module in ("echo_desk.ui.app.main", "echo_desk.runtime", "echo_desk.agent.loop"):
        importlib.import_module(module)
    markdown.warm_up()
    try:
        warm_up_diffs = ui_module("widgets", "diff_view").warm_up
    except (ImportError, AttributeError):  # an older tree
        pass
    else:
        warm_up_diffs()
    preload = getattr(markdown, "preload_code_lexers", None)  # a tree with Pygments
    if preload is not None:
        preload().result(timeout=60)
    # Last in App.load, in a tree that has it: start-up's objects leave the collector's reach.
    freeze = getattr(importlib.import_module("echo_desk.ui.app.main"), "freeze_start_up_objects", None)
    if freeze is not None:
        freeze()


def child(tree: str) -> None:
    sys.path.insert(0, tree)
    from PySide6.QtWidgets import QApplication

    from echo_desk.ui.core import marshal

    app = QApplication.instance() or QApplication(sys.argv[:1])
    marshal.install()
    start_up_as_the_app()
    with tempfile.TemporaryDirectory() as tmp:
        figures = measure_open(app, tmp)
    figures.update(measure_idle(app))
    figures.update(measure_stream(app))
    print("FIGURES " + json.dumps(figures), flush=True)


# -- the comparison -------------------------------------------------------------------------
def baseline_tree(ref: str, into: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "echo_desk"],
                             check=True, capture_output=True).stdout
    tar_path = into / "baseline.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    # The .mo catalogs are build output, not in git: the baseline uses this tree's.
    locale = ROOT / "echo_desk" / "locale"
    if locale.is_dir() and not (into / "echo_desk" / "locale").exists():
        (into / "echo_desk" / "locale").symlink_to(locale)
    return into


def run_child(tree: Path) -> dict[str, float]:
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"), PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, __file__, "--child", str(tree)], check=True, capture_output=True,
                         text=True, env=env, timeout=600).stdout
    line = next(x for x in out.splitlines() if x.startswith("FIGURES "))
    return dict(json.loads(line[len("FIGURES "):]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="main", help="git ref of the tree to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = baseline_tree(args.baseline, Path(tmp))
        runs: dict[str, list[dict[str, float]]] = {"baseline": [], "this tree": []}
        for _round in range(args.rounds):
            runs["baseline"].append(run_child(base))
            runs["this tree"].append(run_child(ROOT))
    med = {name: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for name, rs in runs.items()}
    first = med["this tree"]
    print(f"conversation of {first['messages']:.0f} messages ({first['cards']:.0f} tool cards, "
          f"{first['codes']:.0f} code blocks), medians of {args.rounds} rounds, each in a fresh process:")
    for name, m in med.items():
        print(f"  {name:<10} opened and painted {m['open_ms']:6.0f} ms, every row measured +{m['settle_ms']:5.0f} ms; "
              f"streaming {m['stream_tokens']:.0f} tokens: stall p50 {m['stream_p50_ms']:4.1f} ms "
              f"p99 {m['stream_p99_ms']:4.1f} ms max {m['stream_max_ms']:5.1f} ms "
              f"(idle: p99 {m['idle_p99_ms']:4.1f} ms max {m['idle_max_ms']:5.1f} ms)")
    for name, rs in runs.items():
        print(f"  {name:<10} open per round: " + ", ".join(f"{r['open_ms']:.0f}" for r in rs) + " ms wall; "
              + ", ".join(f"{r['open_cpu_ms']:.0f}" for r in rs) + " ms CPU")
    # CPU time of this process (all its threads): what a busy shared machine inflates least.
    cpu_ratio = first["open_cpu_ms"] / med["baseline"]["open_cpu_ms"]
    print(f"open CPU time: {first['open_cpu_ms']:.0f} ms vs {med['baseline']['open_cpu_ms']:.0f} ms, "
          f"{cpu_ratio:.2f}x the baseline's")
    ratio = first["open_ms"] / med["baseline"]["open_ms"]
    print(f"open: {ratio:.2f}x the baseline ({args.baseline}) (target <= 1.5x, <= 500 ms) "
          f"{'OK' if ratio <= 1.5 and first['open_ms'] <= 500 else 'OVER'}")
    print(f"stream: p99 {first['stream_p99_ms']:.1f} ms (target <= 16 ms) "
          f"{'OK' if first['stream_p99_ms'] <= 16 else 'OVER'}; "
          f"{first['stream_p99_ms'] / med['baseline']['stream_p99_ms']:.2f}x the baseline's; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
