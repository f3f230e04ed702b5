"""The parent-death leash on stdio servers (``setpriv --pdeathsig KILL``)."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from echo_desk.mcp.leash import leashed, setpriv_with_pdeathsig

linux_with_setpriv = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("setpriv") is None,
    reason="needs Linux util-linux setpriv",
)


@linux_with_setpriv
def test_a_found_command_is_started_behind_setpriv_unchanged() -> None:
    command, args = leashed(sys.executable, ["-m", "server", "--flag"], dict(os.environ))
    assert os.path.basename(command) == "setpriv"
    assert args == ["--pdeathsig", "KILL", "--", sys.executable, "-m", "server", "--flag"]


@linux_with_setpriv
def test_the_command_is_looked_up_on_the_servers_own_path(tmp_path) -> None:
    tool = tmp_path / "my-server"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    assert leashed("my-server", [], {"PATH": str(tmp_path)})[0].endswith("setpriv")
    # Not found: left alone, so the spawn itself reports "command not found".
    assert leashed("my-server", ["x"], {"PATH": "/nonexistent"}) == ("my-server", ["x"])


def test_other_systems_get_the_command_as_it_is(monkeypatch) -> None:
    setpriv_with_pdeathsig.cache_clear()
    monkeypatch.setattr(sys, "platform", "darwin")
    try:
        assert leashed(sys.executable, ["a"], {}) == (sys.executable, ["a"])
    finally:
        setpriv_with_pdeathsig.cache_clear()


def test_a_setpriv_without_pdeathsig_is_not_used(monkeypatch, tmp_path) -> None:
    old = tmp_path / "setpriv"  # util-linux < 2.33: no --pdeathsig in its usage
    old.write_text("#!/bin/sh\necho 'Usage: setpriv [options] <program> [<argument>...]'\n")
    old.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    setpriv_with_pdeathsig.cache_clear()
    try:
        assert leashed(sys.executable, ["a"], dict(os.environ)) == (sys.executable, ["a"])
    finally:
        setpriv_with_pdeathsig.cache_clear()
