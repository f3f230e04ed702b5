"""A target's details in the person's language: its context, then why it is protected.

Tools mark a target that always needs the person's own approval with typed
``Target.protections`` (``echo_desk.tools.protection``); the English the model and the terminal
read is built from the same data. Here each reason is translated from its message id, with the
facts it names, so the text follows a live language switch.
"""

from __future__ import annotations

from echo_desk.i18n import N_, _, aside, clause_text, list_text, shown
from echo_desk.tools import Protection, ProtectionReason, Target

#: Every reason's message id; the named facts are ``{count}``, ``{host}``, ``{addresses}``.
REASON_TEXTS: dict[ProtectionReason, str] = {
    ProtectionReason.GIT_FOLDER: N_("inside a .git folder (repository internals)"),
    ProtectionReason.SETTINGS_FOLDER: N_("Echo Desk's own settings folder"),
    ProtectionReason.DATA_FOLDER: N_("Echo Desk's own data folder"),
    ProtectionReason.CACHE_FOLDER: N_("Echo Desk's own cache folder"),
    ProtectionReason.KEYRING_FOLDER: N_("the keyring folder"),
    # The file tools replace or move this name only (never write through it): say so, as "the
    # file both names share" reads as if every name would change.
    ProtectionReason.HARD_LINKED: N_("hard-linked ({count} names share this file): the other names keep what they "
                                     "hold now"),
    ProtectionReason.LOCAL_NETWORK: N_("{host} is this computer or its local network ({addresses})"),
    ProtectionReason.OUTSIDE_SANDBOX_ASKED: N_("runs outside the sandbox with all your rights (the agent asked for it)"),
    ProtectionReason.OUTSIDE_SANDBOX_ALWAYS_ASK:
        N_("runs outside the sandbox with all your rights (the sandbox is set to ask every time)"),
    ProtectionReason.OUTSIDE_SANDBOX_UNAVAILABLE:
        N_("runs outside the sandbox with all your rights (the sandbox is unavailable here)"),
    ProtectionReason.MORE_INSIDE: N_("{count} more files inside"),
    ProtectionReason.RUNS_CODE: N_("{entry} makes a program run code later: {why}"),
}


def protection_text(protection: Protection) -> str:
    """``Protected: <reason>`` in the current language (with the file inside, if any)."""
    count = protection.more if protection.reason is ProtectionReason.MORE_INSIDE else protection.links
    reason = _(REASON_TEXTS[protection.reason]).format(
        count=count, host=protection.host, addresses=list_text(protection.addresses), entry=protection.entry,
        why=_(protection.why) if protection.why else "")
    if protection.inside:
        reason = aside(reason, protection.inside)
    return _("Protected: {reason}").format(reason=reason)


def shown_detail(target: Target) -> str:
    """A target's ``detail`` and protections as the approval dialog shows them."""
    parts = [_context_text(target.detail)] if target.detail else []
    parts += [protection_text(p) for p in target.protections]
    return clause_text(parts)


def _context_text(detail: str) -> str:
    if shown(detail) is not detail:
        # Built by the tool as a Deferred (a file tool's role, the sandbox's network): in the
        # language of the moment, from its message id, never parsed out of the English.
        return shown(detail)
    return _(detail)  # an engine message id (a file tool's role), or a path, shown as it is
