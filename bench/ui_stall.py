"""UI-thread stall probe while the app is busy.

A 5 ms Qt timer records how late each tick arrives while, through the real window, engine and
agent loop: (1) a model streams 200 tokens/s of Markdown into the transcript, (2) a tool
handler blocks for 2 s (on the tool worker thread), (3) the approval dialog opens on a
10,000-line file diff. Targets: no stall > 50 ms, p99 ≤ 16 ms, dialog open ≤ 200 ms.
Run: QT_QPA_PLATFORM=offscreen python bench/ui_stall.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import qasync
from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication

from echo_desk.agent.model import StreamEnd, TextDelta, ToolCall, ToolCallReady
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import (
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    Tool,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)
from echo_desk.ui.app.main import show_first_frame
from echo_desk.ui.app.services import Services
from echo_desk.ui.approval.host import warm_up_approvals
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.markdown import warm_up
from echo_desk.ui.core import marshal
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.widgets.diff_view import warm_up as warm_up_diffs

TOKENS_PER_SECOND = 200
STREAM_SECONDS = 3.0
DIFF_LINES = 10_000


class BlockingTool(Tool):
    name = "slow_scan"
    description = "Blocks its thread for two seconds."
    risk_level = RiskLevel.READ

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        time.sleep(2.0)  # noqa: ASYNC251  (deliberately blocking: it must not freeze the window)
        return ToolResult.ok("scanned")


class BigEdit(Tool):
    name = "big_edit"
    description = "Proposes a 10,000-line change."
    risk_level = RiskLevel.WRITE

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        lines = ["--- a/big.txt", "+++ b/big.txt", f"@@ -1,{DIFF_LINES} +1,{DIFF_LINES} @@"]
        for i in range(DIFF_LINES):
            lines.append(f"-old line {i} " + "x" * 40 if i % 2 else f"+new line {i} " + "y" * 40)
        diff = "\n".join(lines) + "\n"
        return ToolPreview(targets=(Target(kind="path", value="/tmp/big.txt"),), file_changes=(
            FileChange(path="/tmp/big.txt", kind=FileChangeKind.MODIFY, before_sha256="a", after_sha256="b",
                       diff=diff),))

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok("edited")


class StreamingModel:
    """Streams Markdown at a fixed token rate, then calls the slow tool, then the big edit."""

    def __init__(self) -> None:
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "bench"

    async def stream(self, messages: Sequence[Any], tools: Sequence[Any], *,
                     tool_choice: str = "auto") -> AsyncIterator[Any]:
        self.turn += 1
        if self.turn == 1:
            words = ("Here is **bold** text and `code`, a list:\n\n- one\n- two\n\n```python\n"
                     "def f(x):\n    return x * 2  # comment\n```\n\n").split(" ")
            count = int(TOKENS_PER_SECOND * STREAM_SECONDS)
            start = time.perf_counter()
            for i in range(count):
                # Keep the rate without drift: sleep until the token's due time.
                await asyncio.sleep(max(0.0, start + i / TOKENS_PER_SECOND - time.perf_counter()))
                # Numbered, so the runaway guard (#16) does not take the Markdown for a loop.
                yield TextDelta(words[i % len(words)] + (f" {i}" if i % 3 == 0 else "") + " ")
            yield ToolCallReady(ToolCall(id="c1", name="slow_scan", arguments="{}"))
        elif self.turn == 2:
            yield ToolCallReady(ToolCall(id="c2", name="big_edit", arguments="{}"))
        else:
            yield TextDelta("Done.")
        yield StreamEnd()

    async def aclose(self) -> None:
        return None


class Probe:
    def __init__(self, interval_ms: int = 5) -> None:
        self.interval = interval_ms / 1000
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.phase = "idle"
        self.lates: dict[str, list[float]] = {}
        self._last = 0.0

    def start(self) -> None:
        self._last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.lates.setdefault(self.phase, []).append(max(0.0, now - self._last - self.interval))
        self._last = now


class PaintWatch(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.painted_at: float | None = None

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted_at is None:
            self.painted_at = time.perf_counter()
        return False


def report(name: str, lates: list[float]) -> None:
    if not lates:
        return
    ms = sorted(x * 1000 for x in lates)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"{name:<28} ticks {len(ms):5d}  p50 {statistics.median(ms):5.1f} ms  p99 {p99:5.1f} ms  "
          f"max {ms[-1]:5.1f} ms  {'OK' if p99 <= 16 and ms[-1] <= 50 else 'OVER'}")


async def scenario(window: MainWindow, probe: Probe) -> dict[str, float]:
    figures: dict[str, float] = {}
    host = window.host
    watch = PaintWatch()
    opened_at: dict[str, float] = {}
    original = host.request_approval

    async def timed_request(request: Any) -> Any:
        opened_at["asked"] = time.perf_counter()
        return await original(request)

    host.request_approval = timed_request  # type: ignore[method-assign]

    def on_dialog(dialog: Any) -> None:
        dialog.installEventFilter(watch)
        probe.phase = "approval dialog (10k diff)"
        QTimer.singleShot(600, dialog.deny.click)

    host.dialog_opened.connect(on_dialog)
    done = asyncio.get_running_loop().create_future()
    window.session.busy_changed.connect(lambda busy: None if busy or done.done() else done.set_result(True))
    original_status = window.session.transcript.set_tool_status

    def status(call_id: str, state: str) -> None:
        if call_id == "c1" and state == "running":
            probe.phase = "tool blocks 2 s"
        original_status(call_id, state)

    window.session.transcript.set_tool_status = status  # type: ignore[method-assign]
    probe.phase = "idle (baseline)"  # the timer's own lateness on this machine, same run
    await asyncio.sleep(1.0)
    probe.phase = "stream 200 tok/s"
    window.composer.setPlainText("go")
    window.send()
    await asyncio.wait_for(done, 60)
    probe.phase = "after"
    if watch.painted_at is not None:
        figures["dialog_open_ms"] = (watch.painted_at - opened_at["asked"]) * 1000
    return figures


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    app.setQuitOnLastWindowClosed(False)
    marshal.install()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as tmp:
        settings = SettingsStore.in_dir(Path(tmp))
        runtime = Runtime.create(settings_store=settings, data_dir=Path(tmp), with_builtins=False,
                                 with_plugins=False, extra_tools=[BlockingTool(), BigEdit()])
        store = ConversationStore(Path(tmp) / "c.sqlite3")
        services = Services(settings=settings, backend=CatalogBackend(settings, runtime), runtime=runtime,
                            conversations=store, providers_available=True)
        window = MainWindow()
        warm_up()  # as App.load does after the first frame
        warm_up_diffs()
        warm_up_approvals()
        window.attach(services)
        window.set_model(StreamingModel())
        show_first_frame(window)  # as run_gui does, before the loop starts
        probe = Probe()
        probe.start()
        with loop, marshal.asyncgen_hooks(loop):
            figures = loop.run_until_complete(scenario(window, probe))
            probe.timer.stop()
            for phase in ("idle (baseline)", "stream 200 tok/s", "tool blocks 2 s", "approval dialog (10k diff)"):
                report(phase, probe.lates.get(phase, []))
            everything = [x for k, v in probe.lates.items() if not k.startswith("idle") for x in v]
            report("whole run", everything)
            if "dialog_open_ms" in figures:
                ms = figures["dialog_open_ms"]
                print(f"approval dialog on a {DIFF_LINES:,}-line diff: {ms:.0f} ms from request to first paint "
                      f"(target <= 200 ms) {'OK' if ms <= 200 else 'OVER'}")
            print(json.dumps({"transcript_rows": window.session.transcript.rowCount()}))
            loop.run_until_complete(marshal.shutdown())
        runtime.close()
        store.close()


if __name__ == "__main__":
    main()
