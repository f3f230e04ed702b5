"""The folders a command removes or moves away whole, each file below them with it: what a
recursive delete deletes (``Reading.deletes``: ``rm -r DIR``, ``find DIR -delete``, rsync
``--delete``'s destination, cmake's ``remove_directory``; ``deletes_here``: the folder it runs
in) and what ``mv`` moves away (``file_programs.moved_away``), and what ``git rm -r`` and ``git mv``
remove or move away (``Reading.removed``: ``git_file_writes``). The write rules judge each as a
folder written anywhere below (``below_reach``): with writes allowed in the workspace and
``@workspace/**/*.env`` denied, ``rm -r out/d`` deleted out/d/x.env and ``mv out/d gone`` moved it
away, the folder word matching no rule (strace, coreutils 9.1, bash 5.2 and dash 0.5, s311).
Judged by the rules' patterns, not by what the folder holds now: the line, or one before it,
may put a file there first.

Where such a folder lands is written too: ``mv out/d prod`` (or ``mv out/d prod/``, ``mv -t prod
out/d``, ``git mv out/d prod``) put ``out/d/x.env`` at ``prod/x.env`` when prod did not exist, and
at ``prod/d/x.env`` when it did, beside ``@workspace/prod/*.env`` write-denied, no word naming
either (strace, coreutils 9.1, git 2.39, bash 5.2 and dash 0.5, s320). ``landings`` gives each
source with its destination, judged as a folder written anywhere below, which holds both
readings: whether the destination exists may change within the line. ``cmake -E rename``
(``cmake_modes``, read as mv) and ``hg copy``/``hg rename`` (``hg_moves``: a copy lands too) give
theirs through ``Reading.removed`` and ``Reading.landed`` (s326).

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
    return (*deleted, *here, *reading.removed, *file_programs.moved_away(argv))


def landings(argv: Sequence[str | None], reading: Reading) -> tuple[tuple[str | None, str | None], ...]:
    """Each path the command ``argv`` (read as ``reading``) moves whole, with the destination it
    lands at or in (``mv``, ``git mv``): a folder moved there puts every file below it below the
    destination. ``None``: a path only known when it runs."""
    return (*reading.landed, *file_programs.moved_into(argv))
