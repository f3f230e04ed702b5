"""A file's extended attributes carried over to the new file that replaces it.

The atomic save writes a new file and renames it over the old one, so everything the old
inode held beyond its content and mode would be lost: its access control list (a colleague
allowed to read it: ``system.posix_acl_access``), security labels, a download's origin, a
backup tool's tags. Only the content was shown and approved, so the rest is kept, or the save
is refused. Linux only (Python offers these calls nowhere else)."""

from __future__ import annotations

import errno
import os

from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, ToolError

#: The file system keeps no extended attributes: nothing to carry over.
_NONE_HERE = (errno.ENOTSUP, errno.EOPNOTSUPP)


def carry_over(old_fd: int, new_fd: int, target: object) -> None:
    """Give ``new_fd`` every extended attribute of ``old_fd``; ``ToolError`` when one cannot be."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(old_fd)
    except OSError as exc:
        if exc.errno in _NONE_HERE:
            return
        raise
    for name in names:
        value = os.getxattr(old_fd, name)
        try:
            if os.getxattr(new_fd, name) == value:
                continue  # the new file has it already (a label the folder gives every new file)
        except OSError:
            pass
        try:
            os.setxattr(new_fd, name, value)
        except OSError as exc:
            raise ToolError(for_person(
                f"{target} has the extended attribute {name}, which the new version could not keep "
                f"({exc.strerror}); nothing was written",
                N_("{path} has the extended attribute {name}, which the new version could not keep ({error}); "
                   "nothing was written."), path=str(target), name=name, error=str(exc.strerror)),
                kind=ErrorKind.BUSINESS) from exc
