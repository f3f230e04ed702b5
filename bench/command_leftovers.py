"""run_command's leftovers (issue 20 #14): outside the sandbox below the reaper supervisor vs the
plain process group, and in the sandbox (where the process namespace ends them, no supervisor).

Prints, for each leftover scenario, the processes still alive afterwards and the seconds the
call took, each way, and the median time of a trivial command each way (the supervisor's cost,
as a ratio to the plain run measured in the same run). Run: PYTHONPATH=. python bench/command_leftovers.py
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from echo_desk import sandbox
from echo_desk.builtins import RunCommand
from echo_desk.builtins.shell import run_command as shell_module
from echo_desk.sandbox.reaper import descendants
from echo_desk.store.settings import SandboxMode, SandboxSettings, Settings, WorkspaceSandbox
from echo_desk.tools import ToolExecutionContext

SCENARIOS = {
    "setsid child": "setsid sleep {m} > /dev/null 2>&1 & echo started",
    "setsid child ignoring SIGTERM": "setsid sh -c 'trap \"\" TERM HUP; sleep {m}' > /dev/null 2>&1 & echo started",
    "double fork into a new session": "(setsid sh -c 'sleep {m} & sleep {m}' > /dev/null 2>&1 &) ; echo started",
    "background child holding stdout": "sleep {m} & echo started",
}
TIMEOUT = 8


def survivors(marker: str) -> list[int]:
    found = []
    for pid in descendants(0) | descendants(1):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(pid)
    return found


def ctx(workspace: Path) -> ToolExecutionContext:
    return ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="run_command", scope_id="bench",
                                workspace_roots=(workspace,), write_roots=(workspace,))


def tool(mode: SandboxMode) -> RunCommand:
    settings = Settings(sandbox=SandboxSettings(default=WorkspaceSandbox(mode=mode)))
    return RunCommand(lambda: settings)


async def run(command: str, workspace: Path, runner: RunCommand) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await runner.execute({"command": command, "timeout_seconds": TIMEOUT}, ctx(workspace))
    return time.perf_counter() - started, result


async def main(workspace: Path) -> None:
    original = shell_module.CommandLeash.create
    ways = [("outside, supervisor", original, SandboxMode.OFF), ("outside, group only", lambda: None, SandboxMode.OFF)]
    if sandbox.availability().available:
        ways.append(("in the sandbox", original, SandboxMode.SANDBOXED))
    for label, create, mode in ways:
        shell_module.CommandLeash.create = create  # type: ignore[method-assign]
        runner = tool(mode)
        for name, template in SCENARIOS.items():
            marker = f"{random.randint(100000, 999999)}.{random.randint(100, 999)}"
            seconds, result = await run(template.format(m=marker), workspace, runner)
            left = survivors(marker)
            outcome = "ok" if result.success else result.error_kind.value
            print(f"{label:22} {name:34} left={len(left)} {outcome:8} {seconds:5.2f} s")
            for pid in left:  # clean up what the old way leaves behind
                os.kill(pid, 9)
        times = [(await run("true", workspace, runner))[0] for _ in range(30)]
        print(f"{label:22} median 'true': {statistics.median(times) * 1000:.1f} ms")
        if label == "outside, supervisor":
            with_supervisor = statistics.median(times)
        elif label == "outside, group only":
            print(f"supervisor cost: {with_supervisor / statistics.median(times):.2f}x a plain run of 'true'")
    shell_module.CommandLeash.create = original  # type: ignore[method-assign]


if __name__ == "__main__":
    if not sys.platform.startswith("linux"):
        sys.exit("Linux only (/proc)")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp).resolve()))
