"""A program known by another name is judged as that program (s135): its version (``perl5.36.0``,
``ruby3.1``, ``python3.11-dbg``, ``bash5``), the machine's triplet (``perl5.36-x86_64-linux-gnu``),
Debian's alternatives name (``nodejs``, ``lzma``, ``fakeroot-sysv``) or another build of it
(``bsdtar``, ``toybox``). A rule naming it trusts what a rule naming the program trusts, never
more: the engine's checks of the program's options, writes and commands apply. The hostile
corpus proves the harm (rule set other-names)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, programs

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

#: (a rule naming the program by another name, a line it must not allow, one it still allows)
CASES: list[tuple[str, str, str | None]] = [
    ("perl5.36.0 -pi -e **", "perl5.36.0 -pi -e 's/^/touch PWNED; /' ~/.bashrc", "perl5.36.0 -pi -e 's/a/b/' a.txt"),
    ("perl5.36-x86_64-linux-gnu -pi -e **", "perl5.36-x86_64-linux-gnu -pi -e 1 ~/.bashrc",
     "perl5.36-x86_64-linux-gnu -pi -e 1 a.txt"),
    ("perl5.36.0 -ne **", "perl5.36.0 -ne 'print' '>../home/.bashrc'", "perl5.36.0 -ne 'print' a.txt"),
    ("ruby3.1 -i -pe **", "ruby3.1 -i -pe 'x' ~/.bashrc", "ruby3.1 -i -pe 'x' a.txt"),
    # (node loads the packages a script requires from node_modules, which the agent may write
    # here: no line stays allowed, s287)
    ("nodejs **", "nodejs --test --test-reporter-destination=../home/.bashrc t.js", None),
    ("node18 **", "node18 --test --test-reporter-destination=../home/.bashrc t.js", None),
    ("python3.11-dbg -m pip install **", "python3.11-dbg -m pip install --target ~/lib x", None),
    ("pip-3.11 install **", "pip-3.11 install --user x", "pip-3.11 install x"),
    ("bash5 -c **", "bash5 -c 'touch PWNED'", "bash5 -c 'printf x'"),
    ("rbash -c **", "rbash -c 'touch PWNED'", "rbash -c 'printf x'"),
    ("fakeroot-sysv **", "fakeroot-sysv touch PWNED", "fakeroot-sysv printf x"),
    ("toybox **", "toybox touch PWNED", "toybox printf x"),
    # (bundle exec evaluates the Gemfile, which the agent may write here: no line stays allowed, s148)
    ("bundle3.1 exec **", "bundle3.1 exec touch PWNED", None),
    ("bsdtar -xf **", "bsdtar -xf a.tar -C ~", "bsdtar -xf a.tar -C out"),
    ("lzma **", "lzma -dk ../home/x.lzma", "lzma -dk out/x.lzma"),
    ("sed4 -i **", "sed4 -i 's/^/x/' ~/.bashrc", "sed4 -i 's/a/b/' a.txt"),
    ("c99 **", "c99 -o ~/.bashrc x.c", "c99 -o out/x x.c"),
    ("gcc12 **", "gcc12 -o ~/.bashrc x.c", "gcc12 -o out/x x.c"),
]


@pytest.fixture
def case_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*(rule for rule, _, _ in CASES), "printf **")
                           + _rules("@workspace/**", tool="write"))
    (setup.workspace / "a.txt").write_text("a\n")
    return setup


@pytest.mark.parametrize(("rule", "line"), [(rule, line) for rule, line, _ in CASES])
def test_another_name_of_a_program_has_the_programs_checks(case_rules: Setup, rule: str, line: str) -> None:
    assert _effect(case_rules, line) is not Effect.ALLOW, (rule, line)


@pytest.mark.parametrize(("rule", "line"), [(rule, line) for rule, _, line in CASES if line])
def test_a_rule_naming_the_other_name_still_allows_what_the_program_would(case_rules: Setup, rule: str,
                                                                          line: str) -> None:
    assert _effect(case_rules, line) is Effect.ALLOW, (rule, line)


def test_a_deny_naming_the_program_covers_its_other_names(setup: Setup) -> None:
    setup.write_user_rules(_rules("perl **", "node **", effect="deny") + _rules("perl5.36.0 **", "nodejs **"))
    for line in ("perl5.36.0 -e 1", "/usr/bin/perl5.36.0 x.pl", "nodejs x.js"):
        assert _effect(setup, line) is Effect.DENY, line


@pytest.mark.parametrize(("word", "name"), [
    ("perl5.36.0", "perl"), ("perl5.36-x86_64-linux-gnu", "perl"), ("/usr/bin/ruby3.1", "ruby"), ("nodejs", "node"),
    ("python3.11-dbg", "python"), ("python2", "python"), ("bash5.2", "bash"), ("mawk", "awk"), ("gawk", "awk"),
    ("nawk", "awk"), ("gsed", "sed"), ("gtar", "tar"), ("bsdtar", "tar"), ("gmake", "make"), ("egrep", "grep"),
    ("toybox", "busybox"), ("lzma", "xz"), ("pager", "less"), ("md5sum.textutils", "md5sum"),
    ("fakeroot-sysv", "fakeroot"), ("bundle3.1", "bundle"), ("c89", "cc"), ("gcc12", "gcc"), ("clang15", "clang"),
])
def test_a_word_maps_to_the_program_it_names(word: str, name: str) -> None:
    assert programs.name_of(word) == name


@pytest.mark.parametrize("word", [
    # known as they are: their own entries, or the patterns python, pip and the C compilers have
    "python3", "python3.11", "pip3.11", "gcc-12", "clang-15", "x86_64-linux-gnu-gcc-12", "diff3", "sha256sum", "bzip2",
    "7za", "dash", "sh",
    # not a versioned form of a program the engine reads (stays unknown)
    "sqlite3", "tclsh8.6", "lz4", "x86_64-linux-gnu-python3.11-config",
    # a program only known to read is not guessed from a versioned name: that would trust it more
    "ls2", "jq1.6",
])
def test_a_word_the_engine_knows_or_cannot_place_keeps_its_name(word: str) -> None:
    assert programs.name_of(word) == word
