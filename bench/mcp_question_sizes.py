"""A server's question of 1 MB, 15 MB and 20 MB in the app: time to the dialog and the UI's longest stall.

A real stdio MCP server (tests/mcp/question_server.py) asks, during a call, a question whose
message is N characters long. The app's own host (QtHost, offscreen) shows it; the manager runs
on its own thread, as in the app. Measured per size: the time from the call's start to the
dialog shown (opened and painted once), the longest gap between ticks of a 5 ms Qt timer over
that time (the window frozen), and what the call ended with once the dialog is cancelled.
Each side runs in a fresh child process: ``old`` is ``echo_desk`` as of ``OLD_COMMIT``, ``new``
this tree's ``HEAD`` (both from git; the server is this tree's).
Run: QT_QPA_PLATFORM=offscreen PYTHONPATH=. python bench/mcp_question_sizes.py [--sizes 1,15,20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# Run as a script, this file's folder comes first on sys.path and bench/mcp.py would be "mcp".
# Put back last, it lends only what nothing installed is named: the shared paired-run helper.
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != BENCH), str(BENCH)]

from _paired import ROOT, tree_at  # noqa: E402

OLD_COMMIT = "df967e76"
QUESTION_SERVER = ROOT / "tests" / "mcp" / "question_server.py"


#: A successful call's output is shown up to this many characters, then "…".
MOST_OUTPUT_CHARS = 100


def outcome(result: Any) -> str:
    """What the call ended with, for the table: an error whole (Echo Desk's own sentence, which
    says what happened: cut at 100 characters, the 20 MB row ended in "the most Echo Desk reads: "),
    a result's output cut with a visible "…"."""
    if not result.success:
        return f"{result.error_kind.value}: {result.error}"
    output = str(result.output)
    return output if len(output) <= MOST_OUTPUT_CHARS else output[:MOST_OUTPUT_CHARS] + "…"


async def measure(chars: int) -> dict[str, Any]:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from echo_desk.mcp import McpManager
    from echo_desk.mcp.config import parse_server
    from echo_desk.store.settings import SettingsStore
    from echo_desk.tools import ToolExecutionContext
    from echo_desk.ui.approval.host import QtHost

    host = QtHost()
    config = parse_server("q", {"command": sys.executable, "args": ["-S", str(QUESTION_SERVER)], "timeout": 300})
    manager = McpManager(SettingsStore.in_memory(), servers={"q": config}, host=host)
    request = manager.start_request("q")
    if request is not None:
        manager.approve_start("q", request.fingerprint)
    try:
        await manager.start_all()
        shown: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        ticks = [time.perf_counter()]
        longest = [0.0]

        def tick() -> None:
            now = time.perf_counter()
            longest[0] = max(longest[0], now - ticks[0])
            ticks[0] = now

        def opened(dialog: Any) -> None:
            dialog.grab()  # laid out and painted once: what the person would see
            if not shown.done():
                shown.set_result(time.perf_counter())
            dialog.reject()

        host.dialog_opened.connect(opened)
        timer = QTimer()
        timer.timeout.connect(tick)
        timer.start(5)
        ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="q__ask", scope_id="bench", host=host)
        start = time.perf_counter()
        result = await manager.call_tool("q", "q__ask", "ask", {"message": "", "pad": chars}, ctx)
        ended = time.perf_counter()
        timer.stop()
        QApplication.processEvents()
        return {"dialog_s": (shown.result() - start) if shown.done() else None, "call_s": ended - start,
                "longest_stall_s": longest[0],
                "outcome": outcome(result)}
    finally:
        await manager.aclose()


def child(sizes: list[int]) -> list[dict[str, Any]]:
    import qasync
    from PySide6.QtWidgets import QApplication

    from echo_desk.ui.core import marshal

    app = QApplication.instance() or QApplication([])
    app.setQuitOnLastWindowClosed(False)
    marshal.install()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    out = []
    with marshal.asyncgen_hooks(loop):
        loop.run_until_complete(measure(1000))  # warm-up: imports, the first dialog
        for chars in sizes:
            out.append({"chars": chars, **loop.run_until_complete(measure(chars))})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,15,20", help="message sizes in MB (millions of characters)")
    parser.add_argument("--side", choices=("old", "new", "both"), default="both")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(float(mb) * 1_000_000) for mb in args.sizes.split(",")]
    if args.child:
        print(json.dumps(child(sizes)), flush=True)
        os._exit(0)  # Qt's threads are not wound down one by one: the figures are out

    sides = ("old", "new") if args.side == "both" else (args.side,)
    for label in sides:
        tree = tree_at(OLD_COMMIT if label == "old" else "HEAD")
        env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{ROOT}", "QT_QPA_PLATFORM": "offscreen"}
        out = subprocess.run([sys.executable, __file__, "--child", "--sizes", args.sizes], env=env,
                             capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise SystemExit(f"{label} failed:\n{out.stderr[-3000:]}")
        for r in json.loads(out.stdout.strip().splitlines()[-1]):
            dialog = f"{r['dialog_s']:.2f} s" if r["dialog_s"] is not None else "never shown"
            print(f"  {label}: {r['chars']:>12,} chars: dialog {dialog}, call {r['call_s']:.2f} s, longest UI stall "
                  f"{r['longest_stall_s']:.2f} s ({r['outcome']})")


if __name__ == "__main__":
    main()
