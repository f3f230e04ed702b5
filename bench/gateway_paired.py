"""The gateway's cost per call, old code beside new in one run: what a change to the call's path
gained, on a machine whose load moves while it is measured.

Two apps run side by side, each the headless app of ``gateway_app.py`` in a process of its own
with settings, data and socket of its own: one with ``echo_desk`` as of ``--old`` (a commit,
extracted with git: ``_paired.py``), one with this tree's. Each is reached through its own
``echo-desk gateway`` (the same code as its app, handing the client's pipes to it), by the
official MCP SDK client; a third client calls the server directly. Calls go round the three in a
shuffled order, N rounds. Printed per server: medians and p99 of each path, each gateway's ratio
to direct, and the CPU per call of each app's MCP thread (its run time in ns from /proc's
schedstat) and of each gateway process (clock ticks); each app serves only its own gateway's
calls, so the figure is its per call whatever the load. The
machine's load is printed before and after: on a busy machine the medians move, the CPU much less.
Servers: mcp-server-time (PyPI), server-everything's ``echo`` (npm) when installed.

Run: PYTHONPATH=. python bench/gateway_paired.py [calls] [--old COMMIT]   (default: main)
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
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
# Run as a script, this file's folder comes first on sys.path; put back last, it lends only what
# nothing installed is named: the paired-run helper and bench/gateway.py's servers and readers.
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != BENCH), str(BENCH)]

from _paired import ROOT, tree_at  # noqa: E402
from gateway import child_pid, cpu_seconds, percentile, servers  # noqa: E402

OLD = sys.argv[sys.argv.index("--old") + 1] if "--old" in sys.argv else "main"
SIDES = ("old", "new")


class Side:
    """One app and its gateway: the code they run, their folders, their processes."""

    def __init__(self, label: str, code: Path, base: Path) -> None:
        self.label = label
        self.client = f"bench-{label}"
        base.mkdir()
        self.env = {**os.environ, "ECHO_DESK_CONFIG_DIR": str(base / "config"), "ECHO_DESK_DATA_DIR": str(base / "data"),
                    "ECHO_DESK_GATEWAY_SOCKET": str(base / "gw.sock"), "ECHO_DESK_GATEWAY_START": "0",
                    # Its own ``echo_desk`` first; the tests' headless app from this tree.
                    "PYTHONPATH": os.pathsep.join(dict.fromkeys((str(code), str(ROOT))))}
        self.app: asyncio.subprocess.Process | None = None
        self.app_thread_stat = ""

    def configure(self, found: list[tuple[str, dict[str, Any], str, dict[str, Any]]]) -> None:
        """Its servers approved and their tools always allowed (nobody is asked)."""
        from echo_desk.mcp.config import config_path, parse_server
        from echo_desk.store.paths import config_dir
        from echo_desk.store.settings import SettingsStore, ToolPolicy

        os.environ.update({k: v for k, v in self.env.items() if k.startswith("ECHO_DESK_")})
        config_path().parent.mkdir(parents=True, exist_ok=True)
        config_path().write_text(json.dumps({"mcpServers": {name: entry for name, entry, _, _ in found}}))
        store = SettingsStore.in_dir(config_dir())
        store.update(lambda s: s.mcp_approved.update({name: parse_server(name, entry).fingerprint()
                                                      for name, entry, _, _ in found}))
        for name, _, tool, _ in found:
            store.set_tool(f"{name}__{tool}", policy=ToolPolicy.ALWAYS)

    async def start(self) -> None:
        self.app = await asyncio.create_subprocess_exec(sys.executable, str(BENCH / "gateway_app.py"),
                                                        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                        env=self.env)
        assert self.app.stdout is not None
        ready = (await asyncio.wait_for(self.app.stdout.readline(), 120)).decode().split()
        if ready[:1] != ["ready"]:
            raise SystemExit(f"the {self.label} app did not start: {ready}")
        self.app_thread_stat = f"/proc/{ready[1]}/task/{ready[2]}/stat"

    def gateway(self) -> Any:
        from mcp import StdioServerParameters

        return StdioServerParameters(command=sys.executable, args=["-m", "echo_desk", "gateway", "--client", self.client],
                                     env=self.env)

    async def stop(self) -> None:
        if self.app is not None and self.app.stdin is not None:
            self.app.stdin.close()
            await asyncio.wait_for(self.app.wait(), 60)


async def main(n: int) -> None:
    base = Path(tempfile.mkdtemp(prefix="echo-bench-paired-", dir="/tmp"))
    try:
        sides = {"old": Side("old", tree_at(OLD), base / "old"), "new": Side("new", ROOT, base / "new")}
        found = servers()
        if not found:
            print("no test server installed (pip install mcp-server-time)")
            return
        for side in sides.values():
            side.configure(found)
        try:
            await asyncio.gather(*(side.start() for side in sides.values()))
            print(f"{n} rounds of direct, old ({OLD}) and new (this tree) calls, in a shuffled order; "
                  f"machine load before: {os.getloadavg()[0]:.1f}")
            for server in found:
                await compare(n, sides, *server)
            print(f"machine load after: {os.getloadavg()[0]:.1f}")
        finally:
            for side in sides.values():
                await side.stop()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def run_seconds(thread_stat: str) -> float:
    """A thread's time on a CPU, to the ns (its ``schedstat``; clock ticks are 10 ms apart)."""
    return int(Path(thread_stat).with_name("schedstat").read_text().split()[0]) / 1e9


async def compare(n: int, sides: dict[str, Side], name: str, entry: dict[str, Any], tool: str,
                  args: dict[str, Any]) -> None:
    from mcp import Client, StdioServerParameters

    direct_params = StdioServerParameters(command=entry["command"], args=entry["args"])
    async with (Client(direct_params, mode="legacy") as direct, Client(sides["old"].gateway(), mode="legacy") as old,
                Client(sides["new"].gateway(), mode="legacy") as new):
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "direct": lambda: direct.call_tool(tool, args),
            "old": lambda: old.call_tool(f"{name}__{tool}", args),
            "new": lambda: new.call_tool(f"{name}__{tool}", args)}
        for _ in range(30):  # warm up
            for call in calls.values():
                await call()
        stats = {label: (sides[label].app_thread_stat, f"/proc/{child_pid(sides[label].client)}/stat") for label in SIDES}
        before = {label: [run_seconds(stats[label][0]), cpu_seconds(stats[label][1])] for label in SIDES}
        samples: dict[str, list[float]] = {path: [] for path in calls}
        order = list(calls)
        shuffle = random.Random(11).shuffle
        for _ in range(n):
            shuffle(order)
            for path in order:
                started = time.perf_counter()
                result = await calls[path]()
                samples[path].append(time.perf_counter() - started)
                assert not result.is_error, result
        cpu = {label: [(now - then) * 1000 / n for now, then in zip(
            (run_seconds(stats[label][0]), cpu_seconds(stats[label][1])), before[label], strict=True)] for label in SIDES}
    d = statistics.median(samples["direct"]) * 1000
    print(f"{name}__{tool}: direct {d:.3f} ms (p99 {percentile(samples['direct'], 99) * 1000:.3f})")
    for label in SIDES:
        g = statistics.median(samples[label]) * 1000
        print(f"  {label}: gateway {g:.3f} ms, {g / d:.2f}× direct, +{(g - d) * 1000:.0f} µs "
              f"(p99 {percentile(samples[label], 99) * 1000:.3f} ms); CPU per call: the app's MCP thread "
              f"{cpu[label][0]:.3f} ms, the gateway process {cpu[label][1]:.3f} ms")


if __name__ == "__main__":
    numbers = [a for before, a in zip(sys.argv, sys.argv[1:], strict=False) if a.isdigit() and before != "--old"]
    asyncio.run(main(int(numbers[0]) if numbers else 300))
