"""s235: programs whose option reader takes a shortened long option as the whole one (GNU
getopt_long: make; argparse: tox, pre-commit) are read so wherever their folder and code-file
options are (``long_prefixes``). ``tox --con ../other/proj -e t`` ran that project's commands
under a rule for tox, and ``make --dir=../other/proj`` asked for an option it did not know
rather than for the folder outside the workspace (the s235 lines of the hostile corpus; make
4.3, tox 4, bash and dash). hg refuses shortened options, scons' and meson's readers do not take
them: those stay read by their full names."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.folder_moves import moves
from echo_desk.agent.permissions.long_prefixes import named

from .conftest import Setup
from .engine_verdicts import verdict_under

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[make|tox|hg|printf] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


@pytest.mark.parametrize(("program", "word", "option"), [
    ("make", "--dir=sub", "--directory"),
    ("make", "--direc", "--directory"),
    ("make", "--directory", "--directory"),
    ("tox", "--roo", "--root"),
    ("tox", "--con=x", "--conf"),
    ("make", "--", None),  # (the end of the options, never one)
    ("make", "--debug", None),
    ("hg", "--cw", None),  # hg refuses it: `option --cwd may not be abbreviated`
    ("scons", "--dir=x", None),  # scons' reader does not take it (scons 4: no SConstruct found)
    ("hg", "--cwd=x", "--cwd"),
])
def test_a_shortened_long_option_is_read_for_the_programs_that_take_one(program: str, word: str,
                                                                        option: str | None) -> None:
    assert named(program, word, ("--directory", "--root", "--conf", "--cwd")) == option


@pytest.mark.parametrize(("line", "folders"), [
    ("make --dir=sub", ("sub",)),
    ("make --direc sub all", ("sub",)),
    ("make --dir=a -C b", ("a", "b")),
])
def test_make_s_shortened_directory_is_a_change_of_folder(line: str, folders: tuple[str, ...]) -> None:
    argv = tuple(line.split())
    assert moves(argv[0], argv).folders == folders


@pytest.mark.parametrize("line", [
    "make --dir=../other/proj",
    "make --direc ../other/proj",
    "tox --con ../other/proj -e t",
    "tox --roo ../other/proj -e t",
    "tox --ro=../other -e t",
])
def test_a_shortened_option_into_a_folder_outside_asks_saying_so(setup: Setup, line: str) -> None:
    decision = verdict_under(setup, RULES, line)
    assert decision.effect is None
    assert decision.parts[0].opaque is not None and decision.parts[0].opaque.value == "cd_outside"


def test_a_shortened_code_file_option_is_read_as_the_whole_one(setup: Setup) -> None:
    # (the agent may write out/: a tox.ini there is its own code, as `tox -c out` asks)
    assert verdict_under(setup, RULES, "tox -c out -e t").effect is not Effect.ALLOW
    assert verdict_under(setup, RULES, "tox --con out -e t").effect is not Effect.ALLOW
    assert verdict_under(setup, RULES, "tox --conf=out -e t").effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["tox -e py", "tox --colored no -e py", "make --debug", "hg status"])
def test_other_options_are_covered_as_before(setup: Setup, line: str) -> None:
    assert verdict_under(setup, RULES, line).effect is Effect.ALLOW
