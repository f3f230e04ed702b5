"""How a gateway call's time grows with the size of its arguments, in the app, the server's answer
canned: the dispatcher's steps and the audit record the answer waits for, nothing of the wire.

A client's call (``ClientSession.call``, as the gateway hands it over) of an auto-allowed MCP tool
whose server answers "done" at once, with 0.125 to 4 MB of arguments in two shapes: one long
string, and an array of many small objects (~40 bytes of JSON each). Medians of a few calls per
size, and of the CPU time the process spent on them (every thread: less hurt by a busy machine),
the time per MB beside each: a step that grows faster than its input shows as a rising
ms/MB. ``--profile`` lists, for the largest size, the functions taking the most time on the
caller's thread and the audit writer's, from cProfile.

Run: PYTHONPATH=. python bench/gateway_sizes.py [--calls N] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this file's folder comes first on sys.path: keep it from shadowing anything.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

SIZES_MB = (0.125, 0.25, 0.5, 1, 2, 4)
TOOL = "canned__take"


def arguments(shape: str, size: int) -> dict[str, Any]:
    """About ``size`` bytes of JSON arguments: one string, or many small objects."""
    if shape == "string":
        return {"text": "x" * size}
    # "abcdefghij" holds one of the redaction's needles ("gh"): each value is then tried against the
    # secret shapes one by one, the dearer case of a small value (most hold no needle at all).
    return {"items": [{"k": i, "v": "abcdefghij", "f": [1, 2]} for i in range(size // 40)]}


async def measure(calls: int, profile: bool) -> None:
    from echo_desk.agent.host import ScriptedHost
    from echo_desk.gateway.session import ClientSession
    from echo_desk.mcp.tool import make_tool
    from echo_desk.runtime import Runtime
    from echo_desk.store.settings import SettingsStore, ToolPolicy
    from echo_desk.tools import RiskLevel
    from tests.gateway.canned_server import CannedServer

    base = Path(tempfile.mkdtemp(prefix="echo-bench-sizes-", dir="/tmp"))
    try:
        store = SettingsStore.in_dir(base / "config")
        runtime = Runtime.create(settings_store=store, data_dir=base / "data", with_plugins=False)
        tool = make_tool(CannedServer(), registry_name=TOOL, server="canned", original_name="take",  # type: ignore[arg-type]
                         description="Takes anything.", parameters={"type": "object", "properties": {
                             "text": {"type": "string"}, "items": {"type": "array"}}},
                         title="", annotations={}, definition_hash="sha256:bench", hidden_characters=(),
                         risk=RiskLevel.EXEC, timeout=60.0)
        assert runtime.registry.register(tool, source="mcp:canned").ok
        store.set_tool(TOOL, policy=ToolPolicy.ALWAYS)
        session = ClientSession(runtime, ScriptedHost(), "bench")
        await session.call(TOOL, {"text": "warm up"})
        print(f"{calls} calls per size of {TOOL} (answer canned), in-process (machine load: {os.getloadavg()[0]:.1f})")
        for shape in ("string", "nested"):
            for mb in SIZES_MB:
                given = arguments(shape, int(mb * 1024 * 1024))
                taken, worked = [], []
                for _ in range(calls):
                    started, cpu = time.perf_counter(), time.process_time()
                    result = await session.call(TOOL, given)
                    taken.append(time.perf_counter() - started)
                    worked.append(time.process_time() - cpu)
                    assert not result.get("isError"), result
                median, median_cpu = statistics.median(taken) * 1000, statistics.median(worked) * 1000
                print(f"  {shape:6} {mb:5} MB: median {median:8.1f} ms, {median / mb:6.1f} ms/MB;"
                      f" CPU {median_cpu:8.1f} ms, {median_cpu / mb:6.1f} ms/MB")
        if profile:
            await _profiled(session, arguments("nested", int(SIZES_MB[-1] * 1024 * 1024)))
        runtime.audit.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def _profiled(session: Any, given: dict[str, Any]) -> None:
    """One call of the largest nested size under cProfile: the caller's thread (its wait for the
    record is the ``poll``) and the audit writer's work on the record."""
    # The audit's writer thread already runs: it is profiled through the records it builds.
    from echo_desk.store import audit
    real_row = audit._Deferred.row
    here, writer = cProfile.Profile(), cProfile.Profile()

    def row_profiled(self: Any) -> Any:
        return writer.runcall(real_row, self)

    audit._Deferred.row = row_profiled  # type: ignore[method-assign]
    here.enable()
    try:
        await session.call(TOOL, given)
    finally:
        here.disable()
        audit._Deferred.row = real_row  # type: ignore[method-assign]
    out = io.StringIO()
    stats = pstats.Stats(here, stream=out)
    stats.add(writer)
    stats.sort_stats("tottime").print_stats(12)
    print(f"  one call of {SIZES_MB[-1]} MB of small values, the caller and the audit writer, by own time:")
    print("\n".join("    " + line for line in out.getvalue().splitlines() if line.strip()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5, help="calls per size (default 5)")
    parser.add_argument("--profile", action="store_true", help="profile one call of the largest nested size")
    options = parser.parse_args()
    asyncio.run(measure(options.calls, options.profile))


if __name__ == "__main__":
    main()
