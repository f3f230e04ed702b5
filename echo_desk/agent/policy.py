"""Which tools are enabled, how risky a call is, and whether it needs the person's approval.

Each answer carries its provenance: the rule that decided, recorded in the audit log.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.scope import Scope
from echo_desk.store.settings import ALL_CAPABILITIES, Settings, ToolPolicy
from echo_desk.tools.results import SANDBOX_TARGET, Placement, RiskLevel, Target, ToolPreview

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Provenance
    from echo_desk.agent.permissions.model import Verdict as RulesVerdict


def is_protected(target: Target) -> bool:
    """The target always needs the person's own approval, whatever the settings allow."""
    return bool(target.protections)


def runs_in_sandbox(entry: RegisteredTool, preview: ToolPreview | None) -> bool:
    """The previewed call runs in the sandbox (only a built-in tool is believed when it says so)."""
    if preview is None or entry.source != "builtin":
        return False
    return any(t.kind == SANDBOX_TARGET and t.value == Placement.IN_SANDBOX for t in preview.targets)


def is_enabled(entry: RegisteredTool, settings: Settings) -> bool:
    """A source switched off as a group wins; then the tool's own toggle; then the profile."""
    if entry.source in settings.disabled_sources:
        return False
    own = settings.tools.get(entry.name)  # not settings.tool(): no default model built per call
    explicit = own.enabled if own is not None else None
    if explicit is not None:
        return explicit
    return profile_includes(settings, entry.tool.capabilities)


def profile_includes(settings: Settings, capabilities: frozenset[str]) -> bool:
    wanted = settings.profiles.get(settings.active_profile, _EVERY_CAPABILITY)
    if ALL_CAPABILITIES in wanted:
        return True
    return any(capability in capabilities for capability in wanted)


_EVERY_CAPABILITY = (ALL_CAPABILITIES,)


def effective_risk(entry: RegisteredTool, settings: Settings) -> RiskLevel:
    """The tool's risk, unless the person lowered it for an MCP tool (MCP tools start at exec)."""
    own = settings.tools.get(entry.name)
    override = own.risk_override if own is not None else None
    if override is not None and entry.source.startswith("mcp:"):
        return override
    return entry.tool.risk_level


def grant_problem(entry: RegisteredTool, risk: RiskLevel, scope: Scope) -> str:
    """Why this scope may not run the tool, or '' when it may."""
    if scope.read_only and risk is not RiskLevel.READ:
        return f"tool '{entry.name}' ({risk.value}) is not available in a read-only scope"
    if not scope.grants(entry.name, risk):
        return f"tool '{entry.name}' was not granted to {scope.label or 'this scope'}"
    return ""


class ApprovalVerdict(enum.StrEnum):
    """What a ruling says of a call: run it, ask the person, or refuse it (the rules' own
    per-call answer is ``permissions.Verdict``, one input to the ruling)."""

    AUTO = "auto"
    ASK = "ask"
    DENY = "deny"


@dataclass(frozen=True)
class Ruling:
    verdict: ApprovalVerdict
    provenance: str
    #: The rule or grant that decided (file + line, or grant id), when one did.
    deciding: Provenance | None = None


def approval_for(
    entry: RegisteredTool,
    risk: RiskLevel,
    settings: Settings,
    scope: Scope,
    preview: ToolPreview | None,
    rules: RulesVerdict | None = None,
) -> Ruling:
    """auto / ask / deny for one call: settings Never → permission rules and grants (``rules``,
    from ``PermissionEngine.evaluate``: floor, deny, ask, then allow) → settings, conversation
    grants and risk defaults.

    A protected target (a ``Target`` with ``protections``, e.g. a file under ``.git/``) is
    always asked about, whatever a rule or a setting says "allow"; a rule never makes a disabled
    or ungranted tool run (those are refused before this step).
    """
    own = settings.tools.get(entry.name)
    policy = own.policy if own is not None else None
    if policy is ToolPolicy.NEVER:
        return _NEVER
    # Only a verdict with a deciding rule or grant speaks (``effect None``: nothing did).
    why = rules.provenance if rules is not None else None
    said = rules.effect if rules is not None and why is not None else None
    if why is not None and said is not None:
        from echo_desk.agent.permissions.model import Effect  # loaded with the rules that spoke

        if said is Effect.DENY:
            return Ruling(ApprovalVerdict.DENY, why.describe(), why)
    if preview is not None and any(is_protected(t) for t in preview.targets):
        return _PROTECTED
    if why is not None and said is not None:
        if said is Effect.ALLOW_IN_SANDBOX:
            if runs_in_sandbox(entry, preview):
                return Ruling(ApprovalVerdict.AUTO, f"{why.describe()}, runs in the sandbox", why)
            # Not contained here (sandbox off, unavailable, or asked to leave it): the rule grants nothing.
            return Ruling(ApprovalVerdict.ASK, f"{why.describe()}, but runs outside the sandbox", why)
        if said is Effect.ASK or said is Effect.ALLOW:
            return Ruling(ApprovalVerdict.ASK if said is Effect.ASK else ApprovalVerdict.AUTO, why.describe(), why)
    if policy is ToolPolicy.ALWAYS:
        return _ALWAYS
    if scope.conversation_allows(entry.name):
        return _CONVERSATION
    if policy is ToolPolicy.ASK:
        return _ASK
    if entry.tool.requires_approval:
        return _TOOL_ASKS
    return _RISK_DEFAULTS[risk]


# The rulings that name no rule: one immutable value each, not one built per call.
_NEVER = Ruling(ApprovalVerdict.DENY, "settings: never")
_PROTECTED = Ruling(ApprovalVerdict.ASK, "protected target")
_ALWAYS = Ruling(ApprovalVerdict.AUTO, "settings: always allow")
_CONVERSATION = Ruling(ApprovalVerdict.AUTO, "allowed for this conversation")
_ASK = Ruling(ApprovalVerdict.ASK, "settings: ask")
_TOOL_ASKS = Ruling(ApprovalVerdict.ASK, "the tool always asks")
_RISK_DEFAULTS = {
    level: Ruling(ApprovalVerdict.AUTO if level is RiskLevel.READ else ApprovalVerdict.ASK, f"risk default: {level.value}")
    for level in RiskLevel
}
