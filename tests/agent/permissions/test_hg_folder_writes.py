"""s174: the folders hg creates and fills are judged by the write rules, as git's are
(``git_folder_writes``). With the agent's writes kept to ``out/``, a rule ``hg **`` let
``hg clone . ~/bin`` check the repository's programs out into a folder on the ``PATH``, ``hg
clone . ../x`` and ``hg init ../y`` write beside the workspace and ``hg archive ~/bin`` copy the
files there, while nothing judged those paths as writes (proven with hg 6.3 under bash and dash:
see the s174 lines of the hostile corpus). ``hg share`` (an extension) writes its DEST the same way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.hg_folder_writes import folders_written as hg_folders_written

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .hg_rules import judged_under


@pytest.fixture
def repository(setup: Setup) -> Path:
    return judged_under(setup)


@pytest.mark.parametrize("line", [
    "hg clone . ~/bin",
    "hg clone . ../x",
    "hg clone -U . ../x",
    "hg clone ../remote",  # into ./remote
    "hg clone ../r#stable",  # (a branch after #: into ./r)
    "hg --cwd out clone ../r ../../x",
    "hg clon . ../x",  # (hg takes a unique prefix of a command's name)
    "hg -q clone --noup . ../x",  # (and of a long option)
    "hg clone . ../x -r 0",  # (options after operands)
    "hg init ~/bin",
    "hg init ../y",
    "hg ini ../y",
    "hg init",  # the folder it runs in
    "hg share . ../z",
    "hg share ../z",  # into ./z
    "hg archive ~/bin",
    "hg archive -t files ../a",
    "hg clone . $dest",  # a word known only when the line runs
    "hg clone . '$HOME/bin'",  # (hg expands $VAR and ~ in the folder itself)
    "hg clone --unknown x . out/r",  # (an option not known here may take the next word)
])
def test_a_folder_hg_writes_outside_the_write_rules_asks(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "hg clone . out/r", "hg clone -U . out/r/", "hg init out/r", "hg share . out/s", "hg archive out/a",
    "hg status", "hg log -r 0", "hg in", "hg incoming ../r",
])
def test_a_folder_the_write_rules_open_leaves_the_rule_in_force(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "written"), [
    (("hg", "clone", "ssh://host/path/r/"), ("./r",)),
    (("hg", "clone", "https://example.com/"), (None,)),  # (hg stops: no folder to clone into)
    (("hg", "clone", "host:r"), (None,)),
    (("hg", "clone", "-r", "0", "../r", "x"), ("./x",)),
    (("hg", "clone", "../r", "file:x"), (None,)),
    (("hg", "--cwd", "out", "init"), ("out/.",)),
    (("hg", "--cwd=out", "-R", "r", "init", "x"), ("out/x",)),
    (("hg", "--cwd", "a", "--cwd", "b", "init", "x"), (None,)),
    (("hg", "init", "~bob/x"), (None,)),
    (("hg", "archive", "out/%h"), (None,)),  # (a name made from the revision)
    (("hg", "status"), ()),
    (("hg", "in", "../r"), ()),  # (incoming's own short name, not init)
    (("hg", "--config", "x.y=z", "log"), ()),
])
def test_the_folders_each_hg_form_writes(line: tuple[str, ...], written: tuple[str | None, ...]) -> None:
    assert hg_folders_written(line) == written


# s201: `hg purge` (`hg clean`) deletes the files hg does not track below the folders it is
# given, else below the repository's root: `hg -R ../other/hgr purge --no-confirm` deleted the
# person's notes there under `hg **` (proven with hg 6.3 under bash and dash: the s201 lines of
# the hostile corpus).
@pytest.mark.parametrize("line", [
    "hg purge",  # (the repository hg finds above the folder it runs in)
    "hg clean --no-confirm",
    "hg cle --all",
    "hg -R ../r purge --no-confirm",
    "hg purge --no-confirm ../r",
    "hg purge out src",
    "hg purge 'glob:out/*'",  # (a pattern with a kind)
    "hg purge --unknown x out",
])
def test_what_hg_purge_deletes_outside_the_write_rules_asks(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg purge out", "hg clean --no-confirm --all out/build", "hg purge -p --no-conf out"])
def test_hg_purge_of_a_folder_the_write_rules_open_leaves_the_rule_in_force(setup: Setup, repository: Path,
                                                                             line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("line", "written"), [
    (("hg", "purge"), (None,)),
    (("hg", "-R", "../r", "purge"), ("./../r",)),
    (("hg", "--cwd", "out", "purge", "--repository", "r", "--all"), ("out/r",)),
    (("hg", "purge", "a", "b"), ("./a", "./b")),
    (("hg", "purge", "path:a"), (None,)),
])
def test_the_folders_hg_purge_deletes_in(line: tuple[str, ...], written: tuple[str | None, ...]) -> None:
    assert hg_folders_written(line) == written
