"""run_command runs the line with the shell whose grammar the rules parsed: bash, without
start-up files, inside and outside the sandbox; where bash is missing, /bin/sh and only plain
words can be allowed."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx, run_tool

from echo_desk import sandbox
from echo_desk.sandbox import shell as command_shell
from echo_desk.store.settings import SandboxMode
from tests.run_command_helpers import run_command_tool

MODES = [SandboxMode.OFF, SandboxMode.SANDBOXED]


def _skip_without_sandbox(mode: SandboxMode) -> None:
    if mode is SandboxMode.SANDBOXED and not sandbox.availability().available:
        pytest.skip(f"bwrap cannot run here: {sandbox.availability().english()}")


@pytest.mark.parametrize("mode", MODES)
async def test_the_line_runs_under_bash(mode: SandboxMode, make_ctx: MakeCtx) -> None:
    _skip_without_sandbox(mode)
    # `[[ ]]` and `$'…'` are bash: dash (Debian's /bin/sh) fails on both.
    result = await run_tool(run_command_tool(mode), {"command": "[[ 1 -eq 1 ]] && echo $'yes\\tbash'"},
                            make_ctx("run_command"))
    assert result.success, result.error
    assert "yes\tbash" in result.output
    assert result.metadata["shell"] == command_shell.command_shell().name == "bash"


@pytest.mark.parametrize("mode", MODES)
async def test_no_start_up_file_is_read(mode: SandboxMode, make_ctx: MakeCtx, workspace: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _skip_without_sandbox(mode)
    startup = workspace / "startup.sh"
    startup.write_text(f"touch {workspace}/started\n")
    for name in ("BASH_ENV", "ENV"):
        monkeypatch.setenv(name, str(startup))
    result = await run_tool(run_command_tool(mode), {"command": "echo ran; env | grep -c ENV= || true"},
                            make_ctx("run_command"))
    assert result.success, result.error
    assert not (workspace / "started").exists()
    assert "ran" in result.output and "BASH_ENV=" not in result.output


async def test_the_approval_says_which_shell_runs_the_line(make_ctx: MakeCtx) -> None:
    preview = await run_command_tool(SandboxMode.OFF).preview({"command": "ls"}, make_ctx("run_command"))
    assert "bash" in str(preview.summary)


async def test_without_bash_the_line_runs_under_sh(make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(command_shell, "find_bash", lambda: None)
    command_shell.command_shell.cache_clear()
    try:
        assert command_shell.command_shell().name == "sh"
        result = await run_tool(run_command_tool(SandboxMode.OFF), {"command": "echo $0"}, make_ctx("run_command"))
        assert result.success, result.error
        assert result.metadata["shell"] == "sh"
        preview = await run_command_tool(SandboxMode.OFF).preview({"command": "ls"}, make_ctx("run_command"))
        assert "/bin/sh" in str(preview.summary)
    finally:
        command_shell.command_shell.cache_clear()
