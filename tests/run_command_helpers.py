"""One way for tests to get a ``run_command`` tool that runs in the sandbox or outside it, with
the rest of the sandbox settings as given (shared by tests/sandbox and tests/builtins)."""

from __future__ import annotations

from typing import Any

from echo_desk.builtins import RunCommand
from echo_desk.store.settings import SandboxMode, SandboxSettings, Settings, WorkspaceSandbox


def run_command_tool(mode: SandboxMode = SandboxMode.SANDBOXED, *, default: WorkspaceSandbox | None = None,
                     **fields: Any) -> RunCommand:
    """``run_command`` whose settings put every workspace in ``mode`` (or ``default``);
    ``fields`` are further ``SandboxSettings`` (``hidden_paths``, ``workspaces``...)."""
    settings = Settings(sandbox=SandboxSettings(default=default or WorkspaceSandbox(mode=mode), **fields))
    return RunCommand(lambda: settings)


def unsandboxed() -> RunCommand:
    """``run_command`` outside the sandbox (tests that watch host process ids)."""
    return run_command_tool(SandboxMode.OFF)
