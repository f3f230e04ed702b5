"""Localized labels for engine values (risk, statuses, policies, sources, targets)."""

from __future__ import annotations

from echo_desk.i18n import N_, _

RISK_LABELS = {"read": N_("Read"), "write": N_("Write"), "exec": N_("Execute")}
RISK_COLOURS = {"read": "#1a7f37", "write": "#9a6700", "exec": "#cf222e"}

STATUS_LABELS = {
    "pending": N_("Queued"),
    "waiting_approval": N_("Waiting for approval"),
    "running": N_("Running"),
    "done": N_("Done"),
    "failed": N_("Failed"),
    "denied": N_("Denied"),
    "cancelled": N_("Cancelled"),
}
STATUS_COLOURS = {
    "pending": "#57606a",
    "waiting_approval": "#9a6700",
    "running": "#0969da",
    "done": "#1a7f37",
    "failed": "#cf222e",
    "denied": "#8250df",
    "cancelled": "#57606a",
}
# Engines may spell statuses a little differently; fold them onto ours.
_STATUS_ALIASES = {
    "waiting": "waiting_approval", "awaiting_approval": "waiting_approval", "approval": "waiting_approval",
    "ok": "done", "success": "done", "completed": "done", "error": "failed", "rejected": "denied",
    "queued": "pending", "streaming": "pending", "started": "running",
}

POLICY_LABELS = {"ask": N_("Ask"), "always": N_("Always allow"), "never": N_("Never")}

TARGET_LABELS = {
    "path": N_("File"), "command": N_("Command"), "url": N_("URL"), "server": N_("Server"),
    "database": N_("Database"), "sandbox": N_("Runs"), "other": N_("Target"),
}

#: ``Target.value`` of a ``sandbox`` target (``agent.policy.IN_SANDBOX`` / ``OUTSIDE_SANDBOX``).
SANDBOX_VALUES = {"in_sandbox": N_("in the sandbox"), "outside_sandbox": N_("outside the sandbox, with all your rights")}
SANDBOX_NETWORK = {"network: none": N_("no network")}
SANDBOX_ONLY_DOMAINS = "network: only "


def target_value_text(kind: str, value: str) -> str:
    """A target's value as shown: as is, except the sandbox tokens, which are translated."""
    if kind == "sandbox" and value in SANDBOX_VALUES:
        return _(SANDBOX_VALUES[value])
    return value

PROFILE_LABELS = {"read-only": N_("Read only"), "coding": N_("Coding"), "everything": N_("Everything")}

CHANGE_LABELS = {"create": N_("new file"), "modify": N_("modified"), "delete": N_("deleted")}


def normalize_status(status: str) -> str:
    status = status.lower()
    return _STATUS_ALIASES.get(status, status)


def risk_label(risk: str) -> str:
    return _(RISK_LABELS.get(risk, risk))


def status_label(status: str) -> str:
    status = normalize_status(status)
    return _(STATUS_LABELS[status]) if status in STATUS_LABELS else status


def policy_label(policy: str) -> str:
    return _(POLICY_LABELS.get(policy, policy))


def source_label(source: str) -> str:
    if source == "builtin":
        return _("Built-in")
    if source == "plugin" or source.startswith("plugin:"):
        rest = source.partition(":")[2]
        return _("Plugin: {name}").format(name=rest) if rest else _("Plugins")
    if source.startswith("mcp:"):
        return _("MCP server: {name}").format(name=source[4:])
    return source


def profile_label(name: str) -> str:
    return _(PROFILE_LABELS[name]) if name in PROFILE_LABELS else name
