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

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import OptionSet, read_options

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
#: take no value (coreutils 9.1): ``wc -l -- *`` reads each match as a file, a file named
#: ``--files0-from=list`` or ``-n`` too (strace, bash and dash: ``0 --files0-from=list``, nothing
#: the list names opened, s302). Only these may stand before the ``--``: one taking a value would
#: take it (``wc --files0-from -- *``: the ``--`` is the list, and the matches options).
_ENDS_AT_DOUBLE_DASH: dict[str, frozenset[str]] = {
    "cat": frozenset("AbeEnstTuv"), "tac": frozenset("br"),
    "wc": frozenset("clmwL"), "md5sum": frozenset("btz"), "sha1sum": frozenset("btz"), "sha256sum": frozenset("btz"),
    "sha512sum": frozenset("btz"), "b2sum": frozenset("btz"), "cksum": frozenset(), "sum": frozenset("rs"),
}

#: Programs whose every option is in a table (``program_options``: which take a value, in which
#: forms, long ones by a unique prefix), so the words before ``--`` are read as the program reads
#: them: ``head -n 3 -- *``, ``grep -e TODO -- *.py``, ``grep --colo=never -- KEY *`` end their
#: options at that ``--`` (s310), while in ``head -n -- *`` the ``--`` is the count. An option the
#: table does not know asks. What the options read (``grep -f FILE``, ``--exclude-from=FILE``) and
#: whether grep recurses (``-r``, ``--deref``, ``-d rec``) the rules judge as for any line; tail's
#: follow options are not taken here: they read the names again after the line is judged.
_TABLED: dict[str, tuple[OptionSet, frozenset[str]]] = {
    "head": (table.HEAD, frozenset()),
    "tail": (table.TAIL, frozenset({"-f", "--follow", "-F", "--retry", "--pid", "-s", "--max-unchanged-stats"})),
    "grep": (table.GREP, frozenset()),
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


def _options_end_at_double_dash(argv: Sequence[str | None]) -> bool:
    """``PROGRAM OPTIONS… -- …`` where the program's table reads every word before a ``--`` as an
    option it knows (a value it takes included) and that ``--`` ends them: every word after it is
    an operand. A word only known when it runs before it, or an operand, and it is not so."""
    spec, not_here = _TABLED[argv[0] or ""]
    parsed = read_options(argv[1:], spec)
    end = parsed.ended_at
    if end is None or parsed.dynamic or any(index < end for index, _ in parsed.operands):
        return False
    return all(seen.option is not None and not not_here & set(seen.option.names) for seen in parsed.seen)


#: Programs by the name the line gives them, and whether their literal words let any option
#: appear where a glob is.
_ANY_OPTION: dict[str, Callable[[Sequence[str | None]], bool]] = {
    "ls": _ls_directories_themselves, **dict.fromkeys(_ENDS_AT_DOUBLE_DASH, _operands_after_double_dash),
    **dict.fromkeys(_TABLED, _options_end_at_double_dash)}


def takes_any_option(argv: Sequence[str | None]) -> bool:
    """Whether the command ``argv`` (``None``: a word only known when it runs) stays what its
    rules judge with any option standing where a glob may expand to one."""
    judge = _ANY_OPTION.get(argv[0] or "") if argv else None
    return judge is not None and judge(argv)
