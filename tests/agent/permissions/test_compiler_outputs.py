"""The files a C compiler writes without being told where (``compiler_outputs``) are judged by the
write rules, as ``-o`` is: ``gcc src/a.c`` writes ``a.out`` in the folder it runs in, ``-c``/``-S``
write ``a.o``/``a.s`` there, ``-MD``/``-MMD`` a ``.d`` beside the output, a header ``x.h.gch`` beside
itself. Each proven with strace under bash and dash (gcc 12), in a scratch folder."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.build_tools import compiler_reading, cpp_reading

from .conftest import Setup
from .engine_verdicts import effect_of as _effect

OUT_ONLY = ('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[gcc|cc|g++|clang|cpp] **"\n\n'
            '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n')


@pytest.mark.parametrize(("line", "written"), [
    ("gcc src/a.c", ("a.out",)),
    ("gcc -c src/a.c", ("a.o",)),
    ("gcc -c src/a.c src/b.c", ("a.o", "b.o")),
    ("gcc -S src/a.c", ("a.s",)),
    ("gcc -c -MD src/a.c", ("a.o", "a.d")),
    ("gcc -c -MMD src/a.c -o out/a.o", ("out/a.d",)),
    ("gcc -E -MD src/a.c -o out/a.i", ("out/a.d",)),
    ("gcc -MD src/a.c -o out/prog", ("out/prog.d",)),
    ("gcc -E -MD src/a.c", ("a.d",)),
    ("gcc -MD src/b.c", ("a.out", "b.d", "a-b.d")),
    ("gcc src/x.h", ("src/x.h.gch",)),
    ("gcc -c -MD src/x.h", ("src/x.h.gch", "x.d")),
    ("gcc -x c-header -c src/a.c -x none src/b.c", ("src/a.c.gch", "b.o")),
    ("gcc -c -x c -", ("-.o",)),
])
def test_what_each_form_writes_unasked(line: str, written: tuple[str, ...]) -> None:
    argv = tuple(line.split())
    assert sorted(compiler_reading(argv, "gcc").written) == sorted(written)


@pytest.mark.parametrize("line", [
    "gcc -E src/a.c", "gcc -M src/a.c", "gcc -MM src/a.c", "gcc -c src/a.c -o out/a.o", "gcc -o out/p src/a.c",
    "gcc -MD -MF out/dep -c src/a.c -o out/a.o", "gcc --version", "gcc -fsyntax-only src/a.c", "gcc -v",
    "gcc -c src/x.h -o out/x.gch", "gcc -c out/a.o",
])
def test_what_writes_nothing_unasked(line: str) -> None:
    assert compiler_reading(tuple(line.split()), "gcc").written == ()


@pytest.mark.parametrize(("line", "written"), [
    ("cpp -MD src/a.c", ("a.d",)), ("cpp -MD src/a.c out/a.i", ("out/a.d",)), ("cpp -MMD src/a.c -o out/b.i", ("out/b.d",)),
    ("cpp -MD -MF out/x.d src/a.c", ()), ("cpp src/a.c", ()), ("cpp -MD src/a.c -", ("-.d",)),
])
def test_what_cpp_writes_unasked(line: str, written: tuple[str, ...]) -> None:
    assert cpp_reading(tuple(line.split()), "cpp").written == written


@pytest.mark.parametrize("line", [
    "gcc src/a.c", "gcc -c src/a.c", "cc -S src/a.c", "cpp -MD src/a.c", "g++ -c -MD src/a.cc -o out/a.o -MF README.d",
    "gcc -c -MMD src/a.c", "gcc -c -MD src/a.c -o out/a.o -o x.o", "gcc src/x.h", "clang -c src/a.c",
    "gcc -c src/a.c -o README.md",
])
def test_asks_where_the_agent_may_not_write(setup: Setup, line: str) -> None:
    setup.write_user_rules(OUT_ONLY)
    assert _effect(setup, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", [
    "gcc -c src/a.c -o out/a.o", "gcc -c -MMD -MP src/a.c -o out/a.o", "cc -o out/prog src/a.c -lm",
    "gcc -E src/a.c", "gcc -MM src/a.c", "cpp -MD src/a.c out/a.i",
    "gcc -c src/x.h -o out/x.h.gch", "gcc --version",
])
def test_allows_what_it_writes_where_the_agent_may(setup: Setup, line: str) -> None:
    setup.write_user_rules(OUT_ONLY)
    assert _effect(setup, line) is Effect.ALLOW, line


def test_an_overwrite_of_a_protected_file_asks(setup: Setup) -> None:
    """Writes allowed in the whole workspace but ``a.out``: ``gcc -c`` may write its ``a.o``,
    linking without ``-o`` overwrites the protected ``a.out``."""
    setup.write_user_rules(OUT_ONLY.replace("@workspace/out/**", "@workspace/**")
                           + '\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/a.out"\n')
    assert _effect(setup, "gcc -c src/a.c") is Effect.ALLOW
    assert _effect(setup, "gcc src/a.c") is not Effect.ALLOW
    assert _effect(setup, "gcc -o out/prog src/a.c") is Effect.ALLOW
