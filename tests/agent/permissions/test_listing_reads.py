"""s193: ``ls`` without ``-R`` and ``-L`` reads, of each folder it is given, the names and
details of its entries only: it opens the folder, reads its entries and ``statx``es each
(``AT_SYMLINK_NOFOLLOW``; a link's text by ``readlink``), and opens nothing below and no file.
So ``ls -la ~`` shows that ``~/.ssh`` is there, not what it holds: a read rule denying
``~/.ssh/**`` is not reached, while one naming ``~/.ssh`` itself is, and ``ls ~/.ssh``, ``ls -R ~``,
``ls -L ~`` and a link given that leads into ``~/.ssh`` still ask. The engine judged every
folder ``ls`` is given as read to the bottom, so ``ls -la ~`` asked under any deny in the home.

Proven here with strace (GNU coreutils 9.1)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules


@pytest.mark.parametrize("shell", [["bash", "--noprofile", "--norc", "-c"], ["dash", "-c"]])
def test_ls_opens_only_the_folder_it_lists(tmp_path: Path, shell: list[str]) -> None:
    if shutil.which("strace") is None or shutil.which(shell[0]) is None:
        pytest.skip(f"strace or {shell[0]} is not installed")
    home = tmp_path / "h"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("secret\n", encoding="utf-8")
    (home / "link").symlink_to(home / ".ssh")
    trace = tmp_path / "trace.txt"
    subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", str(trace), *shell, f"ls -la {home}"],
                   capture_output=True, timeout=60, check=True)
    opened = re.findall(r'open(?:at)?\([^"]*"([^"]+)"', trace.read_text(encoding="utf-8"))
    assert str(home) in opened
    assert not [p for p in opened if p.startswith(f"{home}/")], opened


@pytest.fixture
def ssh_denied(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("ls **") + _rules("~/.ssh/**", effect="deny", tool="read"))
    (setup.home / ".ssh").mkdir(exist_ok=True)
    (setup.home / ".ssh" / "id_rsa").write_text("secret\n", encoding="utf-8")
    (setup.home / "notes").mkdir()
    return setup


@pytest.mark.parametrize("line", ["ls -la ~", "ls ~", "ls -a ~/", "ls -l --color=never ~", "ls -d ~", "ls -- -R ~",
                                  "ls -la ~/notes ~"])
def test_listing_a_folder_above_a_denied_one_is_allowed(ssh_denied: Setup, line: str) -> None:
    assert _effect(ssh_denied, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["ls ~/.ssh", "ls -a ~/.ssh/", "ls -la ~ ~/.ssh", "ls -R ~", "ls -L ~", "ls -RL ~",
                                  "ls --recursive ~", "ls --dereference ~", "ls -lR ~", "ls ~/*", "ls ~/.s*",
                                  "ls ~/link", "ls -l ~/.ssh/id_rsa"])
def test_listing_what_the_deny_covers_asks(ssh_denied: Setup, line: str) -> None:
    (ssh_denied.home / "link").symlink_to(ssh_denied.home / ".ssh")
    assert _effect(ssh_denied, line) is not Effect.ALLOW


@pytest.mark.parametrize("pattern", ["~/.ssh", "~/.ssh/", "~/*.key", "~/**/*.key"])
def test_a_deny_naming_an_entry_of_the_folder_asks(setup: Setup, pattern: str) -> None:
    """(``ls -la ~`` shows ``~/.ssh``'s name and details: a rule naming ``~/.ssh`` itself, or any
    entry of ``~``, is reached.)"""
    setup.write_user_rules(_rules("ls **") + _rules(pattern, effect="deny", tool="read"))
    assert _effect(setup, "ls -la ~") is not Effect.ALLOW
