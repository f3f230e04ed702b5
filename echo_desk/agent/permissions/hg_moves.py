"""Where ``hg copy`` and ``hg rename`` (``cp``, ``mv``, ``move``) put the files they copy or move,
for the write rules to judge (``Reading.written``, ``landed``, ``removed``), as for cp and mv
(``file_programs``). A rule naming hg (``hg **``) trusts hg, not every place it may write: with
the agent's writes kept to src/, out/ and prod/ and ``@workspace/prod/*.py`` write-denied, ``hg
mv src prod`` and ``hg cp src prod`` wrote src/main.py's copy at prod/main.py (prod not there:
it becomes the destination; there: it lands in it, prod/src/main.py), and ``hg cp src/main.py
docs/x.md`` wrote docs/x.md where no write was allowed, while nothing judged the destination
(strace, hg 6.3, bash and dash, s326).

So the destination is written, and so is each source's name in it; each source is judged as a
folder landing at the destination (``removed_folders.landings``: anything below it is written
anywhere below the destination), and a source hg renames is moved away whole
(``removed_folders``). ``--after``, ``--forget`` and ``--at-rev`` only record what happened
and ``--dry-run`` writes nothing: judged all the same (a rare spelling asked is the cost of one
reading). A source hg reads as a pattern (``glob:src/*``) is not known here, as is an option
not known here or a word only known when the line runs (``None``: the write rules ask).
Version read: hg 6.3 (``mercurial/commands.py``, ``cmdutil.copy``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from echo_desk.agent.permissions.folder_writes import Form, every
from echo_desk.agent.permissions.hg_commands import Paths, from_cwd, read, spec
from echo_desk.agent.permissions.options import flags, values

__all__ = ["Moved", "moved"]

_OPTIONS = spec(flags("--forget -A|--after -f|--force -n|--dry-run"), values("--at-rev -I|--include -X|--exclude"))
#: hg 6.3's commands that copy or move the files their words name, the last word the destination.
_FORMS = {"copy": Form(_OPTIONS, every), "rename": Form(_OPTIONS, every)}


@dataclass(frozen=True)
class Moved:
    """What one ``hg copy`` or ``hg rename`` writes (paths), moves away whole (``removed``) and
    where each source lands (``landed``: source, destination)."""

    written: Paths = ()
    removed: Paths = ()
    landed: tuple[tuple[str | None, str | None], ...] = ()


_UNKNOWN = Moved(written=(None,), removed=(None,), landed=((None, None),))


def moved(argv: Sequence[str | None]) -> Moved:
    """What the hg command ``argv`` copies or moves (see the module doc): nothing for a command
    that is neither ``copy`` nor ``rename``."""
    command = read(argv, _FORMS)
    if command is False:
        return Moved()
    if command is None:
        return _UNKNOWN
    words = [from_cwd(command.cwds, w) for _, w in command.parsed.operands]
    if len(words) < 2:
        return Moved()  # (hg stops, or --forget DEST: nothing copied)
    sources, destination = words[:-1], words[-1]
    inside = [None if s is None or destination is None else os.path.join(destination, os.path.basename(s.rstrip("/")))
              for s in sources]
    removed = tuple(sources) if command.command == "rename" else ()
    return Moved(written=(destination, *inside), removed=removed, landed=tuple((s, destination) for s in sources))
