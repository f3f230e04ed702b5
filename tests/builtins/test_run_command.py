"""run_command: process groups die on timeout/cancel, output is bounded, secrets stay out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx, RecordingHost, run_tool

from echo_desk import sandbox
from echo_desk.builtins.shell.run_command import OutputBuffer
from echo_desk.sandbox import command_environment
from echo_desk.store.settings import SandboxMode
from echo_desk.tools import ErrorKind
from tests.run_command_helpers import run_command_tool, unsandboxed

ROOT = Path(__file__).resolve().parents[2]


# These tests watch host process ids, so they run the command outside the sandbox
# (tests/sandbox/ runs the same checks inside it).
_unsandboxed = unsandboxed


def _live_members(pgid: int) -> list[int]:
    """Processes (not zombies) whose process group is ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def _wait_gone(pgid: int, within: float) -> list[int]:
    deadline = time.monotonic() + within
    while (members := _live_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.02)  # polling a condition with a deadline
    return members


async def test_timeout_kills_the_whole_process_group(make_ctx: MakeCtx) -> None:
    started = time.monotonic()
    result = await run_tool(_unsandboxed(), {"command": "sh -c 'sleep 999 & sleep 999'", "timeout_seconds": 2},
                            make_ctx("run_command"))
    elapsed = time.monotonic() - started
    assert result.error_kind is ErrorKind.TIMEOUT and "process group was killed" in result.error
    assert elapsed < 4.0, elapsed
    assert _wait_gone(result.metadata["pid"], 1.0) == []


@dataclass
class _StopOnOutput(RecordingHost):
    """Presses Stop as soon as the command printed its first line."""

    event: threading.Event | None = None

    def tool_output(self, call_id: str, text: str) -> None:
        super().tool_output(call_id, text)
        if self.event is not None and "ready" in text:
            threading.Thread(target=self.event.set).start()


async def test_cancel_kills_grandchildren_and_reports_cancelled(make_ctx: MakeCtx) -> None:
    host = _StopOnOutput()
    ctx = make_ctx("run_command", host=host)
    host.event = ctx.cancel_event
    marker = f"/tmp/echo-desk-pid-{os.getpid()}-{time.monotonic_ns()}"
    command = f"sh -c 'sleep 999 & echo $! > {marker}; echo ready; wait'"
    started = time.monotonic()
    result = await _unsandboxed().execute({"command": command, "timeout_seconds": 60}, ctx)
    assert result.error_kind is ErrorKind.CANCELLED and "process group was killed" in result.error
    assert time.monotonic() - started < 5
    grandchild = int(Path(marker).read_text())
    os.unlink(marker)
    assert _wait_dead(grandchild, 1.0)


def _wait_dead(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)  # polling a condition with a deadline
    return not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


async def test_output_streams_live_and_keeps_head_and_tail(make_ctx: MakeCtx, host: RecordingHost) -> None:
    result = await run_tool(_unsandboxed(), {"command": "seq 1 200000; echo done >&2; exit 3"}, make_ctx("run_command"))
    assert result.success and result.metadata["exit_code"] == 3
    assert result.output.startswith("exit code 3\n1\n2\n")
    assert "bytes of output omitted" in result.output
    assert result.output.rstrip().endswith("200000\ndone")
    assert result.metadata["truncated"] and result.metadata["bytes"] > 1_000_000
    streamed = "".join(host.outputs)
    assert streamed.startswith("1\n2\n3\n") and "live output paused" in streamed


SECRET_VARIABLES = (
    "OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "MY_SECRET_THING", "aws_secret_access_key",
    # issue #20 item 13: the old deny-list missed these
    "DATABASE_URL", "GITHUB_PAT", "NPM_AUTH", "SENTRY_DSN", "PGPASSWORD", "PGPASSFILE", "GPG_PASSPHRASE",
    "SSH_AUTH_SOCK", "ECHO_DESK_PLAIN",
)


@pytest.mark.parametrize("mode", [SandboxMode.SANDBOXED, SandboxMode.OFF])
async def test_only_allowed_variables_are_inherited(mode: SandboxMode, make_ctx: MakeCtx,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if mode is SandboxMode.SANDBOXED and not sandbox.availability().available:
        pytest.skip(f"bwrap cannot run here: {sandbox.availability().english()}")
    for name in SECRET_VARIABLES:
        monkeypatch.setenv(name, f"hunter2-{name}")
    monkeypatch.setenv("LC_TIME", "C")
    result = await run_tool(run_command_tool(mode), {"command": "env"}, make_ctx("run_command"))
    assert result.success, result.error
    assert result.metadata["sandbox"]["sandboxed"] is (mode is SandboxMode.SANDBOXED)
    assert "hunter2" not in result.output
    for name in SECRET_VARIABLES:
        assert f"{name}=" not in result.output
    assert "LC_TIME=C" in result.output and "PATH=" in result.output
    assert set(command_environment({"PATH": "/bin", "KEYRING_X": "1", "LANG": "C"})) == {"PATH", "LANG"}


async def test_a_relative_entry_in_echo_desks_own_path_does_not_run_a_program_planted_in_the_workspace(
        workspace: Path, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch) -> None:
    # Echo Desk started from a shell whose PATH has "." or an empty entry (both: the folder a
    # command runs in). The agent may write the workspace, so a planted ./hello would run.
    planted = workspace / "hello"
    planted.write_text("#!/bin/sh\ntouch PWNED\n")
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", ":.:" + os.environ["PATH"])
    result = await run_tool(_unsandboxed(), {"command": "hello"}, make_ctx("run_command"))
    assert not (workspace / "PWNED").exists(), result
    assert "not found" in result.output + (result.error or "")


async def test_cwd_is_confined_and_defaults_to_the_workspace(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "sub").mkdir()
    here = await run_tool(_unsandboxed(), {"command": "pwd", "cwd": "sub"}, make_ctx("run_command"))
    assert here.output.splitlines()[1] == str(workspace / "sub")
    preview = await _unsandboxed().preview({"command": "ls -la", "cwd": "sub"}, make_ctx("run_command"))
    assert (preview.targets[0].kind, preview.targets[0].value, preview.targets[0].detail) == (
        "command", "ls -la", str(workspace / "sub"))
    outside = await run_tool(_unsandboxed(), {"command": "pwd", "cwd": ".."}, make_ctx("run_command"))
    assert outside.error_kind is ErrorKind.BUSINESS and "outside the workspace" in outside.error


def test_output_buffer_is_bounded() -> None:
    buffer = OutputBuffer()
    for _ in range(1000):
        buffer.feed(b"x" * 10_000)
    assert buffer.total == 10_000_000
    assert len(buffer.head) + len(buffer.tail) <= 64 * 1024
    assert "bytes of output omitted" in buffer.text()


_MEMORY_PROBE = r"""
import asyncio, json, sys
from pathlib import Path
from echo_desk.builtins import RunCommand
from echo_desk.tools import ToolExecutionContext

def hwm_kb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

async def main():
    ws = Path(sys.argv[1])
    ctx = ToolExecutionContext(call_id="m", tool_name="run_command", scope_id="s",
                               workspace_roots=(ws,), write_roots=(ws,))
    tool = RunCommand()
    await tool.execute({"command": "echo warm-up"}, ctx)
    try:
        with open("/proc/self/clear_refs", "w") as fh:  # reset the peak to the current size
            fh.write("5")
    except OSError:
        pass
    before = hwm_kb()
    result = await tool.execute({"command": "head -c 1073741824 /dev/zero", "timeout_seconds": 300}, ctx)
    print(json.dumps({"before_kb": before, "after_kb": hwm_kb(), "bytes": result.metadata["bytes"],
                      "ok": result.success, "omitted": "omitted" in result.output}))

asyncio.run(main())
"""


@pytest.mark.slow
def test_one_gigabyte_of_output_keeps_memory_bounded(workspace: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, str(workspace)], capture_output=True, text=True,
                          env=env, timeout=240, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    growth_mb = (figures["after_kb"] - figures["before_kb"]) / 1024
    assert figures["ok"] and figures["omitted"]
    assert figures["bytes"] == 1 << 30
    assert growth_mb <= 64, figures
    print(f"run_command 1 GiB output: peak RSS growth {growth_mb:.1f} MB")


async def test_cwd_swapped_for_a_link_after_the_check_is_not_followed(
    workspace: Path, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = workspace.parent / "outside"
    outside.mkdir()
    (workspace / "sub").mkdir()
    from echo_desk.builtins.shell import run_command as shell

    real_check = shell.fs.require_dir

    def check_then_swap(target: shell.fs.Resolved) -> None:
        real_check(target)  # the check passes; then another program swaps the folder for a link
        os.rename(workspace / "sub", workspace / "sub-moved")
        os.symlink(outside, workspace / "sub")

    monkeypatch.setattr(shell.fs, "require_dir", check_then_swap)
    result = await _unsandboxed().execute({"command": "touch escaped; pwd -P", "cwd": "sub"}, make_ctx("run_command"))
    assert not (outside / "escaped").exists()
    assert result.error_kind is ErrorKind.BUSINESS and "symbolic link" in result.error


async def test_the_command_runs_in_the_folder_shown_or_not_at_all(workspace: Path, make_ctx: MakeCtx) -> None:
    # The dialog said "in <ws>/a"; a link named as the cwd now leads to b: nothing runs in b.
    for folder in ("a", "b"):
        (workspace / folder).mkdir()
    (workspace / "here").symlink_to(workspace / "a")
    tool, ctx = _unsandboxed(), make_ctx("run_command")
    params = {"command": "touch ran-here", "cwd": "here"}
    ctx.preview = await tool.preview(params, ctx)
    assert ctx.preview.targets[0].detail == str(workspace / "a")
    (workspace / "here").unlink()
    (workspace / "here").symlink_to(workspace / "b")
    result = await tool.execute(params, ctx)
    assert not result.success and result.error_kind is ErrorKind.BUSINESS, result
    assert "changed since" in result.error
    assert not (workspace / "b" / "ran-here").exists() and not (workspace / "a" / "ran-here").exists()
