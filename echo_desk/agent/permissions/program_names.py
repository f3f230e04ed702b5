"""Which of the engine's programs a program's word names: the one place a word is mapped to
the table, reader or wrapper that judges it.

A machine knows a program by more than one name: its version (``perl5.36.0``, ``ruby3.1``,
``python3.11-dbg``, ``bash5``), the machine's triplet (``perl5.36-x86_64-linux-gnu``), the
name Debian's alternatives give it (``nodejs``, ``lzma``, ``pager``, ``fakeroot-sysv``) or
another build of it (``gawk``, ``gsed``, ``gtar``). The engine's tables are keyed by one name;
a rule naming another (``perl5.36.0 -pi -e **``) must not turn the program into one the engine
does not know, whose every word ``**`` trusts, while ``perl -pi -e **`` has its writes judged.

A word is judged as itself when the engine knows it, else as the program an alias names, else —
when it is a versioned form of a program with a table — as that program. A versioned guess only
ever adds that program's checks: it never makes a name one the engine trusts to only read
(``program_options.READS_ONLY``), which ``checks`` leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Other names of the same program (another build, Debian's alternatives, a multi-call binary
#: that runs its first word as busybox does). Only names of programs the engine has an entry for.
ALIASES: dict[str, str] = {
    "nodejs": "node",
    "gawk": "awk", "mawk": "awk", "nawk": "awk", "original-awk": "awk", "busybox-awk": "awk",
    "gsed": "sed", "gtar": "tar", "bsdtar": "tar", "gmake": "make", "bsdmake": "make", "pmake": "make",
    "egrep": "grep", "fgrep": "grep", "rgrep": "grep", "bsdcpio": "cpio", "bsdunzip": "unzip",
    "lzma": "xz", "unlzma": "unxz", "pager": "less", "c89": "cc", "c99": "cc",
    "rbash": "bash", "fakeroot-sysv": "fakeroot", "fakeroot-tcp": "fakeroot", "toybox": "busybox",
    "md5sum.textutils": "md5sum", "fdfind": "fd",
}
#: A machine's triplet before or after the name (``x86_64-linux-gnu-``, ``-x86_64-linux-gnu``).
_TRIPLET = r"(?:x86_64|i[3-6]86|aarch64|arm\w*|riscv\d+|powerpc\w*|ppc\w*|s390x|mips\w*|loongarch64)-\w+-\w+"
_TRIPLET_BEFORE = re.compile(_TRIPLET + "-")
_TRIPLET_AFTER = re.compile("-" + _TRIPLET + "$")
#: A version after the name: ``5.36.0``, ``3.1``, ``-12``, ``_2``, with a debug build's ``-dbg``
#: or ``d`` after it (``python3.11-dbg``, ``python3.11d``).
_VERSION = re.compile(r"[-_.]?v?\d+(?:\.\d+)*(?:-?dbg|d)?$")


def table_name(word: str, known: Callable[[str], bool], checks: Callable[[str], bool]) -> str:
    """The name the engine's tables know ``word`` (a program's name, no folder) by: the program
    an alias names, ``word`` itself when ``known(word)``, the program it is a versioned form of
    when ``checks(program)`` (reading it so adds checks), else ``word`` (an unknown program)."""
    if word in ALIASES:
        return ALIASES[word]
    if known(word):
        return word
    bare = _TRIPLET_AFTER.sub("", _TRIPLET_BEFORE.sub("", word, count=1))
    while True:
        if bare in ALIASES:
            return ALIASES[bare]
        if checks(bare):
            return bare
        shorter = _VERSION.sub("", bare)
        if shorter == bare or not shorter:
            return word
        bare = shorter
