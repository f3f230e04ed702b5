"""The folders a command removes or moves away whole, each file below them with it: what a
recursive delete deletes (``Reading.deletes``: ``rm -r DIR``, ``find DIR -delete``, rsync
``--delete``'s destination, cmake's ``remove_directory``; ``deletes_here``: the folder it runs
in) and what ``mv`` moves away (``file_programs.moved_away``). The write rules judge each as a
folder written anywhere below (``below_reach``): with writes allowed in the workspace and
``@workspace/**/*.env`` denied, ``rm -r out/d`` deleted out/d/x.env and ``mv out/d gone`` moved it
away, the folder word matching no rule (strace, coreutils 9.1, bash 5.2 and dash 0.5, s311).
Judged by the rules' patterns, not by what the folder holds now: the line, or one before it,
may put a file there first.

Not here: a line's own changes (``line_changes``) take these as paths deleted or moved, not as
folders a link may be planted below; a folder removed whole plants nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import file_programs
from echo_desk.agent.permissions.reading import Reading


def removed_folders(argv: Sequence[str | None], reading: Reading) -> tuple[str | None, ...]:
    """The folders the command ``argv`` (read as ``reading``) removes or moves away whole (a
    file among them counts as one: only the line tells which it is when it runs); ``None``: one
    only known when it runs."""
    deleted = [argv[k] for k in reading.deletes if k < len(argv)]
    here = (".",) if reading.deletes_here else ()
    return (*deleted, *here, *file_programs.moved_away(argv))
