"""What a settings page says when something it did failed: in the person's language, what
happened and what did not; the exception's own English only in the tooltip, for a report.

``echo_desk.mcp.explain`` names the failure (an error Echo Desk words itself, ``for_person``, is
said as it is; a system refusal in Echo Desk's own sentence, "the disk is full"); a failure it
cannot name is said to be unexpected, never quoted: ``str(exc)`` is a developer's English
(``[Errno 28] No space left on device``) whatever the language.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from echo_desk.agent.permissions.rule_files import NOT_WRITTEN
from echo_desk.common.atomic import LEFT_UNCHANGED
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, Deferred, clause_text, deferred, shown


def failure_reason(exc: BaseException) -> str:
    """Why ``exc`` happened, in the language of the moment. An error that says what Echo Desk
    did not do (``ValueError("permissions.toml could not be written; …")``) raised from the
    system's refusal is followed by the system's reason in Echo Desk's words. The outcome an
    error adds ("The original file is unchanged.") is left out: every page's sentence says it
    already ("Not saved; your rule file was not changed ({reason})"), and it was said twice."""
    reason = shown(_cause_only(_named(exc)))
    cause = exc.__cause__
    if _is_refusal(cause) and cause is not exc:
        assert isinstance(cause, OSError)
        reason = clause_text((reason, shown(_named(cause))))
    return visible(reason, one_line=True)


def _cause_only(said: str) -> str:
    if isinstance(said, Deferred) and said.msgid == LEFT_UNCHANGED:
        error = said.params.get("error")
        if isinstance(error, str):  # a ``deferred`` one too, shown in the language of the moment
            return error
    if isinstance(said, Deferred) and said.msgid == NOT_WRITTEN:
        return deferred(N_("{file} could not be written"), **said.params)
    return said


def _is_refusal(exc: BaseException | None) -> bool:
    return isinstance(exc, OSError) and bool(exc.errno or exc.strerror)


def _named(exc: BaseException) -> str:
    from echo_desk.mcp.explain import explained, refused

    # A missing file is the system's refusal here, never an MCP server's missing command.
    if _is_refusal(exc):
        assert isinstance(exc, OSError)
        return refused(exc, quote_detail=False)
    return explained(exc, quote_detail=False)


def say_failure(label: QLabel, message: str, exc: BaseException) -> str:
    """Show ``message`` (its ``{reason}`` filled by ``failure_reason``) on ``label``, the
    technical detail in its tooltip; returns the text shown."""
    from echo_desk.mcp.explain import technical_detail

    text = message.format(reason=failure_reason(exc))
    label.setText(text)
    label.setToolTip(visible(technical_detail(exc)))
    return text
