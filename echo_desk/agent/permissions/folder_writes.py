"""How a version-control subcommand that makes a repository names the folders it creates and
fills (``git clone``, ``hg init``…), as data: the program's own parser reads its options, each
form says which options and operands are such folders, and any option not known here makes
the folder not known (``None``: the write rules ask). The programs' tables are in
``git_folder_writes`` and ``hg_folder_writes``; both give ``Reading.written_below``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from echo_desk.agent.permissions.options import OptionSet, Parsed, read_options

Words = Sequence[str | None]
#: The folders a form's operands name (``None``: a folder not known here).
Operands = Callable[[Words], list[str | None]]


@dataclass(frozen=True)
class Form:
    """One writing form: its options (any other makes the folder not known), which operands
    name the folders it writes, and the options whose value names one too."""

    options: OptionSet
    operands: Operands
    named: frozenset[str] = frozenset()


def folders(words: Words, form: Form) -> list[str | None]:
    """The folders ``form`` writes, run with ``words`` (its arguments): ``[None]`` when an
    option is not known here (it may take the next word: which one is the folder) or a word
    where an option could be is only known when the line runs."""
    parsed = known(words, form)
    return [None] if parsed is None else found(parsed, form)


def option_values(words: Words, form: Form, names: frozenset[str]) -> list[str | None]:
    """The values of the options of ``names`` in ``words`` (``[None]``: an option not known
    here, which may take the next word, or a word only known when the line runs)."""
    parsed = known(words, form)
    return [None] if parsed is None else values_of(parsed, names)


def known(words: Words, form: Form) -> Parsed | None:
    """``words`` read by ``form``'s options; ``None`` when an option is not known here (it may
    take the next word) or a word where an option could be is only known when the line runs."""
    parsed = read_options(words, form.options)
    return None if parsed.dynamic or any(s.option is None for s in parsed.seen) else parsed


def found(parsed: Parsed, form: Form) -> list[str | None]:
    """The folders ``form`` writes, its words read (``known``)."""
    return values_of(parsed, form.named) + form.operands([w for _, w in parsed.operands])


def values_of(parsed: Parsed, names: frozenset[str]) -> list[str | None]:
    """The values the options of ``names`` are given, its words read (``known``)."""
    return [s.value for s in parsed.seen if s.option is not None and names & set(s.option.names)]


def every(operands: Words) -> list[str | None]:
    """Each operand is a folder written (``git worktree repair A B``)."""
    return list(operands)


def first(operands: Words) -> list[str | None]:
    """The first operand (``git worktree add PATH COMMIT``)."""
    return list(operands[:1])


def first_or(here: str) -> Operands:
    """The first operand, else ``here`` (``git init``, ``hg init``: the folder they run in)."""
    return lambda operands: list(operands[:1]) or [here]


def second_or(default: Callable[[str | None], str | None]) -> Operands:
    """The second operand, else the folder ``default`` makes of the first (``git clone URL``
    clones into the folder named after the URL); nothing without operands (the program stops)."""
    return lambda operands: list(operands[1:2]) or [default(w) for w in operands[:1]]


def second(operands: Words) -> list[str | None]:
    """The second operand (``hg debuggetbundle REPO FILE``)."""
    return list(operands[1:2])


def none(operands: Words) -> list[str | None]:
    """No operand names a place written (``hg cat FILE…``: only its ``-o`` does)."""
    return []
