"""Where a handed gateway call's time goes in the app: medians per stage, and Python calls per call.

An official MCP SDK client calls server-everything's ``echo`` (auto-allowed) through ``echo-desk
gateway --client bench``, which hands the client's pipes to the app side (``gateway_app.py``'s app,
started here with ``--app``: time stamps are taken along the call's path there). Stages, in the app:

    read → in         the client's bytes reaching the app's reader until the line is taken by hand
    in → session      the request line taken by hand (``HandServed.take``) until ``ClientSession.call``
    session → tool    the dispatcher's steps before the tool runs (``MCPTool.execute``)
    tool → server     the MCP call until its request line is written to the server
    server            from that write until the server's answer reaches the app's reader
    answer → lane     from there until the lane is given the answer line
    lane → client     from that line until the answer to the client is written

Beside each stage's median time, the median number of turns of the MCP loop it took (a turn: one
pass of the loop over what is ready; each hop from a callback to a task, or a task to a task,
costs one).

Then the same calls again with the app's MCP thread under cProfile: Python calls per call
(deterministic, whatever the load). The machine's load is printed: on a busy machine every stage is
slower. Needs server-everything (scripts/install-mcp-test-servers.sh). ``--at COMMIT``: the app
side and the gateway run ``echo_desk`` as of that commit (``_paired.py``; the stages are stamped by
the same names), to set its figures beside this tree's (``bench/gateway_paired.py`` pairs the medians).

Run: PYTHONPATH=. python bench/gateway_stages.py [calls] [--top N] [--at COMMIT]
"""

from __future__ import annotations

import asyncio
import cProfile
import json
import os
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# Run as a script, this file's folder comes first on sys.path; put back last, it lends only what
# nothing installed is named: the paired-run helper.
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != BENCH), str(BENCH)]

from _paired import ROOT, tree_at  # noqa: E402

EVERYTHING = ROOT / "tests/mcp/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
STAGES = ("read", "in", "session", "tool", "sent", "arrived", "answer", "out")
NAMES = {("read", "in"): "read → in", ("in", "session"): "in → session", ("session", "tool"): "session → tool",
         ("tool", "sent"): "tool → server", ("sent", "arrived"): "server", ("arrived", "answer"): "answer → lane",
         ("answer", "out"): "lane → client"}
#: Turns of the MCP loop so far (``_count_turns``); each stamp takes the count beside the time.
TURNS = [0]


def stamped_app() -> None:
    """The app side with a time stamp at each stage's start (``--app``); commands on stdin:
    ``c`` clears, ``s`` prints the medians, ``p``/``d`` start and stop (and dump) the profile."""
    stamps = _stamp_stages()
    from tests.gateway.headless_app import headless_app

    async def main() -> None:
        async with headless_app() as runtime:
            assert runtime.mcp is not None
            _count_turns(runtime.mcp.loop)
            await _serve_commands(stamps, runtime.mcp.loop)

    asyncio.run(main())


def _count_turns(loop: Any) -> None:
    """Count the turns of ``loop`` (a pure-Python asyncio loop: ``_run_once`` is one turn)."""
    real = loop._run_once

    def counted() -> None:
        TURNS[0] += 1
        real()

    loop._run_once = counted


def _stamp_stages() -> dict[str, list[tuple[float, int]]]:
    """Wrap each stage's first function to stamp the time (and the loop's turn) it is entered."""
    from asyncio import base_subprocess

    from echo_desk.gateway import client_lines, handshake, session
    from echo_desk.mcp import call_lane, server_lines, stdio_transport, tool

    stamps: dict[str, list[tuple[float, int]]] = {stage: [] for stage in STAGES}

    def before(owner: Any, name: str, stage: str, when: Any = None) -> None:
        real = getattr(owner, name)
        taken = stamps[stage]
        if asyncio.iscoroutinefunction(real):
            async def stamping_async(self: Any, *args: Any, **kwargs: Any) -> Any:
                if when is None or when(*args):
                    taken.append((time.perf_counter(), TURNS[0]))
                return await real(self, *args, **kwargs)
            setattr(owner, name, stamping_async)
        else:
            def stamping(self: Any, *args: Any, **kwargs: Any) -> Any:
                if when is None or when(*args):
                    taken.append((time.perf_counter(), TURNS[0]))
                return real(self, *args, **kwargs)
            setattr(owner, name, stamping)

    # Bytes reaching a reader of the MCP loop: the client's request (its pipe's protocol may take
    # it in the read, without a stream), and the server's answer to the lane.
    before(client_lines.ClientPipe, "data_received", "read", lambda data: b"tools/call" in data)
    for pipe_protocol in (base_subprocess.ReadSubprocessPipeProto, server_lines.ServerLines):  # whichever reads it
        before(pipe_protocol, "data_received", "arrived", lambda data: b'"echo-desk-lane-' in data)
    before(handshake.HandServed, "take", "in", lambda line: b"tools/call" in line)
    before(session.ClientSession, "call", "session")
    before(tool.MCPTool, "execute", "tool")
    before(stdio_transport._Wire, "send_line", "sent")
    before(call_lane.CallLane, "take_line", "answer", lambda line: b'"echo-desk-lane-' in line)
    attach = handshake.HandServed.attach

    def attach_stamped(self: Any, write: Any, fail: Any) -> None:
        async def stamped_write(data: bytes) -> None:
            if b'"result":{"content"' in data:
                stamps["out"].append((time.perf_counter(), TURNS[0]))
            await write(data)
        attach(self, stamped_write, fail)

    handshake.HandServed.attach = attach_stamped  # type: ignore[method-assign]
    return stamps


async def _serve_commands(stamps: dict[str, list[tuple[float, int]]], loop: asyncio.AbstractEventLoop) -> None:
    profile = cProfile.Profile()

    async def on_mcp_thread(work: Any) -> None:
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work(), loop))

    async def enable() -> None:
        profile.enable()

    async def disable() -> None:
        profile.disable()

    print("ready", flush=True)
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while command := (await reader.readline()).strip():
        if command == b"c":
            for taken in stamps.values():
                taken.clear()
        elif command == b"s":
            n = min(len(taken) for taken in stamps.values())
            last = {stage: taken[-n:] for stage, taken in stamps.items()}
            print(json.dumps({NAMES[a, b]: [statistics.median(y[i] - x[i] for x, y in zip(last[a], last[b], strict=True))
                                            for i in (0, 1)] for a, b in NAMES} | {"n": n}), flush=True)
            continue
        elif command == b"p":
            await on_mcp_thread(enable)
        elif command == b"d":
            await on_mcp_thread(disable)
            profile.dump_stats(os.environ["ECHO_DESK_BENCH_PROFILE"])
        print("ok", flush=True)


async def measure(n: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="echo-bench-stages-", dir="/tmp"))
    os.environ.update(ECHO_DESK_CONFIG_DIR=str(base / "config"), ECHO_DESK_DATA_DIR=str(base / "data"),
                      ECHO_DESK_GATEWAY_SOCKET=str(base / "gw.sock"), ECHO_DESK_GATEWAY_START="0",
                      ECHO_DESK_BENCH_PROFILE=str(base / "profile"))
    from mcp import Client, StdioServerParameters

    from echo_desk.mcp.config import config_path, parse_server
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore, ToolPolicy

    if not EVERYTHING.is_file() or not shutil.which("node"):
        print("server-everything is not installed (scripts/install-mcp-test-servers.sh)")
        return
    entry = {"command": "node", "args": [str(EVERYTHING), "stdio"]}
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(json.dumps({"mcpServers": {"everything": entry}}))
    store = SettingsStore.in_dir(config_dir())
    store.update(lambda s: s.mcp_approved.update({"everything": parse_server("everything", entry).fingerprint()}))
    store.set_tool("everything__echo", policy=ToolPolicy.ALWAYS)
    code = [str(tree_at(AT))] if AT else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*code, str(ROOT)])}
    app = await asyncio.create_subprocess_exec(sys.executable, __file__, "--app", stdin=asyncio.subprocess.PIPE,
                                               stdout=asyncio.subprocess.PIPE, env=env)
    assert app.stdin is not None and app.stdout is not None

    async def tell(command: bytes) -> str:
        assert app.stdin is not None and app.stdout is not None
        app.stdin.write(command + b"\n")
        await app.stdin.drain()
        return (await app.stdout.readline()).decode()

    try:
        if (await asyncio.wait_for(app.stdout.readline(), 120)).split()[:1] != [b"ready"]:
            raise SystemExit("the app side did not start")
        gateway = StdioServerParameters(command=sys.executable, args=["-m", "echo_desk", "gateway", "--client", "bench"],
                                        env=env)
        async with Client(gateway, mode="legacy") as client:

            async def calls() -> list[float]:
                taken = []
                for _ in range(n):
                    started = time.perf_counter()
                    result = await client.call_tool("everything__echo", {"message": "hi"})
                    taken.append(time.perf_counter() - started)
                    assert not result.is_error, result
                return taken

            await calls()  # warm up
            await tell(b"c")
            taken = await calls()
            stages = json.loads(await tell(b"s"))
            await tell(b"p")
            await calls()
            await tell(b"d")
        profile = pstats.Stats(os.environ["ECHO_DESK_BENCH_PROFILE"])
        print(f"{n} calls of everything__echo through the handing gateway, echo_desk {f'as of {AT}' if AT else 'of this tree'} "
              f"(machine load: {os.getloadavg()[0]:.1f})")
        print(f"  client's round trip: median {statistics.median(taken) * 1000:.3f} ms")
        print("  in the app, medians: " + "; ".join(f"{name} {stages[name][0] * 1e6:.0f} µs ({stages[name][1]:g} turns)"
                                                   for name in NAMES.values()))
        print(f"  the app's MCP thread: {profile.total_calls / n:.0f} Python calls per call")  # type: ignore[attr-defined]
        if TOP:
            profile.sort_stats("tottime").print_stats(TOP)
    finally:
        app.stdin.close()
        await asyncio.wait_for(app.wait(), 60)
        shutil.rmtree(base, ignore_errors=True)


#: ``--top N``: also the N functions of the MCP thread with the most time of their own (under cProfile).
TOP = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 0
#: ``--at COMMIT``: the app and the gateway run ``echo_desk`` as of that commit.
AT = sys.argv[sys.argv.index("--at") + 1] if "--at" in sys.argv else ""

if __name__ == "__main__":
    if "--app" in sys.argv:
        stamped_app()
    else:
        numbers = [a for before, a in zip(sys.argv, sys.argv[1:], strict=False)
                   if a.isdigit() and before not in ("--top", "--at")]
        asyncio.run(measure(int(numbers[0]) if numbers else 300))
