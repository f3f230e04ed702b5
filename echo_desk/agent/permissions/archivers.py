"""Where the archivers write, for the write rules to judge (``Reading.written``; a folder they
write anywhere below: ``Reading.written_below``): the archive ``zip``/``ar``/``cpio -o`` create or
change (``zip ~/.bashrc a.txt`` writes ~/.bashrc), the files ``zip -m`` moves in (it deletes
them), and the members ``ar x``/``cpio -i``/``7z x`` extract, named by the archive. A rule naming
the program trusts the program, not every place it may write. (tar is read in ``programs``,
unzip in ``file_programs``.)

``None`` stands for a path only known when the line runs or not known to the engine (an option
not read here, a member's own absolute or ``..`` name): the write rules cannot allow it, so it
asks. Versions read: zip 3.0, GNU ar 2.40, GNU cpio 2.13 and 7-Zip 16-23 (their documentation:
cpio and 7z are not installed where this was written).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

Paths = tuple[str | None, ...]
_UNKNOWN: tuple[Paths, Paths] = ((None,), ())

PROGRAMS = frozenset({"zip", "ar", "cpio", "7z", "7za", "7zr"})


def written(argv: Sequence[str | None]) -> tuple[Paths, Paths] | None:
    """What ``argv`` (one of ``PROGRAMS``) writes: paths, and folders it writes anywhere below.
    ``None``: not one of these programs."""
    if not argv or argv[0] is None:
        return None
    program = os.path.basename(argv[0])
    if program not in PROGRAMS:
        return None
    args = list(argv[1:])
    if any(a is None for a in args):
        return _UNKNOWN
    words = [a for a in args if a is not None]
    if program == "zip":
        return _zip(words)
    if program == "ar":
        return _ar(words)
    if program == "cpio":
        return _cpio(words)
    return _seven_zip(words)


#: zip's one-letter options that choose only what goes in the archive (``-d``: what leaves it)
#: or how it is printed (``-m`` moves: read apart; ``-b``, ``-n``, ``-t``, ``-P``, ``-Z``, ``-s``, ``-O``… take a value).
_ZIP_LETTERS = frozenset("rRqvyjDXTo0123456789gulfkcSJFAzhLed")
#: zip's options whose next word is a value (``-TT`` is read in ``programs._zip``: it runs).
_ZIP_VALUES = frozenset({"-n", "-t", "-tt", "-P", "-Z", "-s", "-TT"})


def _zip(words: list[str]) -> tuple[Paths, Paths]:
    """zip writes its archive, the first word that is no option (zip adds ``.zip`` where the
    name has no suffix), ``-O FILE`` instead when given, a temporary file in the archive's
    folder (``-b DIR``: in DIR), and with ``-m`` deletes every file it takes in (below every
    folder, with ``-r``). ``-x``/``-i`` take the words up to the next option as patterns; an
    option not read here (long ones, ``-@`` names from the input) is unknown."""
    operands: list[str] = []
    written: list[str | None] = []
    below: list[str | None] = []
    moves = recursive = False
    i, n = 0, len(words)
    while i < n:
        word = words[i]
        i += 1
        if word in ("-x", "-i"):
            while i < n and not words[i].startswith("-"):
                i += 1
            continue
        if word in _ZIP_VALUES:
            i += 1
            continue
        if word in ("-O", "-b", "-lf"):
            value = words[i] if i < n else None
            i += 1
            (below if word == "-b" else written).append(value)
            continue
        if word.startswith("-") and word != "-":
            letters = set(word[1:])
            if not letters <= _ZIP_LETTERS | {"m"}:
                return _UNKNOWN
            moves = moves or "m" in letters
            recursive = recursive or bool(letters & {"r", "R"})
            continue
        operands.append(word)
    if not operands:
        return _UNKNOWN
    archive, sources = operands[0], operands[1:]
    if archive != "-":
        written += [archive, archive + ".zip"]
    if moves:
        if any(set(s) & set("*?[") for s in sources) or not sources:
            return _UNKNOWN  # zip matches these names itself: which files it deletes is not known here
        written += sources
        if recursive:
            below += sources
    return tuple(written), tuple(below)


#: ar's operations that write the archive, and the letters that may follow one.
_AR_WRITES = frozenset("dmqrs")
_AR_MODIFIERS = frozenset("abicDfoNOPsSTuUvV")


def _ar(words: list[str]) -> tuple[Paths, Paths]:
    """``ar [-]OP[MODS] [relpos] [count] ARCHIVE [member…]``: ``d``, ``m``, ``q``, ``r``, ``s``
    write the archive; ``x`` writes each member it extracts, by the member's name, in the folder
    it runs in (``--output DIR``: in DIR; ``P``: by its full path, where ``..`` climbs);
    ``t`` and ``p`` only print. ``@file`` reads more words; other long options are unknown."""
    below: list[str | None] = []
    rest: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--output":
            below.append(words[i] if i < len(words) else None)
            i += 1
        elif word.startswith("--output="):
            below.append(word.partition("=")[2])
        elif word in ("--help", "--version", "-h", "-V"):
            return (), ()
        elif word.startswith("--") or word.startswith("@"):
            return _UNKNOWN
        else:
            rest.append(word)
    if not rest:
        return _UNKNOWN
    key = rest[0].removeprefix("-")
    # `s` is an operation alone (`ar s lib.a`: write its index) and a modifier after another.
    operations = [c for c in key if c not in _AR_MODIFIERS] or (["s"] if "s" in key else [])
    if len(operations) != 1 or operations[0] not in _AR_WRITES | set("xtp") or not set(key) <= (
            _AR_MODIFIERS | _AR_WRITES | set("xtp")):
        return _UNKNOWN
    operation = operations[0]
    # a, b, i name a member to place by; N takes a count: the archive comes after them.
    skip = sum(1 for c in key if c in "abi") + (1 if "N" in key else 0)
    if len(rest) < 2 + skip:
        return _UNKNOWN
    archive = rest[1 + skip]
    if operation in _AR_WRITES:
        return (archive,), ()
    if operation == "x":
        if "P" in key:
            return _UNKNOWN
        return (), tuple(below or ["."])
    return (), ()


def _cpio(words: list[str]) -> tuple[Paths, Paths]:
    """cpio (not installed here: read from its manual). ``-t`` only lists; ``-o`` writes its
    output, or the archive ``-O``/``-F`` names; ``-i`` extracts each member by the name the
    archive gives it: absolute names and ``..`` are kept unless ``--no-absolute-filenames``
    (then below ``-D DIR``, the folder it runs in without); ``-p DIR`` copies below DIR. Any
    option not read here (``--rsh-command``, a remote ``host:file``) is unknown."""
    letters = {c for w in words if w.startswith("-") and not w.startswith("--") for c in w[1:]}
    longs = {w.partition("=")[0] for w in words if w.startswith("--")}
    if longs - {"--no-absolute-filenames", "--list", "--extract", "--create", "--make-directories", "--verbose",
                "--quiet", "--unconditional", "--preserve-modification-time"}:
        return _UNKNOWN
    if not letters <= set("tiopdvumVBcF") or any(":" in w.split("/", 1)[0] for w in words if not w.startswith("-")):
        return _UNKNOWN
    operands = [w for w in words if not w.startswith("-")]
    if "t" in letters or "--list" in longs:
        return (), ()
    if "F" in letters:
        return (*operands,), ()  # -F's value is the archive (an operand here: each one counts)
    if "o" in letters or "--create" in longs:
        return (), ()
    if "p" in letters:
        return (), (operands[-1] if operands else None,)
    if ("i" in letters or "--extract" in longs) and "--no-absolute-filenames" in longs and not operands:
        return (), (".",)
    return _UNKNOWN


def _seven_zip(words: list[str]) -> tuple[Paths, Paths]:
    """7-Zip (not installed here): ``l``, ``t``, ``h``, ``i`` only list, test or hash; any other
    command writes an archive or extracts members, where ``-o``/``-w`` and the members' names say:
    unknown."""
    command = next((w for w in words if not w.startswith("-")), None)
    if command in ("l", "t", "h", "i"):
        return (), ()
    return _UNKNOWN
