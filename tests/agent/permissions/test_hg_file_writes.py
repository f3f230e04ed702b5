"""s192: the files hg's commands write where their words say are judged by the write rules, as
the folders of clone, init, share and archive are (s174). With the agent's writes kept to
``out/``, a rule ``hg **`` let ``hg cat -o ~/.bashrc FILE``, ``hg export -o``, ``hg bundle``,
``hg debuggetbundle``, ``hg debugcreatestreamclonebundle`` and ``hg debugdownload -o``
overwrite ``~/.bashrc`` (proven with hg 6.3 under bash and dash: the s192 lines of the hostile
corpus), and ``hg serve --pid-file``/``-A``/``-E`` write there and ``--daemon-postexec
unlink:F`` delete F (proven by hand: a server does not belong in the corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_commands
from echo_desk.agent.permissions.hg_file_writes import _FORMS as FILE_FORMS
from echo_desk.agent.permissions.hg_file_writes import files_written
from echo_desk.agent.permissions.hg_folder_writes import _FORMS as FOLDER_FORMS
from echo_desk.agent.permissions.hg_moves import _FORMS as MOVE_FORMS

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .hg_rules import judged_under


@pytest.fixture
def workspace(setup: Setup) -> Path:
    return judged_under(setup)


@pytest.mark.parametrize("line", [
    "hg cat -o ~/.bashrc tool",
    "hg cat --output=../x tool",
    "hg cat -r 0 tool -o ~/.bashrc",  # (options after operands)
    "hg ca -o ~/.bashrc tool",  # (a unique prefix of the command)
    "hg cat --out ~/.bashrc tool",  # (and of a long option)
    "hg export -o ~/.bashrc tip",
    "hg export -o out/%n.patch tip",  # (a name made from the revision: not known here)
    "hg -q bundle --all ~/.bashrc",
    "hg bundle -r 0 ../b.hg ../other",
    "hg incoming --bundle ~/x ../r",
    "hg in --bundle=../x ../r",
    "hg serve -d --pid-file ~/.bashrc",
    "hg serve -A ~/log",
    "hg serve --errorlog ../log",
    "hg serve --daemon-postexec unlink:out/x",  # (what it deletes is read here as not known)
    "hg debugdownload -o ~/.bashrc file:///etc/passwd",
    "hg debuggetbundle ../r ~/.bashrc",
    "hg debugcreatestreamclonebundle ~/.bashrc",
    "hg debug-repair-issue6528 --to-report ~/r",
    "hg debugserve --logiofile ~/log",
    "hg cat --unknown x -o out/x tool",  # (an option not known here may take the next word)
])
def test_a_file_hg_writes_outside_the_write_rules_asks(setup: Setup, workspace: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "hg cat -o out/x tool", "hg cat -o - tool", "hg cat tool", "hg export tip", "hg export -o out/p tip",
    "hg bundle --all out/b.hg", "hg incoming ../r", "hg in --bundle out/b ../r", "hg serve -p 0",
    "hg debugdownload -o out/x file:///etc/passwd",
])
def test_a_file_the_write_rules_open_leaves_the_rule_in_force(setup: Setup, workspace: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "written"), [
    (("hg", "cat", "-o", "x", "f"), ("./x",)),
    (("hg", "cat", "-ox", "f"), ("./x",)),
    (("hg", "cat", "-o", "", "f"), ()),  # (no pattern: the output)
    (("hg", "--cwd", "out", "cat", "-o", "x", "f"), ("out/x",)),
    (("hg", "cat", "--cwd=out", "-o", "x", "f"), ("out/x",)),  # (--cwd among the command's options)
    (("hg", "--cwd", "a", "cat", "--cwd", "b", "-o", "x", "f"), (None,)),
    (("hg", "cat", "-o", "%s", "f"), (None,)),
    (("hg", "cat", "-o", None, "f"), (None,)),  # (a word known only when the line runs)
    (("hg", "debugdownload", "-o", "%s", "u"), ("./%s",)),  # (not a pattern there)
    (("hg", "bundle", "-t", "none-v2", "f", "../other"), ("./f",)),
    (("hg", "debuggetbundle", "r", "f"), ("./f",)),
    (("hg", "serve", "-A", "a", "-E", "e", "--pid-file", "p"), ("./a", "./e", "./p")),
    (("hg", "serve", "--daemon-postexec", "chdir:/"), (None,)),
    (("hg", "b", "--all", "f"), ("./f",)),  # (hg finds the prefix ambiguous and stops: counted all the same)
    (("hg", "status"), ()),
    (("hg", "--config", "x.y=z", "cat", "f"), ()),
])
def test_the_files_each_hg_command_writes(line: tuple[str, ...], written: tuple[str | None, ...]) -> None:
    assert files_written(line) == written


def test_every_writing_command_is_read_by_its_name_and_prefixes() -> None:
    """A word names the command it is a unique prefix of among all writing ones (``hg in`` is
    incoming, ``hg ini`` init): the three tables are in ``WRITING``."""
    assert hg_commands.WRITING == set(FILE_FORMS) | set(FOLDER_FORMS) | set(MOVE_FORMS)
    assert hg_commands.command_of("in") == "incoming"
    assert hg_commands.command_of("ini") == "init"


@pytest.mark.parametrize(("line", "written"), [
    (("hg", "serve", "--cmdserver", "unix", "-a", "s"), ("./s",)),
    (("hg", "serve", "--cmdserver=pipe", "-a", "s"), ()),
    (("hg", "serve", "--cmdserver", "chgunix", "-a", "s"), (None,)),
    (("hg", "serve", "-a", "localhost"), ()),
])
def test_the_socket_hg_serve_makes_for_its_command_server(line: tuple[str, ...], written: tuple[str | None, ...]) -> None:
    assert files_written(line) == written
