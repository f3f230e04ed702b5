"""s200: a glob that may expand to an option is judged with its command, as if any option of the
program could stand where the glob is, not by refusing the whole line.

A folder named ``-RLI`` makes ``ls */`` run ``ls -RLI/ sub/``: recursive, through links, so a
link ``sub/k`` to ``~/.ssh`` shows the keys (s193). With ``-d`` as its first word GNU ls lists
each operand itself and opens no folder, whatever options follow (``-dRL``): ``ls -d */`` is
allowed where no match leads into a denied place. A ``-d`` that a match can take as an option's
value (``ls -I -d */``: ``-I`` ignores the pattern ``-d``), or that is not an option at all
(``-Id``), leaves the listing recursive: those still ask, as does every other program.

Proven here with strace (GNU coreutils 9.1, bash and dash)."""

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

SHELLS = [["bash", "--noprofile", "--norc", "-c"], ["dash", "-c"]]


def _planted(folder: Path, home: Path) -> None:
    """A folder whose name is options and, one level down, a link to the keys' folder."""
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text("secret\n", encoding="utf-8")
    (folder / "-RLI").mkdir(parents=True)
    (folder / "sub").mkdir()
    (folder / "sub" / "k").symlink_to(home / ".ssh")


def _opened_below(shell: list[str], line: str, cwd: Path, home: Path, trace: Path) -> list[str]:
    subprocess.run(["strace", "-f", "-e", "trace=openat,open", "-o", str(trace), *shell, line], cwd=cwd,
                   capture_output=True, timeout=60, check=False, env={"PATH": "/usr/bin:/bin", "HOME": str(home),
                                                                      "LC_ALL": "C"})
    opened = re.findall(r'open(?:at)?\([^"]*"([^"]+)"', trace.read_text(encoding="utf-8"))
    return [p for p in opened if p.startswith("sub/") or p.startswith(str(home / ".ssh"))]


@pytest.mark.parametrize("shell", SHELLS)
def test_ls_d_opens_no_folder_whatever_a_glob_adds(tmp_path: Path, shell: list[str]) -> None:
    if shutil.which("strace") is None or shutil.which(shell[0]) is None:
        pytest.skip(f"strace or {shell[0]} is not installed")
    ws, home = tmp_path / "ws", tmp_path / "home"
    _planted(ws, home)
    assert _opened_below(shell, "ls */", ws, home, tmp_path / "t1")  # the harm the glob makes
    assert _opened_below(shell, "ls -I -d */", ws, home, tmp_path / "t2")
    assert not _opened_below(shell, "ls -d */", ws, home, tmp_path / "t3")
    assert not _opened_below(shell, "ls -dRL */", ws, home, tmp_path / "t4")


@pytest.fixture
def ssh_denied(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("ls **", "rg **", "sort **") + _rules("~/.ssh/**", effect="deny", tool="read"))
    (setup.workspace / "-RLI").mkdir()
    return setup


@pytest.mark.parametrize("line", ["ls -d */", "ls -ld */", "ls -d -- */", "ls --directory */", "ls -d *",
                                  "ls -1d -* src/*"])
def test_ls_d_with_a_glob_that_may_be_an_option_is_allowed(ssh_denied: Setup, line: str) -> None:
    assert _effect(ssh_denied, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["ls */", "ls -l */", "ls -Id */", "ls -I -d */", "ls --hide -d */", "ls * -d",
                                  "ls -w -d */", "ls -Dd */", "ls --dir */", "rg -d */", "sort -d *", "/bin/ls -d */"])
def test_a_glob_that_may_be_an_option_elsewhere_asks(ssh_denied: Setup, line: str) -> None:
    assert _effect(ssh_denied, line) is not Effect.ALLOW


def test_ls_d_asks_where_a_match_leads_into_a_denied_folder(ssh_denied: Setup) -> None:
    """With ``-L`` among the options a match may be, ls shows the details of a link's target."""
    (ssh_denied.home / ".ssh" / "d").mkdir(parents=True)
    (ssh_denied.workspace / "k").symlink_to(ssh_denied.home / ".ssh" / "d")
    assert _effect(ssh_denied, "ls -d */") is not Effect.ALLOW
