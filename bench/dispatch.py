"""Per-call overhead of execute_tool for a read-only echo tool vs calling the handler directly.

Prints the median overhead in µs (validation, policy, worker hop, envelope, audit write), as a
ratio to one bare worker round trip measured in the same run, serial calls/s, and calls/s with 8
concurrent callers. The echo tool has a preview, as the built-in tools do (``fetch_url`` is read
and previewed): an automatic call previews and runs in one round trip. The same tool without a
preview is measured too (always one round trip). Run: python bench/dispatch.py
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.dispatcher import Dispatcher
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.scope import Scope
from echo_desk.agent.worker import ToolWorkerPool
from echo_desk.store.audit import AuditLog
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import Target, Tool, ToolExecutionContext, ToolPreview, ToolResult


class EchoText(Tool):
    name = "echo_text"
    description = "Return the text."
    parameters = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 200}},
                  "required": ["text"], "additionalProperties": False}

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(params["text"])


class PreviewedEcho(EchoText):
    """The same, with a preview naming what it touches (as every built-in that has one)."""

    name = "echo_previewed"

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        return ToolPreview(targets=(Target(kind="other", value=params["text"]),), summary="echo")


async def main(n: int) -> None:
    folder = Path(tempfile.mkdtemp(prefix="echo-bench-"))
    registry = ToolRegistry()
    tool = EchoText()
    registry.register(tool)
    registry.register(PreviewedEcho())
    settings = SettingsStore.in_dir(folder)
    audit = AuditLog(folder / "audit.sqlite3")
    dispatcher = Dispatcher(registry, settings, audit, BreakerBoard())
    scope = Scope(label="bench", workspace_roots=(folder,))
    host = ScriptedHost()
    args = json.dumps({"text": "hello"})
    ctx = ToolExecutionContext(call_id="x", tool_name="echo_text", scope_id=scope.id)

    for i in range(500):  # warm up caches, the worker thread and SQLite
        await dispatcher.execute_tool(ToolCall(id=f"w{i}", name="echo_text", arguments=args), scope, host)
        await dispatcher.execute_tool(ToolCall(id=f"wp{i}", name="echo_previewed", arguments=args), scope, host)
        await tool.execute({"text": "hello"}, ctx)

    async def nothing() -> None:
        return None

    bare_pool = ToolWorkerPool()
    for _ in range(500):
        await bare_pool.run(nothing(), 10.0)
    # Interleaved, so a neighbour's load on this shared machine weighs on all three alike.
    bare, direct, full, previewed, heard = [], [], [], [], []
    statuses: list[object] = []
    for i in range(n):
        t0 = time.perf_counter_ns()
        await bare_pool.run(nothing(), 10.0)
        t1 = time.perf_counter_ns()
        await tool.execute(json.loads(args), ctx)
        t2 = time.perf_counter_ns()
        await dispatcher.execute_tool(ToolCall(id=f"c{i}", name="echo_text", arguments=args), scope, host)
        t3 = time.perf_counter_ns()
        await dispatcher.execute_tool(ToolCall(id=f"v{i}", name="echo_previewed", arguments=args), scope, host)
        t4 = time.perf_counter_ns()
        # As the agent loop calls it: a status listener, told "running" on the caller's loop.
        await dispatcher.execute_tool(ToolCall(id=f"h{i}", name="echo_previewed", arguments=args), scope, host,
                                      on_status=statuses.append)
        t5 = time.perf_counter_ns()
        heard.append(t5 - t4)
        bare.append(t1 - t0)
        direct.append(t2 - t1)
        full.append(t3 - t2)
        previewed.append(t4 - t3)
    bare_pool.close()
    med_bare = statistics.median(bare) / 1000
    med_direct = statistics.median(direct) / 1000
    plain = statistics.median(full) / 1000
    med_full = statistics.median(previewed) / 1000
    med_heard = statistics.median(heard) / 1000

    t0 = time.perf_counter()
    for i in range(n):
        await dispatcher.execute_tool(ToolCall(id=f"s{i}", name="echo_text", arguments=args), scope, host)
    serial = n / (time.perf_counter() - t0)

    async def caller(k: int) -> None:
        for i in range(n // 8):
            await dispatcher.execute_tool(ToolCall(id=f"p{k}-{i}", name="echo_text", arguments=args), scope, host)

    t0 = time.perf_counter()
    await asyncio.gather(*(caller(k) for k in range(8)))
    concurrent = (n // 8 * 8) / (time.perf_counter() - t0)
    audit.flush()
    rows = audit.query(limit=1)

    print(f"calls measured          : {n}")
    print(f"handler direct (median) : {med_direct:8.1f} µs")
    print(f"execute_tool, no preview: {plain:8.1f} µs   (overhead {plain - med_direct:.1f} µs, "
          f"{(plain - med_direct) / med_bare:.2f} × bare hop)")
    print(f"execute_tool (median)   : {med_full:8.1f} µs   (previewed tool, automatic approval)")
    print(f"overhead (median)       : {med_full - med_direct:8.1f} µs   (target ≤ 150 µs)")
    print(f"overhead ratio          : {med_full / med_direct:8.1f} ×  handler alone")
    print(f"bare worker round trip  : {med_bare:8.1f} µs   (one hop to a tool worker and back, same run)")
    print(f"overhead / bare hop     : {(med_full - med_direct) / med_bare:8.2f} ×  (target ≤ 2 ×)")
    print(f"  with a status listener: {(med_heard - med_direct) / med_bare:8.2f} ×  ({med_heard:.1f} µs; as the agent "
          f"loop calls it: one more wake-up of the caller's loop)")
    print("(throughput below: the tool without a preview)")
    print(f"serial throughput       : {serial:8.0f} calls/s (target ≥ 5,000)")
    print(f"8 concurrent callers    : {concurrent:8.0f} calls/s")
    print(f"audit rows written      : {rows[0]['id'] if rows else 0}")
    dispatcher.close()
    audit.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000))
