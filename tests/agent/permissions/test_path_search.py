"""A program named without a ``/`` is the first file of its name in the folders of ``PATH``
(s319): with a folder the agent may write searched before the real program (``~/.local/bin``
first on ``PATH``), the agent plants ``ls`` there and a rule ``ls **`` would run it (proven with
bash 5.2 and dash 0.5.12 under strace, also within one line). Such a line asks."""

from __future__ import annotations

import shutil

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, verdict_under, writes_allowed

RULES = rule_text("ls **", "cat **", "no-such-tool-s319 **", "env PATH=* ls **", "printf **", "chmod **")
_SYSTEM = "/usr/bin:/bin"


def _path(monkeypatch: pytest.MonkeyPatch, *first: str) -> None:
    monkeypatch.setenv("PATH", ":".join([*first, _SYSTEM]))


def _effect(setup: Setup, line: str, *writable: str) -> Effect | None:
    return effect_under(setup, RULES + writes_allowed(*writable), line)


@pytest.mark.parametrize("line", [
    "ls -la", "cat notes.txt",
    r"printf '#!/bin/sh\ntouch PWNED' > ~/.local/bin/ls && chmod +x ~/.local/bin/ls && ls",
])
def test_a_folder_the_agent_may_write_searched_first_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                           line: str) -> None:
    _path(monkeypatch, str(setup.home / ".local/bin"))
    verdict = verdict_under(setup, RULES + writes_allowed("~/.local/bin/**", "@workspace/**"), line)
    assert verdict.effect is not Effect.ALLOW
    assert any(p.opaque is Opaque.AGENT_SETTINGS for p in verdict.parts)


def test_a_workspace_folder_on_the_path_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    _path(monkeypatch, str(setup.workspace / "node_modules/.bin"))
    assert _effect(setup, "ls", "@workspace/**") is not Effect.ALLOW
    assert _effect(setup, "ls", "@workspace/src/**") is Effect.ALLOW


def test_a_writable_folder_after_the_program_stays_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """``ls`` is found in /usr/bin before ~/.local/bin: what the agent plants there never runs."""
    assert shutil.which("ls", path=_SYSTEM)
    monkeypatch.setenv("PATH", f"{_SYSTEM}:{setup.home}/.local/bin")
    assert _effect(setup, "ls -la", "~/.local/bin/**") is Effect.ALLOW


def test_a_program_not_found_is_searched_in_every_folder(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{_SYSTEM}:{setup.home}/.local/bin")
    assert _effect(setup, "no-such-tool-s319 x", "~/.local/bin/**") is not Effect.ALLOW
    assert _effect(setup, "no-such-tool-s319 x", "@workspace/**") is Effect.ALLOW


def test_a_folder_linked_into_a_writable_one_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~/bin`` a link to a folder the agent may write: the file is found where it leads."""
    (setup.workspace / "tools").mkdir()
    (setup.home / "bin").symlink_to(setup.workspace / "tools")
    _path(monkeypatch, str(setup.home / "bin"))
    assert _effect(setup, "ls", "@workspace/tools/**") is not Effect.ALLOW
    assert _effect(setup, "ls", "@workspace/src/**") is Effect.ALLOW


@pytest.mark.parametrize("entry", [".", "", "bin"])
def test_a_path_the_line_gives_with_the_working_folder_asks(setup: Setup, entry: str) -> None:
    """A relative or empty entry is the folder the command runs in (the workspace)."""
    line = f"env PATH={entry}:{_SYSTEM} ls"
    assert _effect(setup, line, "@workspace/**") is not Effect.ALLOW


def test_builtins_are_not_looked_up(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    _path(monkeypatch, str(setup.home / ".local/bin"))
    assert _effect(setup, "printf x", "~/.local/bin/**") is Effect.ALLOW


def test_everyday_path_and_workspace_writes_stay_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    _path(monkeypatch, "/usr/local/bin")
    assert _effect(setup, "ls -la", "@workspace/**") is Effect.ALLOW
    assert _effect(setup, "cat notes.txt", "@workspace/**") is Effect.ALLOW
