"""Programs whose option reader takes a shortened long option as the whole one: GNU
``getopt_long`` (make: ``make --dir=../p`` is ``--directory=../p``) and Python's argparse (tox:
``tox --roo ../p`` is ``--root ../p``; pre-commit). Proven for real (make 4.3, tox 4, under
bash and dash, s235); hg refuses them (``--cwd may not be abbreviated``), and scons' and
meson's readers do not take them (scons 4, meson 1.x: the line fails), so those are read by
their full names only.

A word here is read as an option it may shorten, however short: a shortening that names two
options stops the program before it runs, so reading it as either asks at worst.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["SHORTENS", "long_prefix", "named"]

#: Programs that take any unique beginning of a long option (``--x`` on) as that option.
SHORTENS = frozenset({"make", "tox", "pre-commit"})


def named(program: str | None, word: str, longs: Iterable[str]) -> str | None:
    """The long option of ``longs`` that ``word`` (its name before any ``=``) spells, in full or,
    for the programs of ``SHORTENS``, shortened; ``None``: none of them."""
    name = word.partition("=")[0]
    shortens = program in SHORTENS
    for long in longs:
        if name == long or (shortens and long_prefix(word, long)):
            return long
    return None


def long_prefix(word: str, option: str) -> bool:
    """Whether ``word`` (its name before any ``=``) is the long ``option`` or a beginning of it,
    as a GNU or argparse reader takes it."""
    name = word.partition("=")[0]
    return len(name) > 2 and name.startswith("--") and option.startswith(name)
