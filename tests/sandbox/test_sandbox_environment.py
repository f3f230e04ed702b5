"""s246: the sandbox builds a command's environment with the one definition ``run_command`` and
the permission engine use (``command_environment(sandboxed=True)``), not a copy of it: a change
to that definition reaches what a sandboxed command gets, and an MCP server's own variables go
on top of it, under the sandbox's own values."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk import sandbox
from echo_desk.sandbox import environment

#: Echo Desk started from a shell that set these among others: only the allow-list goes on.
STARTED_WITH = {"PATH": "bin::/usr/bin:/bin", "HOME": "/home/someone", "LC_TIME": "C", "TMPDIR": "/var/tmp/me",
                "BASH_ENV": "/home/someone/rc", "API_TOKEN": "hunter2", "GIT_DIR": "../other/.git"}


def _prepared(tmp_path: Path, own_env: dict[str, str] | None = None) -> sandbox.Launch:
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    spec = sandbox.SandboxSpec(writable=(workspace,), cwd=workspace, home=tmp_path / "home", check_after=False,
                               guard_missing=False)
    return sandbox.prepare(spec, ["true"], "bwrap", dict(STARTED_WITH), own_env=own_env,
                           seccomp_file=tmp_path / "seccomp.bpf")


def test_a_sandboxed_command_gets_the_environment_the_engine_judges(tmp_path: Path) -> None:
    launch = _prepared(tmp_path)
    assert launch.env == {**sandbox.command_environment(STARTED_WITH, sandboxed=True),
                          "PWD": str((tmp_path / "ws").resolve())}
    assert launch.env["TMPDIR"] == "/tmp" and launch.env["PATH"] == "/usr/bin:/bin"
    assert not {"BASH_ENV", "API_TOKEN", "GIT_DIR"} & set(launch.env)


def test_the_sandbox_follows_the_one_definition(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (Until s246 the sandbox held its own copy of the allow-list's steps and of these values.)
    monkeypatch.setattr(environment, "SANDBOX_VALUES", {"TMPDIR": "/tmp", "PAGER": "cat"})
    assert _prepared(tmp_path).env["PAGER"] == "cat"


def test_a_servers_own_variables_go_on_top_under_the_sandboxs_values(tmp_path: Path) -> None:
    launch = _prepared(tmp_path, own_env={"SERVER_KEY": "k", "HOME": "/srv/agent", "TMPDIR": "/elsewhere"})
    assert launch.env["SERVER_KEY"] == "k" and launch.env["HOME"] == "/srv/agent"
    assert launch.env["TMPDIR"] == "/tmp"
    assert launch.env == {**sandbox.command_environment(STARTED_WITH, sandboxed=True,
                                                        own={"SERVER_KEY": "k", "HOME": "/srv/agent"}),
                          "PWD": str((tmp_path / "ws").resolve())}
