"""Localized labels for engine values (risk, statuses, policies, sources, targets).

No Qt: the tool cards' HTML uses these labels and colours without Qt (a palette is plain data)."""

from __future__ import annotations

import math

from echo_desk.agent.breaker import BreakerState, BreakerStatus
from echo_desk.agent.sources import SourceKind, ToolSource
from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import N_, _, ngettext
from echo_desk.ui.core.palette import Palette, in_use

RISK_LABELS = {"read": N_("Read"), "write": N_("Write"), "exec": N_("Execute")}
#: A rule's effect, and what it does to a call (``None`` = no rule spoke, see ``rules_text``);
#: keyed by the values of the permission engine's ``Effect`` (a ``StrEnum``, so either key works).
#: Plain values here, not the enum: the terminal uses these words too, and loads no engine for them.
EFFECT_LABELS = {"allow": N_("allow"), "allow_in_sandbox": N_("allow in the sandbox"), "ask": N_("ask"),
                 "deny": N_("deny")}
VERDICT_LABELS = {"allow": N_("Allowed"), "allow_in_sandbox": N_("Allowed in the sandbox, asks outside it"),
                  "ask": N_("Asks"), "deny": N_("Refused")}
#: Palette roles (``ui.theme``) per risk level and per tool status.
RISK_ROLES = {"read": "ok", "write": "warn", "exec": "danger"}

STATUS_LABELS = {
    ToolStatus.PENDING: N_("Queued"),
    ToolStatus.WAITING_APPROVAL: N_("Waiting for approval"),
    ToolStatus.RUNNING: N_("Running"),
    ToolStatus.DONE: N_("Done"),
    ToolStatus.FAILED: N_("Failed"),
    ToolStatus.DENIED: N_("Denied"),
    ToolStatus.CANCELLED: N_("Cancelled"),
}
STATUS_ROLES = {
    ToolStatus.PENDING: "muted",
    ToolStatus.WAITING_APPROVAL: "warn",
    ToolStatus.RUNNING: "accent",
    ToolStatus.DONE: "ok",
    ToolStatus.FAILED: "danger",
    ToolStatus.DENIED: "denied",
    ToolStatus.CANCELLED: "muted",
}


def risk_colour(risk: str, palette: Palette | None = None) -> str:
    """The colour of a risk level in ``palette`` (the one in use by default; muted for an unknown level)."""
    return str(getattr(palette or in_use(), RISK_ROLES.get(risk, "muted")))


def status_colour(status: ToolStatus, palette: Palette | None = None) -> str:
    """The colour of a tool status in ``palette`` (the one in use by default)."""
    return str(getattr(palette or in_use(), STATUS_ROLES[status]))

POLICY_LABELS = {"ask": N_("Ask"), "always": N_("Always allow"), "never": N_("Never")}

TARGET_LABELS = {
    "path": N_("File"), "command": N_("Command"), "url": N_("URL"), "server": N_("Server"),
    "database": N_("Database"), "sandbox": N_("Runs"), "other": N_("Target"),
}

#: ``Target.value`` of a ``sandbox`` target (``tools.Placement``).
SANDBOX_VALUES = {"in_sandbox": N_("in the sandbox"), "outside_sandbox": N_("outside the sandbox, with all your rights")}


def target_value_text(kind: str, value: str) -> str:
    """A target's value as shown: as is, except the sandbox tokens, which are translated."""
    if kind == "sandbox" and value in SANDBOX_VALUES:
        return _(SANDBOX_VALUES[value])
    return value

PROFILE_LABELS = {"read-only": N_("Read only"), "coding": N_("Coding"), "everything": N_("Everything")}

#: A tool's ``capabilities`` tags as the catalog's filter shows them; a tag not listed (a
#: plugin's own) is shown as it is.
CAPABILITY_LABELS = {
    "basic": N_("Basic"), "files.read": N_("Read files"), "files.write": N_("Change files"),
    "shell": N_("Run commands"), "web": N_("Web pages"), "database.read": N_("Read databases"),
    "database.write": N_("Change databases"), "agents": N_("Sub-agents"), "ask": N_("Questions to you"),
    "todos": N_("Task list"), "mcp": N_("MCP tools"),
}

CHANGE_LABELS = {"create": N_("new file"), "modify": N_("modified"), "delete": N_("deleted")}


def risk_label(risk: str) -> str:
    return _(RISK_LABELS.get(risk, risk))


def status_label(status: ToolStatus) -> str:
    return _(STATUS_LABELS[status])


def policy_label(policy: str) -> str:
    return _(POLICY_LABELS.get(policy, policy))


def source_label(source: ToolSource) -> str:
    match source.kind:
        case SourceKind.BUILTIN:
            return _("Built-in")
        case SourceKind.PLUGIN:
            return _("Plugin: {name}").format(name=source.name) if source.name else _("Plugins")
        case SourceKind.MCP:
            return _("MCP server: {name}").format(name=source.server)


def capability_label(tag: str) -> str:
    return _(CAPABILITY_LABELS[tag]) if tag in CAPABILITY_LABELS else tag


def profile_label(name: str) -> str:
    return _(PROFILE_LABELS[name]) if name in PROFILE_LABELS else name


def approval_label(policy: str, *, explicit: bool) -> str:
    """A tool's approval as Settings › Tools says it: the person's choice ("Always allow"), or the
    default it falls to ("Default (Ask)"). ``policy``: ``ask``, ``always`` or ``never``."""
    return policy_label(policy) if explicit else _("Default ({policy})").format(policy=policy_label(policy))


#: The approval a tool's default comes to (``ToolStanding.default``), as a policy.
DEFAULT_POLICIES = {"runs": "always", "asks": "ask", "refused": "never"}


def not_ready_label(why: str) -> str:
    """"Not ready: …", headed as "Ready" is (the reasons are lower-case clauses written to follow
    a colon); ``why`` already in the person's language."""
    return _("Not ready: {reason}").format(reason=why) if why else _("Not ready")


def breaker_label(status: BreakerStatus) -> str:
    """A tool's recent failures as Settings › Tools and ``tools list`` say them; '' when none."""
    failures = status.consecutive_failures
    if status.state is BreakerState.OPEN:
        return ngettext("Paused after {n} failure, retry in {s} s", "Paused after {n} failures, retry in {s} s",
                        failures).format(n=failures, s=max(1, math.ceil(status.retry_in_seconds)))
    if status.state is BreakerState.HALF_OPEN:
        return ngettext("Trying again after {n} failure", "Trying again after {n} failures", failures).format(n=failures)
    if failures:
        return ngettext("{n} recent failure", "{n} recent failures", failures).format(n=failures)
    return ""
