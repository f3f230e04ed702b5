"""Issue 20 #14: nothing a command starts outlives it, and a finished command is reported done.

Before: a ``setsid`` child of ``run_command`` survived the command; a command whose background
child kept stdout open waited for the full timeout and was reported as a timeout. Each scenario
marks its processes with a unique ``sleep`` duration and counts the survivors in ``/proc``
afterwards: the target is 0.
"""

from __future__ import annotations

import random
import sys
import time

import pytest
from tool_test_helpers import MakeCtx, run_tool

from echo_desk import sandbox
from echo_desk.builtins import RunCommand
from echo_desk.sandbox.reaper import descendants
from echo_desk.store.settings import SandboxMode
from echo_desk.tools import ErrorKind
from tests.run_command_helpers import run_command_tool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper needs Linux /proc")


@pytest.fixture(params=[SandboxMode.OFF, SandboxMode.SANDBOXED], ids=["outside", "sandboxed"])
def run_command(request: pytest.FixtureRequest) -> RunCommand:
    """Outside the sandbox the reaper supervisor ends what is left; inside it the sandbox's own
    process namespace ends with the command. Both must leave nothing."""
    mode = request.param
    if mode is SandboxMode.SANDBOXED and not sandbox.availability().available:
        pytest.skip(f"bwrap cannot run here: {sandbox.availability().english()}")
    return run_command_tool(mode)


def _marker() -> str:
    return f"{random.randint(100000, 999999)}.{random.randint(100, 999)}"


def survivors(marker: str, grace_seconds: float = 1.0) -> list[int]:
    """Live processes whose command line contains ``marker``, once they had ``grace_seconds`` to
    finish dying: a process sent SIGKILL (by the reaper, or by the kernel when the sandbox's PID
    namespace ends) stays visible in ``/proc`` until the kernel has torn it down, which on a
    loaded machine was seen to outlast the command's return by a moment. A survivor is one
    still alive after that."""
    deadline = time.monotonic() + grace_seconds
    while (found := _alive(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def _alive(marker: str) -> list[int]:
    found = []
    for pid in descendants(1) | descendants(0):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read().replace(b"\0", b" ").decode()
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state not in ("Z", "X"):
            found.append(pid)
    return found


SCENARIOS = {
    "setsid child": "setsid sleep {m} > /dev/null 2>&1 & echo started",
    "setsid child ignoring SIGTERM": "setsid sh -c 'trap \"\" TERM HUP; sleep {m}' > /dev/null 2>&1 & echo started",
    "double fork into a new session": "(setsid sh -c 'sleep {m} & sleep {m}' > /dev/null 2>&1 &) ; echo started",
    "background child holding stdout": "sleep {m} & echo started",
    "nohup daemon holding stdout": "nohup setsid sleep {m} & echo started",
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_a_finished_command_leaves_no_process_and_is_done_at_once(scenario: str, make_ctx: MakeCtx,
                                                                 run_command: RunCommand) -> None:
    marker = _marker()
    started = time.monotonic()
    result = await run_tool(run_command, {"command": SCENARIOS[scenario].format(m=marker), "timeout_seconds": 30},
                            make_ctx("run_command"))
    elapsed = time.monotonic() - started
    assert result.success, result.error  # not a timeout
    assert result.metadata["exit_code"] == 0 and "started" in result.output
    assert elapsed < 10, f"a finished command took {elapsed:.1f} s (timeout 30 s)"
    if not result.metadata["sandbox"]["sandboxed"]:
        assert "were ended" in result.output  # the person and the model are told
    assert survivors(marker) == []


async def test_a_timed_out_command_leaves_no_setsid_process(make_ctx: MakeCtx, run_command: RunCommand) -> None:
    marker = _marker()
    command = f"setsid sh -c 'trap \"\" TERM; sleep {marker}' > /dev/null 2>&1 & sleep {marker}"
    result = await run_tool(run_command, {"command": command, "timeout_seconds": 1}, make_ctx("run_command"))
    assert result.error_kind is ErrorKind.TIMEOUT
    assert survivors(marker) == []


async def test_a_plain_command_pays_no_grace(make_ctx: MakeCtx, run_command: RunCommand) -> None:
    started = time.monotonic()
    result = await run_tool(run_command, {"command": "echo hi; exit 3"}, make_ctx("run_command"))
    assert result.success and result.metadata["exit_code"] == 3 and result.output.startswith("exit code 3\nhi")
    assert "were ended" not in result.output
    assert time.monotonic() - started < 5
