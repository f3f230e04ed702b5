"""After ``move_path`` or ``delete_path`` renames a file or folder: what arrived is what was shown.

The last check and the rename are two steps. Another program (a build still writing, a command
the agent left running) can write into the folder, or rewrite the file, between them, and the
rename carries that along unseen: into the trash with no change record for Revert to put back,
or to a destination the person never saw it go to. The rename itself is one step, so what
arrived is read at its new place and compared with what was shown; anything else is renamed
back and the call refused, saying so.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from echo_desk.builtins.files import trees
from echo_desk.common import entries, fs
from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, ToolError


def file_as_shown(dir_fd: int, name: str, data: bytes, mode: int) -> bool:
    """The file ``name`` (under ``dir_fd``) holds ``data`` with ``mode``."""
    try:
        found, st = fs.read_regular(dir_fd, name, limit=len(data))
    except (OSError, ToolError):
        return False
    return found == data and stat.S_IMODE(st.st_mode) == mode


def tree_as_shown(arrived: Path, shown: trees.Tree) -> bool:
    """The folder at ``arrived`` holds exactly the folders and files of ``shown``."""
    try:
        found = trees.read_tree(fs.Resolved(arrived, arrived.parent), "folder")
    except (OSError, ToolError):  # a link or a special file appeared inside, or it is unreadable
        return False
    return (found.folders, found.files) == (shown.folders, shown.files)


def put_back_unless(as_shown: bool, *, source: object, arrived: object, arrived_at: tuple[int, str],
                    source_at: tuple[int, str], action: str) -> None:
    """Rename what arrived (``arrived_at``: folder fd and name) back to ``source_at`` unless it
    is ``as_shown``; then refuse the call, saying where it is."""
    if as_shown:
        return
    try:
        entries.rename_noreplace(*arrived_at, *source_at)
    except OSError as exc:
        why = fs.os_error(exc, source, "put back").message
        raise ToolError(for_person(
            f"{source} changed while it was being {action} (another program wrote it) and {why}: it "
            f"is now at {arrived}. Look at it there; nothing else was done.",
            N_("{path} changed meanwhile (another program wrote it) and could not be put back: it is now at "
               "{now_at}. Nothing else was done."),
            path=str(source), now_at=str(arrived)), kind=ErrorKind.BUSINESS) from exc
    with contextlib.suppress(OSError):
        os.fsync(source_at[0])
    raise ToolError(for_person(
        f"{source} changed while it was being {action} (another program wrote it): it was put "
        "back where it was and nothing was done. Read it again and redo the change.",
        N_("{path} changed meanwhile (another program wrote it): it was put back where it was and nothing was done."),
        path=str(source)), kind=ErrorKind.BUSINESS)

