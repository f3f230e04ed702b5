"""Why a check owed after a restart (``sandbox.owed``) could not be made: a kind, kept in its row
and its audit record; the words the person reads are chosen for each kind at the edge
(``ui.core.checked_after_restart_text``), in their language. No imports: the Activity page reads it."""

from __future__ import annotations

import enum


class OwedFailure(enum.StrEnum):
    """Why an owed check could not be made, as kept in its row and its audit record (the words
    the person reads are chosen for each at the edge: ``ui.core.checked_after_restart_text``)."""

    #: The snapshot named something a snapshot is not made of: it was not read (a changed file).
    REFUSED = "snapshot_refused"
    #: The snapshot was kept by another version of Echo Desk, whose snapshots this one does not read.
    OTHER_VERSION = "other_version"
    #: The kept row does not read back (damaged, cut short, or empty).
    UNREADABLE = "unreadable_row"
    #: The snapshot was read, but comparing the folder with it failed (a folder that cannot be read...).
    CHECK_FAILED = "check_failed"
