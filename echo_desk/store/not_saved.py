"""Why a change could not be saved, in a sentence a person can act on (the app's message and
the command line's error say the same)."""

from __future__ import annotations

import errno

from echo_desk.common.explain import refusal_cause, refused
from echo_desk.i18n import N_, _, deferred

#: Whole sentences for the causes a person can act on (the system's own words are English).
_BECAUSE = {
    errno.ENOSPC: N_("Echo Desk could not save this change, so it was not made: the disk is full."),
    errno.EDQUOT: N_("Echo Desk could not save this change, so it was not made: your disk quota is used up."),
    errno.EACCES: N_("Echo Desk could not save this change, so it was not made: the settings folder cannot be "
                     "written."),
    errno.EPERM: N_("Echo Desk could not save this change, so it was not made: the settings folder cannot be "
                    "written."),
    errno.EROFS: N_("Echo Desk could not save this change, so it was not made: the settings folder is on a "
                    "read-only disk."),
}


def not_saved_text(error: OSError) -> str:
    """The change was not made, and why; the system's own words only for a cause not listed."""
    if error.errno in _BECAUSE:
        return _(_BECAUSE[error.errno])
    return _("Echo Desk could not save this change, so it was not made: {reason}.").format(
        reason=error.strerror or error)


#: Causes that can only come from writing: the command line says "not saved" only for these.
WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS})


#: SQLite's own codes for a database that cannot take a write, and the cause a person can act on.
_SQLITE_CAUSES = {
    "SQLITE_FULL": N_("the disk is full"),
    "SQLITE_READONLY": N_("the data folder cannot be written"),
    "SQLITE_CANTOPEN": N_("the data folder cannot be written"),
}


def failure_cause(error: BaseException) -> str:
    """The cause of a failed database or file write as a code that can be stored
    (``SQLITE_FULL``, ``SQLITE_READONLY``), ``""`` for a cause not listed."""
    # Only SQLite's own errors carry its code (sqlite3 itself is not imported here: the chat's
    # first frame uses this module, and loads no database driver).
    name = getattr(error, "sqlite_errorname", "")
    if name in _SQLITE_CAUSES:
        return "SQLITE_READONLY" if name == "SQLITE_CANTOPEN" else str(name)
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "SQLITE_FULL"
    if isinstance(error, OSError) and error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return "SQLITE_READONLY"
    return ""


def cause_text(cause: str, words: str) -> str:
    """A stored ``failure_cause`` in the person's language (a ``deferred`` message); ``words``,
    the system's own, for a cause not listed."""
    return deferred(_SQLITE_CAUSES[cause]) if cause in _SQLITE_CAUSES else words


def storage_failure_text(error: BaseException) -> str:
    """Why a database or file write failed, in the person's language (a ``deferred`` message):
    SQLite's cause a person can act on; a system refusal in the words every other refusal uses
    (``common.explain``); else the error's own words."""
    if getattr(error, "sqlite_errorname", "") in _SQLITE_CAUSES:
        return cause_text(failure_cause(error), str(error))
    if isinstance(error, OSError):
        return refusal_cause(error) or refused(error)
    return str(error)
