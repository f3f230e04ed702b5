"""Which tools are enabled, how risky a call is, and whether it needs the person's approval.

Each answer carries its provenance: the rule that decided, recorded in the audit log.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.scope import Scope
from echo_desk.i18n import N_, for_person, quoted_later
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


class EnabledBy(enum.StrEnum):
    """What decided whether a tool is enabled."""

    SOURCE_DISABLED = "source disabled"
    TOOL_TOGGLE = "tool toggle"
    PROFILE = "profile"


def enabled_and_why(entry: RegisteredTool, settings: Settings) -> tuple[bool, EnabledBy]:
    """A source switched off as a group wins; then the tool's own toggle; then the profile."""
    if entry.source in settings.disabled_sources:
        return False, EnabledBy.SOURCE_DISABLED
    own = settings.tools.get(entry.name)  # not settings.tool(): no default model built per call
    explicit = own.enabled if own is not None else None
    if explicit is not None:
        return explicit, EnabledBy.TOOL_TOGGLE
    return profile_includes(settings, entry.tool.capabilities), EnabledBy.PROFILE


def is_enabled(entry: RegisteredTool, settings: Settings) -> bool:
    return enabled_and_why(entry, settings)[0]


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
        return for_person(f"tool '{entry.name}' ({risk.value}) is not available in a read-only scope",
                          N_("{name} may change things, and this task may only read."), name=quoted_later(entry.name))
    if not scope.grants(entry.name, risk):
        return for_person(f"tool '{entry.name}' was not granted to {scope.label or 'this scope'}",
                          N_("{name} was not given to this task."), name=quoted_later(entry.name))
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
    return _DEFAULT_RULINGS[default_by(entry, risk, policy, scope)]


class DefaultBy(enum.StrEnum):
    """What decides a call when no rule, grant or protected target speaks (in this order)."""

    NEVER = "settings: never"
    ALWAYS = "settings: always allow"
    CONVERSATION = "allowed for this conversation"  # only a call in a conversation that allowed it
    ASK = "settings: ask"
    TOOL_ASKS = "the tool always asks"
    READ_RISK = "risk default: read"
    WRITE_RISK = "risk default: write"
    EXEC_RISK = "risk default: exec"

    @property
    def verdict(self) -> ApprovalVerdict:
        if self is DefaultBy.NEVER:
            return ApprovalVerdict.DENY
        if self in (DefaultBy.ALWAYS, DefaultBy.CONVERSATION, DefaultBy.READ_RISK):
            return ApprovalVerdict.AUTO
        return ApprovalVerdict.ASK


def default_by(entry: RegisteredTool, risk: RiskLevel, policy: ToolPolicy | None, scope: Scope | None) -> DefaultBy:
    """The default-approval ladder, written once: settings Never, Always allow, allowed for this
    conversation (``scope``; ``None``: no call's conversation), settings Ask, the tool always
    asks, then the (effective) risk: read runs, write and exec ask."""
    if policy is ToolPolicy.NEVER:
        return DefaultBy.NEVER
    if policy is ToolPolicy.ALWAYS:
        return DefaultBy.ALWAYS
    if scope is not None and scope.conversation_allows(entry.name):
        return DefaultBy.CONVERSATION
    if policy is ToolPolicy.ASK:
        return DefaultBy.ASK
    if entry.tool.requires_approval:
        return DefaultBy.TOOL_ASKS
    return _RISK_DEFAULT[risk]


_RISK_DEFAULT = {RiskLevel.READ: DefaultBy.READ_RISK, RiskLevel.WRITE: DefaultBy.WRITE_RISK,
                 RiskLevel.EXEC: DefaultBy.EXEC_RISK}

# The rulings that name no rule: one immutable value each, not one built per call.
_DEFAULT_RULINGS = {by: Ruling(by.verdict, by.value) for by in DefaultBy}
_NEVER = _DEFAULT_RULINGS[DefaultBy.NEVER]
_PROTECTED = Ruling(ApprovalVerdict.ASK, "protected target")
