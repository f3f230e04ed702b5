"""What decided an audited call, in the person's language.

The audit log keeps the engine's provenance as text (records written by every earlier version
too), so the Activity tab reads its fixed forms here — "risk default: read", "settings: never",
"person: allow_once (grant g_…)" — and words them from the engine's own enums. Text in no known
form (a future engine's) is shown as stored: it is untrusted and plain.
"""

from __future__ import annotations

import re

from echo_desk.agent.host import ApprovalChoice
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, aside, quoted
from echo_desk.tools import RiskLevel
from echo_desk.ui.core.labels import policy_label, risk_label

#: The settings' policy as the provenance names it → the policy's value (``ToolPolicy``).
SETTING_POLICIES = {"never": "never", "always allow": "always", "ask": "ask"}
CHOICE_LABELS = {
    ApprovalChoice.ALLOW_ONCE: N_("you allowed it once"),
    ApprovalChoice.ALLOW_CONVERSATION: N_("you allowed it for this conversation"),
    ApprovalChoice.ALWAYS_ALLOW: N_("you always allow it"),
    ApprovalChoice.DENY: N_("you denied it"),
}
#: The person's answers the dispatcher records in words rather than as an ``ApprovalChoice``.
PERSON_LABELS = {"denied": N_("you denied it"),
                 "answer did not match the request shown": N_("your answer did not match the request shown")}
_HEAD = re.compile(r"^(risk default|settings|person): ([^()]*?)(?: \((.*)\))?$", re.DOTALL)
_NOTE = re.compile(r"^(grant|grant not stored|arguments edited by the person|hunks)[ :] ?(.*)$", re.DOTALL)

#: A connected app's call that needed the person while no one could answer (the gateway without
#: the app, or too many calls already waiting): what follows is what the app was told.
_NO_ONE = "no one to ask: "


def provenance_phrase(provenance: str) -> str:
    """``risk default: read`` → "the tool's default (reads)"; unknown text as it is."""
    if provenance.startswith(_NO_ONE):
        return _no_one_to_ask(provenance.removeprefix(_NO_ONE))
    matched = _HEAD.match(provenance)
    if matched is None:
        return provenance
    who, what, note = matched.groups()
    head = _head(who, what)
    if head is None:
        return provenance
    if note is None:
        return head
    worded = _note(note)
    return aside(head, worded if worded is not None else note)


def _head(who: str, what: str) -> str | None:
    if who == "risk default" and what in RiskLevel._value2member_map_:
        return _("the default for its risk ({risk})").format(risk=risk_label(what))
    if who == "settings" and what in SETTING_POLICIES:
        return _("the tool's setting: {policy}").format(policy=policy_label(SETTING_POLICIES[what]))
    if who == "person" and what in ApprovalChoice._value2member_map_:
        return _(CHOICE_LABELS[ApprovalChoice(what)])
    if who == "person" and what in PERSON_LABELS:
        return _(PERSON_LABELS[what])
    if who == "person" and what == "selection refused":
        return _("the changes you picked did not match what was shown")
    return None


def _no_one_to_ask(told: str) -> str:
    # What the app was told is English on purpose (the app's model reads it first, and Echo Desk
    # does not know the app's language): said in the person's language what happened, that text
    # quoted as what it is, whole (its own brackets, "(run echo-desk)", are no note of ours).
    return _("no one could be asked, so it did not run; the app that called was told: {told}").format(
        told=quoted(visible(told, one_line=True)))


def _note(note: str) -> str | None:
    matched = _NOTE.match(note)
    if matched is None:
        return None
    kind, rest = matched.groups()
    if kind == "grant":
        return _("grant {id}").format(id=rest)
    if kind == "grant not stored":
        return _("the grant was not stored: {why}").format(why=rest)
    if kind == "arguments edited by the person":
        return _("arguments you edited: {arguments}").format(arguments=rest.lstrip(": "))
    return _("changes picked: {hunks}").format(hunks=rest.lstrip(": "))
