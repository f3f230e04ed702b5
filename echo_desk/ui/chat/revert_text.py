"""The words for the engine's typed undo outcomes, translated here at the edge (never engine prose)."""

from __future__ import annotations

from echo_desk.agent.undo.revert import LeftAlone, RevertIssue
from echo_desk.i18n import N_, _, aside
from echo_desk.store.changes import ChangeRecord, NotRestorable

_NOT_RESTORABLE = {
    NotRestorable.TOO_LARGE: N_("larger than the undo size limit for one file in Settings"),
    NotRestorable.NOT_REGULAR: N_("it was not a regular file"),
    NotRestorable.NOT_PREVIEWED: N_("its previous content was not shown before the change"),
    NotRestorable.CHANGED_BEFORE_WRITE: N_("it changed between the preview and the write"),
    # Shown after "not restorable: " (issue_text, the revert dialog): the reason alone, not a second prefix.
    NotRestorable.TOO_OLD: N_("its kept copy passed the age limit in Settings and was removed"),
    NotRestorable.OVER_SPACE_LIMIT: N_("its kept copy was removed to stay under the undo space limit in Settings"),
    NotRestorable.CONTENT_MISSING: N_("its kept copy is gone or damaged"),
    NotRestorable.UNKNOWN: N_("its previous content was not kept"),
}


def not_restorable_text(why: NotRestorable | None) -> str:
    """Why a change cannot be undone, in the person's language."""
    return _(_NOT_RESTORABLE[why or NotRestorable.UNKNOWN])


def record_not_restorable_text(record: ChangeRecord) -> str:
    return not_restorable_text(record.why_not_restorable)


_LEFT_ALONE = {
    LeftAlone.WAITING_FOR_CHOICE: N_("it changed since the agent wrote it; waiting for your choice"),
    LeftAlone.KEPT_AS_IT_IS_NOW: N_("kept as it is now, as you chose"),
    LeftAlone.RESTORED_WHAT_THE_TOOL_WROTE: N_("holds what the agent wrote, as you chose"),
    LeftAlone.FOLDER_NOT_EMPTY: N_("the folder holds other files now; it was kept"),
    LeftAlone.NOT_A_FOLDER_NOW: N_("it is not a folder now; nothing was changed"),
    LeftAlone.NOT_A_REGULAR_FILE_NOW: N_("it is not a regular file now; nothing was changed"),
    LeftAlone.CHANGED_AGAIN: N_("it changed again meanwhile; nothing was changed"),
    LeftAlone.CONTENT_NOT_KEPT: N_("no longer restorable: its kept copy is gone; nothing was changed"),
    LeftAlone.COULD_NOT_WRITE: N_("the system refused the write; nothing was changed"),
    LeftAlone.LINK_IN_THE_PATH_NOW: N_("a folder on its path is a symbolic link now; nothing was written through it"),
}


def issue_text(issue: RevertIssue) -> str:
    """Why a change was left as it is, in the person's language."""
    if issue.reason is LeftAlone.NOT_RESTORABLE:
        return _("not restorable: {why}").format(why=not_restorable_text(issue.not_restorable))
    text = _(_LEFT_ALONE[issue.reason])
    # The system's own error (an OS message) is added as it came, for someone who can read it.
    return aside(text, issue.detail) if issue.detail else text
