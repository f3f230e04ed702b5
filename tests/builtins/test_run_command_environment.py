"""s230: the permission engine judges a command with the environment ``run_command`` really
gives it (``sandbox.command_environment``, one definition for both): a real command prints its
environment, in the sandbox and outside, and it is what the engine read."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx, run_tool

from echo_desk import sandbox
from echo_desk.agent.permissions import line_environment
from echo_desk.sandbox.environment import SANDBOX_VALUES
from echo_desk.store.settings import SandboxMode
from tests.run_command_helpers import run_command_tool

#: What the shell sets itself once started (bash: the folder it runs in, its depth, the last
#: program's path), over whatever it was given.
SET_BY_THE_SHELL = frozenset({"PWD", "SHLVL", "_"})


def _printed(output: str) -> dict[str, str]:
    """The variables ``env -0`` printed after run_command's ``exit code N`` line."""
    status, _, listing = output.partition("\n")
    assert status == "exit code 0", output
    entries = (entry.partition("=") for entry in listing.split("\0") if entry)
    return {name: value for name, _, value in entries if name not in SET_BY_THE_SHELL}


def _judged() -> dict[str, str]:
    """The environment the engine reads while judging a line that gives nothing."""
    with line_environment.inheriting():
        return {name: line_environment.get(name) for name in line_environment.names()}


@pytest.mark.parametrize("mode", [SandboxMode.SANDBOXED, SandboxMode.OFF])
async def test_the_engine_judges_the_environment_the_command_runs_with(
        mode: SandboxMode, workspace: Path, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch) -> None:
    if mode is SandboxMode.SANDBOXED and not sandbox.availability().available:
        pytest.skip(f"bwrap cannot run here: {sandbox.availability().english()}")
    # Echo Desk started from a shell that set these: none reaches the command.
    for name, value in (("GIT_DIR", "../other/.git"), ("CARGO_TARGET_DIR", "../t"), ("TOX_WORK_DIR", "../wd"),
                        ("XDG_CONFIG_HOME", str(workspace / "cfg")), ("BASH_ENV", str(workspace / "rc")),
                        ("API_TOKEN", "hunter2")):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", f"bin::/usr/bin:/bin:{workspace}/tools")  # (relative entries dropped)
    monkeypatch.setenv("LC_TIME", "C")
    result = await run_tool(run_command_tool(mode), {"command": "env -0"}, make_ctx("run_command"))
    assert result.success, result.error
    assert result.metadata["sandbox"]["sandboxed"] is (mode is SandboxMode.SANDBOXED)
    printed = _printed(result.output)
    judged = _judged()
    if mode is SandboxMode.SANDBOXED:
        # The one value the sandbox gives in place of Echo Desk's: its own private /tmp.
        judged.update(SANDBOX_VALUES)
    assert printed == judged
    assert printed == sandbox.command_environment(sandboxed=mode is SandboxMode.SANDBOXED)
    assert printed["PATH"] == f"/usr/bin:/bin:{workspace}/tools" and printed["LC_TIME"] == "C"
    assert not {"GIT_DIR", "CARGO_TARGET_DIR", "TOX_WORK_DIR", "XDG_CONFIG_HOME", "BASH_ENV", "API_TOKEN"} & set(judged)
