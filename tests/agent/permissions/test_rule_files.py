"""Every rule file Echo Desk writes goes through the one atomic writer: the bytes are on disk
(fsync) before the file is replaced, a failure leaves the old file whole, and a file someone
edited after it was read is not written over."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, GrantScope, Suggestion, sandbox_toggle
from echo_desk.agent.permissions.rule_files import read_rule_text, write_rule_file

from .conftest import Setup

BEFORE = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "make **"\nreason = "builds"\n'


def _failing_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []

    def fsync(fd: int) -> None:
        calls.append(fd)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


def _leftovers(folder: Path, keep: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name != keep)


def test_always_allow_reaches_the_disk_before_it_replaces_the_file(setup: Setup,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = setup.write_user_rules(BEFORE)
    calls = _failing_fsync(monkeypatch)
    with pytest.raises(ValueError, match="unchanged"):
        setup.engine.grant(Suggestion(tool="shell", pattern="git status", label="git status"), GrantScope.ALWAYS,
                           call_id="c1")
    assert calls, "the rule file was written without fsync"
    assert path.read_text(encoding="utf-8") == BEFORE  # the old file, whole
    assert _leftovers(path.parent, path.name) == []  # no temporary file left beside it
    monkeypatch.undo()
    setup.engine.grant(Suggestion(tool="shell", pattern="git status", label="git status"), GrantScope.ALWAYS,
                       call_id="c2")
    assert path.read_text(encoding="utf-8").startswith(BEFORE) and 'pattern = "git status"' in path.read_text()
    assert setup.engine.check_command("git status").effect is Effect.ALLOW


def test_the_sandbox_box_writes_through_the_same_writer(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = setup.workspace
    local = ws / ".echo-desk" / "permissions.local.toml"
    calls = _failing_fsync(monkeypatch)
    with pytest.raises(ValueError):
        sandbox_toggle.set_on(setup.engine, ws, True)
    assert calls and not local.exists()
    assert _leftovers(local.parent, local.name) == []
    monkeypatch.undo()
    sandbox_toggle.set_on(setup.engine, ws, True)
    assert sandbox_toggle.is_on(setup.engine, ws)


def test_a_file_edited_after_it_was_read_is_not_written_over(setup: Setup) -> None:
    path = setup.write_user_rules(BEFORE)
    _text, read_sha = read_rule_text(path)
    edited = BEFORE.replace("make **", "make test")
    path.write_text(edited, encoding="utf-8")  # another program, in between
    with pytest.raises(ValueError, match="changed by another program"):
        write_rule_file(path, BEFORE + "\n# mine\n", expect_sha256=read_sha)
    assert path.read_text(encoding="utf-8") == edited
    _text, absent = read_rule_text(setup.config / "new.toml")
    path.unlink()
    assert write_rule_file(path, "# new\n", expect_sha256=absent) == b"# new\n"


def test_the_absent_marker_is_the_writers_own() -> None:
    from echo_desk.agent.permissions import rule_files
    from echo_desk.common import atomic

    assert rule_files.ABSENT == atomic.ABSENT  # spelt out so a rules check never loads the writer
