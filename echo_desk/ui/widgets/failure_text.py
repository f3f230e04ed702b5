"""What a window says when something it did failed: in the person's language, what happened and
what did not; the exception's own English only in a tooltip or the log, for a report.

``echo_desk.mcp.explain`` names the failure (``echo_desk.common.explain`` what is not MCP's) (an error Echo Desk words itself, ``for_person``, is
said as it is; a system refusal in Echo Desk's own sentence, "the disk is full"); a failure it
cannot name is said to be unexpected, never quoted: ``str(exc)`` is a developer's English
(``[Errno 28] No space left on device``) whatever the language.

Every part of the window says a failure so: the settings pages, the approval dialogs, the chat
and the window's banner. A missing file is the system's refusal ("no such file or folder"),
except where a program was being run (``running=True``: a readiness check, a server's command),
where it is the missing program ("command not found").
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from echo_desk.common.explain import refused, technical_detail
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, Deferred, deferred, shown
from echo_desk.ui.widgets.full_text_box import plain_tooltip


def failure_said(exc: BaseException, *, running: bool = False) -> str:
    """Why ``exc`` happened (``deferred``: a language switch says it again). An error that says
    what Echo Desk did not do (``ValueError("permissions.toml could not be written; …")``) raised
    from the system's refusal is followed by the system's reason in Echo Desk's words. The outcome an
    error adds ("The original file is unchanged.") is left out: every page's sentence says it
    already ("Not saved; your rule file was not changed ({reason})"), and it was said twice."""
    reason = _cause_only(_named(exc, running))
    cause = exc.__cause__
    if _is_refusal(cause) and cause is not exc:
        assert isinstance(cause, OSError)
        reason = deferred(N_("{reason}; {cause}"), reason=reason, cause=_named(cause, running))
    return reason


def failure_reason(exc: BaseException, *, running: bool = False) -> str:
    """``failure_said(exc)`` in the language of the moment, on one line, every hidden character
    shown (a file or a program name in it comes from outside)."""
    return visible(shown(failure_said(exc, running=running)), one_line=True)


def failure_tip(exc: BaseException) -> str:
    """The technical detail of ``exc`` (English, for a report) as a tooltip that shows it
    literally: Qt would read a detail holding ``<b>`` as rich text."""
    return plain_tooltip(technical_detail(exc))


def _cause_only(said: str) -> str:
    # (imported here: the chat's window uses this module before its first frame, which must not
    # wait for the permission engine and the tool contract these modules bring)
    from echo_desk.agent.permissions.rule_files import NOT_WRITTEN
    from echo_desk.common.atomic import LEFT_UNCHANGED

    if isinstance(said, Deferred) and said.msgid == LEFT_UNCHANGED:
        error = said.params.get("error")
        if isinstance(error, str):  # a ``deferred`` one too, shown in the language of the moment
            return error
    if isinstance(said, Deferred) and said.msgid == NOT_WRITTEN:
        return deferred(N_("{file} could not be written"), **said.params)
    return said


def _is_refusal(exc: BaseException | None) -> bool:
    return isinstance(exc, OSError) and bool(exc.errno or exc.strerror)


def _named(exc: BaseException, running: bool) -> str:
    from echo_desk.mcp.explain import explained  # loads the MCP SDK: only when something failed

    # A missing file is the system's refusal, unless a program was run: then it is the program.
    if _is_refusal(exc) and not (running and isinstance(exc, FileNotFoundError)):
        assert isinstance(exc, OSError)
        return refused(exc, quote_detail=False)
    return explained(exc, quote_detail=False)


def say_failure(label: QLabel, message: str, exc: BaseException) -> str:
    """Show ``message`` (its ``{reason}`` filled by ``failure_reason``) on ``label``, the
    technical detail in its tooltip; returns the text shown."""
    text = message.format(reason=failure_reason(exc))
    label.setText(text)
    label.setToolTip(failure_tip(exc))
    return text
