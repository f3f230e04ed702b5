"""A program named without a ``/`` is the first file of its name in the folders of ``PATH``
(s319): with a folder the agent may write searched before the real program (``~/.local/bin``
first on ``PATH``), the agent plants ``ls`` there and a rule ``ls **`` would run it (proven with
bash 5.2 and dash 0.5.12 under strace, also within one line). Such a line asks. Since s321 a
writable folder anywhere on PATH makes every command that is not a builtin ask: its children
look up other names there (``make`` runs ``cc``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, path_search
from echo_desk.agent.permissions.model import Opaque

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, verdict_under, writes_allowed

RULES = rule_text("ls **", "cat **", "no-such-tool-s319 **", "env PATH=* ls **", "printf **", "chmod **", "make **",
                  "./t.py **", "git **")
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


@pytest.mark.parametrize("line", ["ls -la", "make", "./t.py", "git status"])
def test_a_writable_folder_anywhere_on_the_path_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    """s321: ``ls`` is found in /usr/bin before ~/.local/bin, but a command's children look up
    other names on the same PATH, some found nowhere else: ``make`` ran a planted
    ``~/.local/bin/cc`` for a Makefile calling ``cc``, ``./t.py`` (``#!/usr/bin/env python3``) a
    planted ``python3``, and with ~/.local/bin last on PATH ``make lint`` a planted ``ruff`` its
    recipe calls, found nowhere else (bash 5.2, dash 0.5.12, make 4.3, strace)."""
    assert shutil.which("ls", path=_SYSTEM) and shutil.which("make", path=_SYSTEM)
    monkeypatch.setenv("PATH", f"{_SYSTEM}:{setup.home}/.local/bin")
    verdict = verdict_under(setup, RULES + writes_allowed("~/.local/bin/**", "@workspace/src/**"), line)
    assert verdict.effect is not Effect.ALLOW
    assert any(p.opaque is Opaque.AGENT_SETTINGS for p in verdict.parts)


def test_a_writable_folder_below_a_path_folder_stays_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes allowed below a folder of PATH, not in it: nothing the agent writes is looked up."""
    monkeypatch.setenv("PATH", f"{_SYSTEM}:{setup.home}/.local/bin")
    assert _effect(setup, "make", "~/.local/bin/sub/**", "@workspace/src/**") is Effect.ALLOW
    assert _effect(setup, "ls -la", "~/.local/bin/sub/**", "@workspace/**") is Effect.ALLOW


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


@pytest.mark.parametrize("first", [True, False])
def test_builtins_are_not_looked_up(setup: Setup, monkeypatch: pytest.MonkeyPatch, first: bool) -> None:
    monkeypatch.setenv("PATH", f"{setup.home}/.local/bin:{_SYSTEM}" if first else f"{_SYSTEM}:{setup.home}/.local/bin")
    assert _effect(setup, "printf x", "~/.local/bin/**") is Effect.ALLOW


def test_everyday_path_and_workspace_writes_stay_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    _path(monkeypatch, "/usr/local/bin")
    assert _effect(setup, "ls -la", "@workspace/**") is Effect.ALLOW
    assert _effect(setup, "cat notes.txt", "@workspace/**") is Effect.ALLOW
    assert _effect(setup, "make", "@workspace/src/**") is Effect.ALLOW
    assert _effect(setup, "git status", "@workspace/src/**") is Effect.ALLOW


@pytest.mark.parametrize("entry", [".", "", "bin"])
def test_a_working_folder_entry_after_the_program_asks(setup: Setup, entry: str) -> None:
    """s321: ``ls`` is found in /usr/bin first, but what it starts would search the folder the
    line runs in, the workspace the agent may write."""
    assert _effect(setup, f"env PATH={_SYSTEM}:{entry} ls", "@workspace/**") is not Effect.ALLOW


def test_a_path_the_line_gives_without_writable_folders_stays_allowed(setup: Setup) -> None:
    assert _effect(setup, f"env PATH={_SYSTEM} ls", "@workspace/**") is Effect.ALLOW


def test_a_program_word_too_long_for_a_file_name_is_judged_not_raised(setup: Setup,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Looking a word of thousands of characters up on PATH made the file system refuse the name
    (ENAMETOOLONG) and the whole verdict raise (the CLI printed a traceback holding the word's
    hidden characters): the word is a program found nowhere, and the line is judged."""
    _path(monkeypatch)
    line = "ls -la\n" + "\u2800" * 5000 + "touch PWNED"
    assert _effect(setup, line, "@workspace/src/**") is not Effect.ALLOW


def test_the_files_looked_up_are_each_folder_s_as_written_and_where_its_links_lead(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``candidates`` and ``path_folders`` give (s323 made them cheaper, not different): a
    dangling link, a folder and a file that may not run are searched past, each with where it
    leads; the search stops at the first file that may run; a folder linked elsewhere counts
    as written and where it leads."""
    base = tmp_path.resolve()
    a, b, c, d, e, f = (base / n for n in "abcdef")
    for folder in (a, b, c, d, e, f):
        folder.mkdir()
    (a / "tool").symlink_to(base / "nowhere")
    (b / "tool").mkdir()
    (c / "tool").write_text("x")
    (e / "real-tool").write_text("#!/bin/sh\n")
    (e / "real-tool").chmod(0o755)
    (d / "tool").symlink_to(e / "real-tool")
    linked = base / "linked"
    linked.symlink_to(c)
    monkeypatch.setenv("PATH", os.pathsep.join(map(str, (a, b, linked, d, f))))
    real_folders: dict[str, str] = {}
    assert path_search.candidates("tool", [base], None, real_folders) == [
        a / "tool", base / "nowhere", b / "tool", linked / "tool", c / "tool", d / "tool", e / "real-tool"]
    assert path_search.path_folders("tool", [base], None, real_folders) == [a, b, linked, c, d, f]
    assert path_search.candidates("printf", [base], None) == [] and path_search.path_folders("printf", [base], None) == []
    assert path_search.candidates("x/tool", [base], None) == []
