"""Agent-loop benchmarks.

1. Engine overhead: time from the model's last tool-call event to the moment the tool result
   is sent back to the model (the next request), for a trivial read tool through the real
   runtime (validation, policy, worker hop, envelope, audit), minus the handler's own time.
   Target: median ≤ 5 ms.
2. With ``--local``: tokens/s received from the built-in local model vs tokens/s that reached
   the chat transcript model (what the view paints), and the worst lag between the two.

Run: python bench/agent.py [--local]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage, StreamEnd, StreamEvent, TextDelta, ToolCall, ToolCallReady
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore


class TimingModel:
    """Asks for echo_text once, then answers; records when the call left and the result came back."""

    def __init__(self) -> None:
        self.sent_call_at = 0.0
        self.result_back_at = 0.0
        self.turn = 0

    @property
    def display_name(self) -> str:
        return "timing"

    async def stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], *, tool_choice: str = "auto"
    ) -> AsyncIterator[StreamEvent]:
        if self.turn == 0:
            self.turn = 1
            self.sent_call_at = time.perf_counter()
            yield ToolCallReady(ToolCall(id="c1", name="echo_text", arguments='{"text": "hello"}'))
            yield StreamEnd("tool_calls")
        else:
            self.result_back_at = time.perf_counter()
            yield TextDelta("done")
            yield StreamEnd()

    async def aclose(self) -> None:
        return None


async def engine_overhead(runs: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="echo-bench-agent-"))
    runtime = Runtime.create(settings_store=SettingsStore.in_dir(folder / "config"), data_dir=folder / "data",
                             with_plugins=False)
    scope = Scope(label="bench", workspace_roots=(folder,))
    host = ScriptedHost()
    tool = runtime.registry.get("echo_text")
    assert tool is not None
    samples, handler = [], []
    for i in range(runs + 50):
        model = TimingModel()
        loop = AgentLoop(model, runtime.dispatcher, runtime.schema_factory)
        await loop.run([ChatMessage(role="user", content="x")], scope, host)
        from echo_desk.tools import ToolExecutionContext

        t0 = time.perf_counter()
        await tool.tool.execute({"text": "hello"}, ToolExecutionContext(call_id="d", tool_name="echo_text",
                                                                        scope_id=scope.id))
        handler_s = time.perf_counter() - t0
        if i >= 50:  # warm-up excluded
            samples.append((model.result_back_at - model.sent_call_at - handler_s) * 1000)
            handler.append(handler_s * 1000)
    runtime.close()
    samples.sort()
    print(f"exchanges measured            : {runs}")
    print(f"tool call → result sent back  : median {statistics.median(samples):.3f} ms, "
          f"p90 {samples[int(len(samples) * 0.9)]:.3f} ms (target median ≤ 5 ms)")
    print(f"handler alone (subtracted)    : median {statistics.median(handler) * 1000:.1f} µs")


def local_model_rendering() -> None:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    from echo_desk.providers.local.manager import resolve_model_path
    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel
    from echo_desk.store.settings import LocalModelSettings
    from echo_desk.ui.chat.transcript import TranscriptModel
    from echo_desk.ui.core import marshal

    app = QApplication.instance() or QApplication([])
    transcript = TranscriptModel()
    received: list[tuple[float, int]] = []
    rendered: list[tuple[float, int]] = []
    transcript.dataChanged.connect(lambda *_: rendered.append((time.perf_counter(), len(transcript.items()[-1].text))))
    transcript.rowsInserted.connect(lambda *_: rendered.append((time.perf_counter(), len(transcript.items()[-1].text))))

    async def run() -> None:
        local = LocalModelSettings()
        model = LocalModel(resolve_model_path(local), get_profile(local.profile, context_size=4096))
        await model.ensure_started()
        prompt = [ChatMessage(role="user", content="Write a 150-word story about a lighthouse keeper.")]
        total = 0
        async for event in model.stream(prompt, []):
            if isinstance(event, TextDelta):
                total += len(event.text)
                received.append((time.perf_counter(), total))
                transcript.append_text(event.text)
        transcript.end_assistant()
        await model.aclose()

    loop = qasync.QEventLoop(app)
    with marshal.asyncgen_hooks(loop), loop:
        loop.run_until_complete(run())
    span = received[-1][0] - received[0][0]
    shown_span = rendered[-1][0] - received[0][0]
    lags = []
    for at, chars in received:
        shown = next((t for t, c in rendered if c >= chars), rendered[-1][0])
        lags.append((shown - at) * 1000)
    print(f"tokens received               : {len(received)} in {span:.2f} s = {len(received) / span:.1f} tokens/s")
    print(f"tokens rendered               : {len(received)} in {shown_span:.2f} s = "
          f"{len(received) / shown_span:.1f} tokens/s ({len(rendered)} repaints, coalesced)")
    print(f"receive → transcript lag      : median {statistics.median(lags):.0f} ms, max {max(lags):.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--local", action="store_true", help="also measure the built-in local model")
    args = parser.parse_args()
    asyncio.run(engine_overhead(args.runs))
    if args.local:
        local_model_rendering()
