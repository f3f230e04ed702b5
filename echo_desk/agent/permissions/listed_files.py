"""Commands that open files the line never names: they take the names from a file or their
input (``sort --files0-from=F``, ``tar -c -T F``, ``find -files0-from F``, ``cpio -o``), from
a program text (jq's ``import``), or from a document they read: a manual page takes in another
file by name (roff's ``.so FILE``), a C or assembler source too (``#include "F"``, ``.incbin
"F"``). No read deny rule can be checked against such a name, so where there are read deny
rules the command asks (``shell_verdict``).

Each entry was proven with strace where the program is installed (GNU tar 1.34, findutils
4.9, coreutils 9.1, file 5.44, jq 1.6, man-db 2.11, groff 1.22, gcc 12); rsync and cpio are
read from their manuals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions import programs
from echo_desk.agent.permissions.build_tools import COMPILER, PREPROCESSOR
from echo_desk.agent.permissions.long_prefixes import long_prefix
from echo_desk.agent.permissions.options import OptionSet, read_options

_CHECKSUMS = frozenset({"md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
                        "cksum"})

#: Programs whose option (its long name) names a file of names to read, read with the program's
#: own option table: prefixes, clusters (``tar -cvT F``) and ``--opt=F`` as the program takes them.
#: tar reads each name in ``-T`` and archives that file (``tar -czf out/a.tgz -T out/l`` put
#: ~/.ssh/id_rsa in the archive); rsync copies each name of ``--files-from``.
_NAMES_OPTIONS: dict[str, tuple[OptionSet, str]] = {
    "tar": (table.TAR, "--files-from"),
    "rsync": (table.RSYNC, "--files-from"),
    "file": (table.FILE, "--files-from"),
}


def reads_listed_files(words: Sequence[str | None]) -> bool:
    """Whether the command ``words`` (program first) reads files whose names are not on the line."""
    program = programs.name_of(words[0]) if words and words[0] is not None else None
    values = list(words[1:])
    if program in ("sort", "wc", "du"):
        return any(v is not None and long_prefix(v, "--files0-from") for v in values)
    if program == "find":
        # find takes the folders it walks from the file (`-files0-from F`, `-` its input) and
        # lists each (findutils 4.9). A primary is a whole word: no prefix, no cluster.
        return "-files0-from" in values
    if program in _NAMES_OPTIONS:
        spec, name = _NAMES_OPTIONS[program]
        args = programs.tar_new_style(values) if program == "tar" else values
        parsed = read_options(args, spec)
        return any(s.option is not None and name in s.option.names for s in parsed.seen)
    if program == "cpio":
        return _cpio_reads_names(values)
    if program in _CHECKSUMS:
        return any(v is not None and (long_prefix(v, "--check") or (v[:1] == "-" and v[1:2] != "-" and "c" in v))
                   for v in values)
    if program == "man":
        return _man_reads_documents(values)
    if program in _ROFF or _compiles(program, values):
        return True
    if program == "jq":  # its program may name files: `import "keys" as $k {search: "~/.ssh"}` reads ~/.ssh/keys.json
        return any(v is not None and (_JQ_READS.search(v) is not None or _JQ_PROGRAM_FILE.fullmatch(v) is not None)
                   for v in values)
    return False


#: The roff formatters and filters: each document they read may take in any file (``.so F``,
#: ``nroff -man out/x.1`` printed the file a ``.so`` there names), whatever their options.
_ROFF = frozenset({"groff", "nroff", "troff", "gtroff", "gnroff", "soelim", "gsoelim", "zsoelim", "mandoc"})
#: man's options that give it documents of the line's choosing: a file (``-l``) or a folder of
#: manual pages (``-M``); an operand holding a ``/`` is a file too (man-db reads ``man ./x.1``).
_MAN_DOCUMENTS = frozenset({"--local-file", "--manpath"})
#: The assembler: ``.include "F"`` and ``.incbin "F"`` read F (``.incbin`` puts it in the object).
_ASSEMBLERS = frozenset({"as", "gas"})


def _man_reads_documents(values: Sequence[str | None]) -> bool:
    """Whether man reads a manual page the line chooses, which may take in any file by name:
    man's own pages are the system's, a page of the line's choosing may be the agent's."""
    parsed = read_options(values, table.MAN)
    if parsed.dynamic or any(s.option is None for s in parsed.seen):
        return True
    return (any(s.option is not None and not _MAN_DOCUMENTS.isdisjoint(s.option.names) for s in parsed.seen)
            or any(v is None or "/" in v or v == "-" for _, v in parsed.operands))


def _compiles(program: str | None, values: Sequence[str | None]) -> bool:
    """Whether a C compiler, cpp or the assembler may read a source (a file word, or its input
    when none is named), which may include any file. Asking only what it is (``--version``,
    ``-print-search-dirs``) reads none."""
    if program is None or not (program in _ASSEMBLERS or COMPILER.fullmatch(program)
                               or PREPROCESSOR.fullmatch(program)):
        return False
    return not values or not all(v is not None and (v in _SAYS_ONLY or v.startswith("-print-")) for v in values)


#: A compiler's options that only print what it is, and read no source.
_SAYS_ONLY = frozenset({"--version", "--help", "-v", "-dumpversion", "-dumpfullversion", "-dumpmachine", "-###"})


def _cpio_reads_names(values: Sequence[str | None]) -> bool:
    """cpio copies out (``-o``) or passes through (``-p``) the files named on its input."""
    if any(v is None for v in values):
        return True
    words = [v for v in values if v is not None]
    letters = {c for w in words if w.startswith("-") and not w.startswith("--") for c in w[1:]}
    longs = [w.partition("=")[0] for w in words if w.startswith("--")]
    return bool(letters & {"o", "p"}) or any(long_prefix(w, "--create") or long_prefix(w, "--pass-through")
                                             for w in longs)


#: A jq program's module directives and builtins that read files found through a search path
#: the program itself may give (``{search: "~/.ssh"}``; ``~`` and ``$ORIGIN`` expanded by jq).
#: The keyword alone counts, not the keyword and its path: jq takes a comment or a line break
#: between them (``import # …`` then ``"keys"`` on the next line). Not a field (``.include``) or
#: a variable (``$import``) or a file name (``include.json``), which read nothing.
_JQ_READS = re.compile(r"(?<![.$\w])(?:import|include)(?![\w.])|\b(?:modulemeta|get_search_list)\b")
#: jq's options that take the program from a file (its directives not on the line): ``-f``
#: alone or last in a cluster (``-nf``), ``--from-file``.
_JQ_PROGRAM_FILE = re.compile(r"-[a-zA-Z]*f|--from-file(?:=.*)?", re.DOTALL)
