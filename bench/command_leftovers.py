"""run_command below the reaper supervisor vs the plain process group (issue 20 #14).

Prints, for each leftover scenario, the processes still alive afterwards and the seconds the
call took, with the supervisor (as shipped) and without it (the process-group kill alone, as
before), and the median time of a trivial command both ways (the supervisor's cost, as a
ratio to the plain run measured in the same run). Run: PYTHONPATH=. python bench/command_leftovers.py
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

from echo_desk.agent.reaper import descendants
from echo_desk.agent.tools import RunCommand
from echo_desk.agent.tools import shell as shell_module
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


async def run(command: str, workspace: Path) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await RunCommand().execute({"command": command, "timeout_seconds": TIMEOUT}, ctx(workspace))
    return time.perf_counter() - started, result


async def main(workspace: Path) -> None:
    original = shell_module.CommandLeash.create
    for label, create in (("with the supervisor", original), ("process group only", lambda: None)):
        shell_module.CommandLeash.create = create  # type: ignore[method-assign]
        for name, template in SCENARIOS.items():
            marker = f"{random.randint(100000, 999999)}.{random.randint(100, 999)}"
            seconds, result = await run(template.format(m=marker), workspace)
            left = survivors(marker)
            outcome = "ok" if result.success else result.error_kind.value
            print(f"{label:22} {name:34} left={len(left)} {outcome:8} {seconds:5.2f} s")
            for pid in left:  # clean up what the old way leaves behind
                os.kill(pid, 9)
        times = [(await run("true", workspace))[0] for _ in range(30)]
        print(f"{label:22} median 'true': {statistics.median(times) * 1000:.1f} ms")
        if create is original:
            with_supervisor = statistics.median(times)
        else:
            print(f"supervisor cost: {with_supervisor / statistics.median(times):.2f}x a plain run of 'true'")
    shell_module.CommandLeash.create = original  # type: ignore[method-assign]


if __name__ == "__main__":
    if not sys.platform.startswith("linux"):
        sys.exit("Linux only (/proc)")
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp).resolve()))
