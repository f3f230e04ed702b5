"""Globs that may become options, and the commands that take any option where one may.

bash expands an unquoted glob before the program reads its words, and a match whose name starts
with ``-`` is read as an option: a folder named ``-RLI`` makes ``ls */`` run ``ls -RLI/ sub/``,
which lists recursively through links (a link below to ``~/.ssh`` shows the keys' names: s193,
strace, coreutils 9.1). Which names will match is only known when the line runs, so such a
command is judged as if any option of its program could stand where the glob is. Most programs
have some option that reads, writes or runs more than the line shows: their line stays opaque
(``Opaque.GLOB_OPTION``). A program is listed here only where the words before the glob settle
what any option could still do, and what is left is judged by the rules as for any word only
known when the line runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

#: GNU ls's short options that take no value (coreutils 9.1); ``-I``, ``-T`` and ``-w`` take
#: one, and would take the next word (``ls -I -d */`` ignores the pattern ``-d``). Not ``D``
#: either: the BSD ls of macOS and FreeBSD reads ``-D format`` (``-Dd`` is a time format).
_LS_FLAG_LETTERS = frozenset("aAbBcCdfFgGhHiklLmnNopqQrRsStuUvxXZ1")


def _ls_directories_themselves(argv: Sequence[str | None]) -> bool:
    """``ls -d …`` (``-ld``, ``--directory``) as the first word: GNU ls then lists each operand
    itself, never a folder's entries, whatever other options follow (``-dRL`` does not recurse:
    strace shows no folder opened). No option undoes ``-d``, and the first word cannot be the
    value of an option a match might be. What is left, the operands' own names and details (a
    link's target with ``-L``), the rules judge as for any glob (every match's target)."""
    first = argv[1] if len(argv) > 1 else None
    if first is None:
        return False
    if first == "--directory":
        return True
    letters = first[1:]
    return first[:1] == "-" and letters[:1] != "-" and "d" in letters and set(letters) <= _LS_FLAG_LETTERS


#: Programs that end their options at ``--`` (GNU getopt, as BSD's), by the short options that
#: take no value (coreutils 9.1, grep 3.8): ``wc -l -- *`` reads each match as a file, a file
#: named ``--files0-from=list`` or ``-n`` too (strace, bash and dash: ``0 --files0-from=list``,
#: nothing the list names opened, s302). Only these may stand before the ``--``: one taking a
#: value would take it (``head -n -- *``: the ``--`` is the count, and the matches options).
_ENDS_AT_DOUBLE_DASH: dict[str, frozenset[str]] = {
    "cat": frozenset("AbeEnstTuv"), "tac": frozenset("br"), "head": frozenset("qvz"), "tail": frozenset("qvz"),
    "wc": frozenset("clmwL"), "md5sum": frozenset("btz"), "sha1sum": frozenset("btz"), "sha256sum": frozenset("btz"),
    "sha512sum": frozenset("btz"), "b2sum": frozenset("btz"), "cksum": frozenset(), "sum": frozenset("rs"),
    "grep": frozenset("EFGPiywvxclLoqsbHhnTZUzaIrR"),
}


def _operands_after_double_dash(argv: Sequence[str | None]) -> bool:
    """``PROGRAM [-FLAGS…] -- …`` with every word a glob may make after the ``--``: each match is
    an operand, a file to read, never an option; the words before it are flags it takes (no
    value), which the rules see as written."""
    letters = _ENDS_AT_DOUBLE_DASH[argv[0] or ""]
    for word in argv[1:]:
        if word == "--":
            return True
        if word is None or word[:1] != "-" or word[1:2] in ("", "-") or not set(word[1:]) <= letters:
            return False
    return False


#: Programs by the name the line gives them, and whether their literal words let any option
#: appear where a glob is.
_ANY_OPTION: dict[str, Callable[[Sequence[str | None]], bool]] = {
    "ls": _ls_directories_themselves, **dict.fromkeys(_ENDS_AT_DOUBLE_DASH, _operands_after_double_dash)}


def takes_any_option(argv: Sequence[str | None]) -> bool:
    """Whether the command ``argv`` (``None``: a word only known when it runs) stays what its
    rules judge with any option standing where a glob may expand to one."""
    judge = _ANY_OPTION.get(argv[0] or "") if argv else None
    return judge is not None and judge(argv)
