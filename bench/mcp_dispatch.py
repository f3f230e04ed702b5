"""MCP overhead: a trivial tool call through ``execute_tool`` vs the SDK's bare client.

Same server command, same run, stdio both ways, calls interleaved. Prints the median round
trip of each, their ratio (target ≤ 1.2×), the adapter alone (``MCPTool.execute`` without the
dispatcher), and the time to connect + list tools — for both ways the manager runs: sharing
the caller's loop (the CLI) and on its own thread (the app, two thread hops per call). With
``--qt`` everything runs on the app's own kind of loop (qasync on a Qt application,
offscreen), the caller and the bare client included, and only the app's way is measured.
Uses server-everything's ``echo`` when it is installed (scripts/install-mcp-test-servers.sh),
the in-repo fault server's ``echo`` always, and mcp-server-time's ``get_current_time`` when it
is installed.

Run: PYTHONPATH=. python bench/mcp_dispatch.py [calls] [--qt]
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this file's folder comes first on sys.path and "mcp" would be this file.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
EVERYTHING = ROOT / "tests/mcp/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def servers() -> list[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    """(name, mcp.json entry, tool, arguments) for each server available here."""
    found = [("fault", {"command": sys.executable, "args": [str(ROOT / "tests/mcp/fault_server.py")]},
              "echo", {"text": "hi"})]
    if EVERYTHING.is_file() and shutil.which("node"):
        found.insert(0, ("everything", {"command": "node", "args": [str(EVERYTHING), "stdio"]},
                         "echo", {"message": "hi"}))
    time_server = Path(sys.executable).with_name("mcp-server-time")
    if time_server.exists():
        found.append(("time", {"command": str(time_server), "args": ["--local-timezone", "UTC"]},
                      "get_current_time", {"timezone": "UTC"}))
    return found


async def measure(
    name: str, entry: dict[str, Any], tool: str, args: dict[str, Any], n: int, *, own_thread: bool
) -> dict[str, float]:
    """Both clients connected at once; calls interleaved so machine noise hits both alike."""
    from mcp import Client, StdioServerParameters

    from echo_desk.agent.dispatcher import new_call_id
    from echo_desk.agent.host import ScriptedHost
    from echo_desk.agent.model import ToolCall
    from echo_desk.agent.scope import Scope
    from echo_desk.mcp.config import config_path, parse_server
    from echo_desk.runtime import Runtime
    from echo_desk.store.settings import SettingsStore, ToolPolicy
    from echo_desk.tools import ToolExecutionContext

    config_path().write_text(json.dumps({"mcpServers": {name: entry}}), encoding="utf-8")
    store = SettingsStore.in_memory()
    fingerprint = parse_server(name, entry).fingerprint()
    store.update(lambda s: s.mcp_approved.update({name: fingerprint}))
    store.set_tool(f"{name}__{tool}", policy=ToolPolicy.ALWAYS)  # no approval prompt in the loop
    runtime = Runtime.create(settings_store=store, data_dir=Path(tempfile.mkdtemp()), with_builtins=False,
                             with_plugins=False)
    host, scope, text = ScriptedHost(), Scope(label="bench"), json.dumps(args)

    async def engine_call() -> None:
        envelope = await runtime.dispatcher.execute_tool(
            ToolCall(id=new_call_id(), name=f"{name}__{tool}", arguments=text), scope, host
        )
        assert envelope.ok, envelope.error

    try:
        t0 = time.perf_counter()
        await runtime.attach_mcp(host, own_thread=own_thread)
        engine_connect = time.perf_counter() - t0
        t0 = time.perf_counter()
        async with Client(StdioServerParameters(command=entry["command"], args=entry["args"])) as client:
            await client.list_tools()
            bare_connect = time.perf_counter() - t0
            for _ in range(30):  # warm up both paths
                await client.call_tool(tool, args)
                await engine_call()
            # The adapter alone (MCPTool.execute from this loop: with the manager on its own
            # thread, one hop there and back), to tell its share from the dispatcher's.
            entry_tool = runtime.registry.get(f"{name}__{tool}")
            assert entry_tool is not None
            ctx = ToolExecutionContext(call_id="bench", tool_name=f"{name}__{tool}", scope_id=scope.id)
            samples: dict[str, list[float]] = {"bare": [], "engine": [], "adapter": []}
            paths = {
                "bare": lambda: client.call_tool(tool, args),
                "engine": engine_call,
                "adapter": lambda: entry_tool.tool.execute(args, ctx),
            }
            order = list(paths)
            shuffle = random.Random(7).shuffle
            for _ in range(n):
                # A fresh order each round: a server process that has just answered is quicker
                # to answer again, so a fixed order would favour whichever path comes second.
                shuffle(order)
                for path in order:
                    t = time.perf_counter()
                    await paths[path]()
                    samples[path].append(time.perf_counter() - t)
    finally:
        await runtime.aclose()
    return {
        **{path: statistics.median(times) * 1000 for path, times in samples.items()},
        "bare_connect": bare_connect * 1000,
        "engine_connect": engine_connect * 1000,
    }


async def main(n: int, modes: tuple[tuple[bool, str], ...]) -> None:
    os.environ.setdefault("ECHO_DESK_CONFIG_DIR", tempfile.mkdtemp(prefix="echo-bench-config-"))
    print(f"{n} calls each, interleaved in a shuffled order; medians")
    print(f"{'server':<11} {'manager':<20} {'bare ms':>8} {'engine ms':>10} {'ratio':>6} {'overhead':>9} "
          f"{'adapter ms':>11}   {'connect+list: bare':>19} {'attach_mcp':>11}")
    for name, entry, tool, args in servers():
        for own_thread, label in modes:
            r = await measure(name, entry, tool, args, n, own_thread=own_thread)
            print(f"{name:<11} {label:<20} {r['bare']:>8.3f} {r['engine']:>10.3f} {r['engine'] / r['bare']:>5.2f}× "
                  f"{(r['engine'] - r['bare']) * 1000:>6.0f} µs {r['adapter']:>11.3f}   "
                  f"{r['bare_connect']:>16.0f} ms {r['engine_connect']:>8.0f} ms")


def run_on_qt_loop(n: int) -> None:
    """The app's loop: qasync on a QApplication (offscreen), with the hooks the app installs."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtWidgets import QApplication

    from echo_desk.ui.core.marshal import asyncgen_hooks

    app = QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop, asyncgen_hooks(loop):
        loop.run_until_complete(main(n, ((True, "own thread, Qt loop"),)))


if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    calls = int(numbers[0]) if numbers else 300
    if "--qt" in sys.argv:
        run_on_qt_loop(calls)
    else:
        asyncio.run(main(calls, ((False, "shared loop"), (True, "own thread"))))
