"""A stdio server's answer to the lane's call: read off the pipe (``server_lines``) vs through
asyncio's subprocess stream and the reader task, as before.

In one process, one loop: a server (Python, answering each ``tools/call`` at once) behind Echo
Desk's own transport (``stdio_transport._Wire``), called through the lane, in blocks of 100 calls
taking turns between the two ways (a new transport for each block, the same server program).
Per call, medians over the blocks: the wall time, this thread's CPU (the server's is not counted),
and the turns of the loop. The machine's load is printed: on a busy machine the wall time is mostly
waiting for the server to be scheduled; the CPU and the turns say what this side does.

Run: PYTHONPATH=. python bench/stdio_answer.py [blocks]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# Run as a script, this file's folder comes first on sys.path: keep it from shadowing anything.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

SERVER = r"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                                 "result": {"content": [{"type": "text", "text": "done"}]}}) + "\n")
    sys.stdout.flush()
"""
CALLS = 100
TURNS = [0]


async def _nothing(*_args: Any) -> None:
    return None


async def block(read_off_the_pipe: bool) -> tuple[float, float, float]:
    """Wall µs, CPU µs and turns per call over ``CALLS`` calls on a new transport."""
    import anyio
    from mcp.client.stdio import StdioServerParameters

    from echo_desk.mcp import stdio_transport
    from echo_desk.mcp.server_lines import ServerLines

    install = ServerLines.install
    if not read_off_the_pipe:
        ServerLines.install = classmethod(lambda cls, *args: None)  # type: ignore[method-assign,assignment]
    try:
        process = await anyio.open_process([sys.executable, "-c", SERVER])
        wire = stdio_transport._Wire(StdioServerParameters(command=sys.executable), process)
    finally:
        ServerLines.install = install  # type: ignore[method-assign]
    assert (wire.lines is not None) is read_off_the_pipe
    wire.lane.adopt(SimpleNamespace(session=SimpleNamespace(_stamp=lambda data, opts: None, validate_tool_result=_nothing),
                                    _drive_input_required=_nothing))
    async with anyio.create_task_group() as group:
        group.start_soon(wire.stdout_reader)
        group.start_soon(wire.stdin_writer)
        for _ in range(10):  # warm up
            await wire.lane.call_tool("t", {})
        wall, cpu, turns = time.perf_counter(), time.thread_time(), TURNS[0]
        for _ in range(CALLS):
            await wire.lane.call_tool("t", {})
        wall, cpu, turns = time.perf_counter() - wall, time.thread_time() - cpu, TURNS[0] - turns
        wire.shutting_down = True
        wire.lane.end()
        with anyio.CancelScope(shield=True):
            await wire.shutdown()
        group.cancel_scope.cancel()
    return wall / CALLS * 1e6, cpu / CALLS * 1e6, turns / CALLS


async def main(blocks: int) -> None:
    loop: Any = asyncio.get_running_loop()
    real = loop._run_once

    def counted() -> None:
        TURNS[0] += 1
        real()

    loop._run_once = counted
    found: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for turn in range(blocks):
        for way in ((True, False) if turn % 2 else (False, True)):
            found[way].append(await block(way))
    print(f"{blocks} blocks of {CALLS} calls each way, interleaved (machine load: {os.getloadavg()[0]:.1f}); "
          "medians per call:")
    for way, name in ((False, "through the stream (before)"), (True, "off the pipe (server_lines)")):
        wall, cpu, turns = (statistics.median(sample[i] for sample in found[way]) for i in range(3))
        print(f"  {name:<28} wall {wall:7.1f} µs   this thread's CPU {cpu:6.1f} µs   {turns:.1f} turns of the loop")


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    asyncio.run(main(int(numbers[0]) if numbers else 20))
