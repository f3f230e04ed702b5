"""The gateway's cost: an auto-allowed call through ``echo-desk gateway`` vs the same client
talking to the same server directly, and many calls at once from two clients.

In one run: the app side is the real engine with the gateway service on the MCP manager's loop,
in a process of its own as the app runs it (``gateway_app.py``); the client is the official MCP
Python SDK client over stdio, once to ``echo-desk gateway --client bench`` (which hands the client's
pipes to the app, ``echo_desk/gateway/handoff.py``: the service serves the session, its dispatcher
calls the server), once to the gateway relaying every call over the socket as before the handoff
(``ECHO_DESK_GATEWAY_HANDOFF=0``, "relay"), and once straight to the server. Calls are interleaved
in a shuffled order; medians of N calls each (target: gateway ≤ 1.3× direct). Beside them, the same client
through two relays that do nothing but copy bytes (``null_relay.py``): what the gateway's two extra
process hops cost by themselves, whatever runs in them. And the same server called with bare
JSON-RPC lines, no client library (``BareClient``): what one SDK client session adds to a call
(the caller's; the app's own call to the server skips the session, ``echo_desk/mcp/call_lane.py``). Then 200 calls at once
from two gateway clients (100 each): how many were lost (an exception or an error result) and the
p50/p99. Last, start-up: from spawning a process to its answer to ``tools/list`` (a bare
client, ``initialize`` first), medians of 15 spawns each, interleaved: the time server alone, the
gateway as it serves (the handshake answered by hand, ``echo_desk/gateway/handshake.py``), and the
gateway with the SDK's server serving the whole session (``ECHO_DESK_GATEWAY_SDK=1``, as before
the hand path).
Servers: mcp-server-time (PyPI) always; server-everything's ``echo`` (npm) when installed.

With ``--hand-back``, only this: the app quits with a client's session handed to it, the gateway
takes the session back and starts its own engine and MCP servers, and the client's first call (to
the time server) is timed from the quit to its answer; beside the two servers, a third that takes
3 s to start (server-everything behind a delay, as a server fetched by ``npx``/``uvx`` does). "new":
the call waits for its own server only (``echo_desk/mcp/first_starts.py``); "old": it waits for
every server, as before (the same gateway with each call made to wait as a list does). Rounds
interleaved; each round starts the app again.

The app side collects its garbage as the app does (``gateway_app.py``); ``--gc-as-python`` leaves
Python's automatic collector on, on its MCP thread (as this bench measured before).

Run: PYTHONPATH=. python bench/gateway.py [calls] [--modern] [--gc-as-python] [--hand-back [rounds]]
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
# Run as a script, this file's folder comes first on sys.path: keep it from shadowing anything.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
EVERYTHING = ROOT / "tests/mcp/servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


#: The protocol era the clients speak: "legacy" (the initialize handshake, what Claude Code, Cursor,
#: VS Code and the TypeScript SDK speak today) or "auto" (the Python SDK 2.x's 2026-07-28 era).
MODE = "auto" if "--modern" in sys.argv else "legacy"


def servers() -> list[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = []
    time_server = Path(sys.executable).with_name("mcp-server-time")
    if time_server.exists():
        found.append(("time", {"command": str(time_server), "args": ["--local-timezone", "UTC"]},
                      "get_current_time", {"timezone": "UTC"}))
    if EVERYTHING.is_file() and shutil.which("node"):
        found.append(("everything", {"command": "node", "args": [str(EVERYTHING), "stdio"]},
                      "echo", {"message": "hi"}))
    return found


def cpu_seconds(stat_path: str) -> float:
    """User + system CPU of a process or thread, from its /proc stat file (Linux)."""
    try:
        fields = Path(stat_path).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def child_pid(word: str) -> int | None:
    """A child of this process whose command line has ``word`` (the gateway, a direct server)."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat[1]) == me and word in cmdline:
            return int(entry)
    return None


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


async def main(n: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="echo-bench-gw-", dir="/tmp"))
    os.environ.update(ECHO_DESK_CONFIG_DIR=str(base / "config"), ECHO_DESK_DATA_DIR=str(base / "data"),
                      ECHO_DESK_GATEWAY_SOCKET=str(base / "gw.sock"), ECHO_DESK_GATEWAY_START="0")
    from mcp import Client, StdioServerParameters

    from echo_desk.gateway.local_socket import socket_path
    from echo_desk.mcp.config import config_path, parse_server
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SettingsStore, ToolPolicy

    found = servers()
    if not found:
        print("no test server installed (pip install mcp-server-time)")
        return
    config_path().write_text(json.dumps({"mcpServers": {name: entry for name, entry, _, _ in found}}))
    store = SettingsStore.in_dir(config_dir())
    store.update(lambda s: s.mcp_approved.update({name: parse_server(name, entry).fingerprint()
                                                  for name, entry, _, _ in found}))
    for name, _, tool, _ in found:
        store.set_tool(f"{name}__{tool}", policy=ToolPolicy.ALWAYS)  # auto-allowed: nobody is asked
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if HAND_BACK:
        try:
            await after_hand_back(found, store, env, n)
        finally:
            shutil.rmtree(base, ignore_errors=True)
        return
    # The app in a process of its own, as a person runs it (in this one, its thread would share
    # the interpreter's lock with the clients measured here).
    app = await asyncio.create_subprocess_exec(sys.executable, str(Path(__file__).with_name("gateway_app.py")),
                                               *GC_AS_PYTHON, stdin=asyncio.subprocess.PIPE,
                                               stdout=asyncio.subprocess.PIPE, env=env)
    assert app.stdout is not None and app.stdin is not None
    ready = (await asyncio.wait_for(app.stdout.readline(), 120)).decode().split()
    if ready[:1] != ["ready"]:
        raise SystemExit(f"the app side did not start: {ready}")
    app_pid, manager_tid = int(ready[1]), int(ready[2])
    gateway = StdioServerParameters(command=sys.executable, args=["-m", "echo_desk", "gateway", "--client", "bench"],
                                    env=env)
    # The same gateway relaying each call over the socket (the path before the handoff, and when it fails).
    relaying = StdioServerParameters(command=sys.executable, args=["-m", "echo_desk", "gateway", "--client", "relayed"],
                                     env={**env, "ECHO_DESK_GATEWAY_HANDOFF": "0"})
    print(f"{n} calls each, interleaved in a shuffled order; medians; clients in {MODE} mode; the app's garbage "
          f"collected {'as Python does (on its MCP thread)' if GC_AS_PYTHON else 'as the app does (gateway_app.py)'} "
          f"(machine load: {os.getloadavg()[0]:.1f})")
    print(f"{'server':<11} {'direct ms':>10} {'gateway ms':>11} {'ratio':>6} {'overhead':>9}   "
          f"{'relay ms':>9} {'ratio':>6}   {'socket only ms':>15}   {'2 null relays ms':>16}   {'bare client ms':>14}   "
          "CPU per call (ms): the handing gateway process, the app's MCP thread (mean of gateway, relay, socket)")
    try:
        for name, entry, tool, args in found:
            await compare(n, socket_path(), gateway, relaying, f"/proc/{app_pid}/task/{manager_tid}/stat", name, entry, tool, args)
        await concurrent(gateway, found[0], Client)
        await startup(gateway, found[0][1])
    finally:
        app.stdin.close()
        await asyncio.wait_for(app.wait(), 30)
        shutil.rmtree(base, ignore_errors=True)


async def compare(n: int, socket: Path, gateway: Any, relaying: Any, app_thread_stat: str, name: str, entry: dict[str, Any],
                  tool: str, args: dict[str, Any]) -> None:
    """One server: the direct, gateway and app-side-only paths interleaved; medians and CPU."""
    from mcp import Client, StdioServerParameters

    from echo_desk.gateway.relay import Relay

    direct_params = StdioServerParameters(command=entry["command"], args=entry["args"])
    null_relay = str(Path(__file__).with_name("null_relay.py"))
    relayed_params = StdioServerParameters(
        command=sys.executable, args=[null_relay, sys.executable, null_relay, entry["command"], *entry["args"]])
    relay = await Relay.connect(socket, "bench-socket")
    bare = await BareClient.start(entry["command"], entry["args"])
    async with (Client(direct_params, mode=MODE) as direct, Client(gateway, mode=MODE) as through,
                Client(relaying, mode=MODE) as relayed, Client(relayed_params, mode=MODE) as hops):
        samples: dict[str, list[float]] = {"direct": [], "gateway": [], "relay": [], "socket": [], "hops": [],
                                           "bare": []}
        # "socket": the app's side alone (socket, service, dispatcher, server), called from here
        # without the gateway process: what the gateway process itself adds is the rest.
        # "hops": the server behind two relays that do nothing: the floor of any two extra processes.
        calls = {"direct": lambda: direct.call_tool(tool, args),
                 "gateway": lambda: through.call_tool(f"{name}__{tool}", args),
                 "relay": lambda: relayed.call_tool(f"{name}__{tool}", args),
                 "socket": lambda: _relayed(relay, f"{name}__{tool}", args),
                 "hops": lambda: hops.call_tool(tool, args),
                 "bare": lambda: bare.call_tool(tool, args)}
        for _ in range(30):  # warm up both
            for call in calls.values():
                await call()
        gateway_pid = child_pid("--client bench")
        cpu_paths = (f"/proc/{gateway_pid}/stat", app_thread_stat)
        cpu_before = [cpu_seconds(p) for p in cpu_paths]
        order = list(calls)
        shuffle = random.Random(7).shuffle
        for _ in range(n):
            shuffle(order)
            for path in order:
                t = time.perf_counter()
                result = await calls[path]()
                samples[path].append(time.perf_counter() - t)
                assert not result.is_error, result
        # The app's thread also served the "socket" and "relay" calls: its CPU per call covers the three.
        cpu = [(cpu_seconds(p) - b) * 1000 for p, b in zip(cpu_paths, cpu_before, strict=True)]
    await relay.aclose()
    await bare.aclose()
    d, g, r, s, h, b = (statistics.median(samples[p]) * 1000
                        for p in ("direct", "gateway", "relay", "socket", "hops", "bare"))
    print(f"{name:<11} {d:>10.3f} {g:>11.3f} {g / d:>5.2f}× {(g - d) * 1000:>6.0f} µs   {r:>9.3f} {r / d:>5.2f}×   "
          f"{s:>15.3f}   {h:>9.3f} ({h / d:.2f}×)   {b:>14.3f}   {cpu[0] / n:.2f}, {cpu[1] / (3 * n):.2f}")
    tails = {p: percentile(samples[p], 99) * 1000 for p in ("direct", "gateway", "relay")}
    print(f"{'':<11} p99: direct {tails['direct']:.3f} ms, gateway {tails['gateway']:.3f} ms "
          f"({tails['gateway'] / tails['direct']:.2f}×), relay {tails['relay']:.3f} ms")


class BareClient:
    """A server called with bare JSON-RPC lines on its stdin and stdout, in the handshake era: a
    call's cost without any client library, beside the SDK client's."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.last_id = 0

    @classmethod
    async def start(cls, command: str, args: list[str], env: dict[str, str] | None = None) -> BareClient:
        process = await asyncio.create_subprocess_exec(command, *args, stdin=asyncio.subprocess.PIPE,
                                                       stdout=asyncio.subprocess.PIPE,
                                                       stderr=asyncio.subprocess.DEVNULL, env=env)
        client = cls(process)
        await client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                            "clientInfo": {"name": "bench", "version": "1"}})
        await client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return client

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        await self.process.stdin.drain()

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdout is not None
        self.last_id += 1
        await self.send({"jsonrpc": "2.0", "id": self.last_id, "method": method, "params": params})
        while True:  # a notification or a log line of the server may come first
            line = await self.process.stdout.readline()
            if not line:
                raise ConnectionError("the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.last_id:
                return message

    async def call_tool(self, tool: str, args: dict[str, Any]) -> _Relayed:
        answer = await self.request("tools/call", {"name": tool, "arguments": args})
        return _Relayed(answer.get("result") or {"isError": True})

    async def aclose(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 5)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


class _Relayed:
    def __init__(self, result: dict[str, Any]) -> None:
        self.is_error = bool(result.get("isError"))


async def _relayed(relay: Any, name: str, args: dict[str, Any]) -> _Relayed:
    return _Relayed(await relay.call(name, args))


async def concurrent(gateway: Any, server: tuple[str, dict[str, Any], str, dict[str, Any]], client_type: Any) -> None:
    """200 calls at once from two clients (100 each): lost, p50, p99."""
    name, _, tool, args = server
    gateway_b = gateway.model_copy(update={"args": [*gateway.args[:-1], "bench-b"]})
    latencies: list[float] = []
    lost = 0
    async with client_type(gateway, mode=MODE) as a, client_type(gateway_b, mode=MODE) as b:

        async def one(client: Any) -> None:
            nonlocal lost
            t = time.perf_counter()
            try:
                result = await client.call_tool(f"{name}__{tool}", args)
            except Exception:  # noqa: BLE001 — any failure is a lost call, and counted as one
                lost += 1
                return
            latencies.append(time.perf_counter() - t)
            if result.is_error:
                lost += 1

        started = time.perf_counter()
        await asyncio.gather(*(one(c) for c in (a, b) for _ in range(100)))
        wall = time.perf_counter() - started
    print(f"200 calls at once from two clients ({name}): {lost} lost; p50 {percentile(latencies, 50) * 1000:.1f} ms, "
          f"p99 {percentile(latencies, 99) * 1000:.1f} ms; all done in {wall * 1000:.0f} ms "
          f"({200 / wall:.0f} calls/s)")


async def startup(gateway: Any, direct: dict[str, Any], spawns: int = 15) -> None:
    """Spawn to ``tools/list`` answered: the server alone, the gateway, the gateway all SDK."""
    kinds = {"time server alone": (direct["command"], direct["args"], None),
             "gateway": (gateway.command, gateway.args, gateway.env),
             "gateway, all SDK": (gateway.command, gateway.args, {**gateway.env, "ECHO_DESK_GATEWAY_SDK": "1"})}
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    order = list(kinds)
    for _ in range(spawns):
        random.Random(len(samples["gateway"])).shuffle(order)
        for kind in order:
            command, args, env = kinds[kind]
            started = time.perf_counter()
            client = await BareClient.start(command, args, env)
            listed = await client.request("tools/list", {})
            samples[kind].append(time.perf_counter() - started)
            assert listed["result"]["tools"], listed
            await client.aclose()
    alone = statistics.median(samples["time server alone"])
    print(f"start-up, spawn to tools/list answered, medians of {spawns}: " + "; ".join(
        f"{kind} {statistics.median(times) * 1000:.0f} ms ({statistics.median(times) / alone:.2f}×)"
        for kind, times in samples.items()))


#: The gateway as it was before a call waited for its own server only: every call waits for
#: every server's first start, as a list of the tools does.
WAITING_FOR_EVERY_SERVER = (
    "import runpy, sys; from echo_desk.mcp.first_starts import FirstStarts; "
    "FirstStarts.for_tool = lambda self, name: self.every(); "
    "sys.argv = ['echo_desk', *sys.argv[1:]]; runpy.run_module('echo_desk', run_name='__main__')")


async def after_hand_back(found: list[tuple[str, dict[str, Any], str, dict[str, Any]]], store: Any,
                          env: dict[str, str], rounds: int) -> None:
    """The first call after the hand-back, from the app's quit to the answer: old vs new."""
    from echo_desk.mcp.config import config_path, parse_server

    servers = {name: entry for name, entry, _, _ in found}
    if "everything" in servers:  # a server slow to start (fetched by npx or uvx, say)
        everything = servers["everything"]
        servers["slow"] = {"command": "sh", "args": ["-c", 'sleep 3; exec "$0" "$@"', everything["command"],
                                                      *everything["args"]]}
    config_path().write_text(json.dumps({"mcpServers": servers}))
    store.update(lambda s: s.mcp_approved.update({name: parse_server(name, entry).fingerprint()
                                                  for name, entry in servers.items()}))
    name, _, tool, args = found[0]
    gateway_args = ["gateway", "--client", "bench"]
    kinds = {"new": [sys.executable, "-m", "echo_desk", *gateway_args],
             "old": [sys.executable, "-c", WAITING_FOR_EVERY_SERVER, *gateway_args]}
    samples: dict[str, list[float]] = {kind: [] for kind in kinds}
    print(f"first call after the hand-back ({name}__{tool}), from the app's quit to its answer; servers: "
          f"{', '.join(servers)}; {rounds} rounds (machine load: {os.getloadavg()[0]:.1f})")
    order = list(kinds)
    for turn in range(rounds):
        random.Random(turn).shuffle(order)
        for kind in order:
            app = await asyncio.create_subprocess_exec(
                sys.executable, str(Path(__file__).with_name("gateway_app.py")), *GC_AS_PYTHON, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, env=env)
            assert app.stdout is not None and app.stdin is not None
            ready = (await asyncio.wait_for(app.stdout.readline(), 120)).decode().split()
            if ready[:1] != ["ready"]:
                raise SystemExit(f"the app side did not start: {ready}")
            client = await BareClient.start(kinds[kind][0], kinds[kind][1:], env)
            try:
                answer = await client.call_tool(f"{name}__{tool}", args)  # served by the app
                assert not answer.is_error
                await until(client.process, holding=False)  # the app alone has the pipes
                quit_at = time.perf_counter()
                app.stdin.close()  # the app quits: it hands the session back
                await until(client.process, holding=True)  # else the app may still answer it
                answer = await client.call_tool(f"{name}__{tool}", args)
                samples[kind].append(time.perf_counter() - quit_at)
                assert not answer.is_error
            finally:
                await client.aclose()
                await asyncio.wait_for(app.wait(), 60)
    for kind, times in samples.items():
        print(f"  {kind}: median {statistics.median(times):.2f} s (" + ", ".join(f"{t:.2f}" for t in times) + ")")


def holds_its_clients_pipe(process: asyncio.subprocess.Process) -> bool:
    """The gateway has its client's pipe (into it) on an fd: it has the session back, or never gave it."""
    assert process.stdin is not None
    inode = os.fstat(process.stdin.get_extra_info("pipe").fileno()).st_ino
    try:
        return any(os.readlink(f"/proc/{process.pid}/fd/{fd}") == f"pipe:[{inode}]"
                   for fd in os.listdir(f"/proc/{process.pid}/fd"))
    except OSError:
        return False


async def until(gateway: asyncio.subprocess.Process, *, holding: bool, deadline: float = 60.0) -> None:
    ends = time.monotonic() + deadline
    while True:
        if holds_its_clients_pipe(gateway) is holding:
            return
        if time.monotonic() > ends:
            raise SystemExit("the gateway never took the session, or never had it back")
        await asyncio.sleep(0.005)


HAND_BACK = "--hand-back" in sys.argv
#: ``--gc-as-python``: the app side leaves Python's collector automatic (``gateway_app.py``).
GC_AS_PYTHON = ["--gc-as-python"] if "--gc-as-python" in sys.argv else []

if __name__ == "__main__":
    numbers = [a for a in sys.argv[1:] if a.isdigit()]
    asyncio.run(main(int(numbers[0]) if numbers else (3 if HAND_BACK else 300)))
