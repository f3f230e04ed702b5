"""Programs that read only the files their words name: given a folder, they open it and stop
("Is a directory"), reading nothing below it. ``wc -l *`` beside a read deny on
``@workspace/src/**`` matches src, yet wc, cat, head, tail, md5sum and grep without ``-r``
opened nothing below src/ (strace, coreutils 9.1, grep 3.8, bash and dash, s299); the deny check
(``shell_verdict``) judges a glob's matches as the files they are, not as folders read through.
A folder the line names outright still asks (``wc -l ~/.ssh/``: the line asks for what it holds).

A program here has no option that makes it read a folder's files; grep is one only while no
option (and no word only known when it runs) makes it recursive. Options that take the names of
the files to read from elsewhere (``wc --files0-from``, ``md5sum -c``) are ``listed_files``'.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

__all__ = ["grep_recurses", "reads_named_files_only"]

#: Each proven with ``PROGRAM *`` in a folder holding src/main.py and src/deep/x.py: the folder
#: src opened, nothing below it (coreutils 9.1; strings: binutils 2.40).
_FILE_READERS = frozenset({
    "cat", "tac", "head", "tail", "wc", "nl", "od", "strings", "sum", "cksum",
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
})
_GREPS = frozenset({"grep", "egrep", "fgrep"})


def reads_named_files_only(program: str | None, args: Sequence[str | None]) -> bool:
    """Whether ``program`` with the words ``args`` (after its name) reads only the files its
    words name, never what a folder among them holds."""
    if program in _GREPS:  # (an option not known here may be one that recurses)
        return not grep_recurses(args) and all(s.option is not None for s in read_options(args, table.GREP).seen)
    return program in _FILE_READERS


def grep_recurses(args: Sequence[str | None]) -> bool:
    """Whether grep reads the folders it is given recursively (``-r``, ``-R``, ``-d recurse``),
    or may: a word only known when it runs could be ``-r``."""
    parsed = read_options(args, table.GREP)
    if parsed.dynamic:
        return True
    names = {name for seen in parsed.seen if seen.option is not None for name in seen.option.names}
    directories = [s.value for s in parsed.seen if s.option is not None and "--directories" in s.option.names]
    return bool(names & {"-r", "--recursive", "-R", "--dereference-recursive"}) or any(
        value is None or (value != "" and "recurse".startswith(value)) for value in directories)
