"""A huge MCP result (default 50 MB of text): time, memory, and another server's wait, old vs new.

The MCP manager runs on its own thread, as in the app. One fault server answers ``big`` with
N characters; meanwhile a second server's ``echo`` is called every 20 ms and its slowest round
trip is recorded (it shares the manager's loop). Each side runs in a fresh child process: the
old code is ``echo_desk`` as of ``OLD_COMMIT``, the new one this tree's ``HEAD`` (both from git).
Prints per side: the call's time, its outcome, the process's peak RSS growth, and the other
server's slowest call.
Run: PYTHONPATH=. python bench/mcp_big_result.py [--chars N] [--timeout S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
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

OLD_COMMIT = "d092ecd"
FAULT_SERVER = ROOT / "tests" / "mcp" / "fault_server.py"


def rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def child(chars: int, timeout: float) -> dict[str, Any]:
    from echo_desk.mcp import McpManager
    from echo_desk.mcp.config import parse_server
    from echo_desk.store.settings import SettingsStore
    from echo_desk.tools import ToolExecutionContext

    def server(name: str) -> Any:
        return parse_server(name, {"command": sys.executable, "args": [str(FAULT_SERVER)], "timeout": timeout})

    manager = McpManager(SettingsStore.in_memory(), servers={"big": server("big"), "other": server("other")})
    for name in ("big", "other"):
        request = manager.start_request(name)
        if request is not None:
            manager.approve_start(name, request.fingerprint)
    try:
        await manager.start_all()

        def ctx(tool: str) -> ToolExecutionContext:
            return ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name=tool, scope_id="bench")

        await manager.call_tool("other", "other__echo", "echo", {"text": "warm"}, ctx("echo"))
        await manager.call_tool("big", "big__big", "big", {"chars": 1000}, ctx("big"))
        done = asyncio.Event()
        slowest = [0.0]

        async def poll_other() -> None:
            while not done.is_set():
                start = time.perf_counter()
                await manager.call_tool("other", "other__echo", "echo", {"text": "ping"}, ctx("echo"))
                slowest[0] = max(slowest[0], time.perf_counter() - start)
                await asyncio.sleep(0.02)

        poller = asyncio.create_task(poll_other())
        before = rss_kib()
        start = time.perf_counter()
        result = await manager.call_tool("big", "big__big", "big", {"chars": chars}, ctx("big"))
        elapsed = time.perf_counter() - start
        done.set()
        await poller
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return {
            "seconds": elapsed,
            "outcome": "ok" if result.success else f"{result.error_kind.value}: {result.error}",
            "output_chars": len(result.output),
            "peak_rss_growth_mib": (peak - before) / 1024,
            "other_slowest_s": slowest[0],
        }
    finally:
        await manager.aclose()


def run_side(label: str, pythonpath: Path, chars: int, timeout: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(pythonpath)}
    out = subprocess.run([sys.executable, __file__, "--child", "--chars", str(chars), "--timeout", str(timeout)],
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{label} failed:\n{out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=50_000_000)
    parser.add_argument("--timeout", type=float, default=300.0, help="the big server's call timeout")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(child(args.chars, args.timeout))))
        return
    print(f"MCP result of {args.chars:,} characters, manager on its own thread (the app's way)")
    for label, path in (("old", tree_at(OLD_COMMIT)), ("new", tree_at("HEAD"))):
        r = run_side(label, path, args.chars, args.timeout)
        print(f"  {label}: call {r['seconds']:.2f} s ({r['outcome'][:80]}, {r['output_chars']:,} chars kept), "
              f"peak RSS +{r['peak_rss_growth_mib']:.0f} MiB, other server's slowest call {r['other_slowest_s']:.2f} s")


if __name__ == "__main__":
    main()
