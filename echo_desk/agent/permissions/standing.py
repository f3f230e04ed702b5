"""``tool_standing``: the one answer to "is this tool enabled, what does a call do by default,
and what decided that?" — for the dispatcher, ``echo-desk tools list`` and the UI catalog.

It only reads settings and the registry entry; rules are counted, not evaluated (a rule's verdict
depends on the call's arguments: see ``PermissionEngine.evaluate``).
"""

from __future__ import annotations

from collections.abc import Iterable

from echo_desk.agent.permissions.model import Default, Rule, ToolStanding
from echo_desk.agent.permissions.subjects import family_of_tool, rule_names_for
from echo_desk.agent.policy import effective_risk, profile_includes
from echo_desk.agent.registry import RegisteredTool
from echo_desk.store.settings import Settings, ToolPolicy
from echo_desk.tools import RiskLevel, RuleFamily


def tool_standing(entry: RegisteredTool, settings: Settings, rules: Iterable[Rule] = ()) -> ToolStanding:
    """Enabled?, the default for a call (runs / asks / refused) and what decided each.

    The default is what ``policy.approval_for`` does when no rule, grant or protected target
    speaks: settings Never → refused; Always allow → runs; Ask → asks; the tool always asks
    (``requires_approval``) → asks; otherwise the *effective* risk (the person may lower an MCP
    tool's risk): read runs, write and exec ask.
    """
    if entry.source in settings.disabled_sources:
        enabled, enabled_by = False, "source disabled"
    else:
        explicit = settings.tool(entry.name).enabled
        if explicit is not None:
            enabled, enabled_by = explicit, "tool toggle"
        else:
            enabled, enabled_by = profile_includes(settings, entry.tool.capabilities), "profile"
    risk = effective_risk(entry, settings)
    policy = settings.tool(entry.name).policy
    if policy is ToolPolicy.NEVER:
        default, default_by = Default.REFUSED, "settings: never"
    elif policy is ToolPolicy.ALWAYS:
        default, default_by = Default.RUNS, "settings: always allow"
    elif policy is ToolPolicy.ASK:
        default, default_by = Default.ASKS, "settings: ask"
    elif entry.tool.requires_approval:
        default, default_by = Default.ASKS, "the tool always asks"
    elif risk is RiskLevel.READ:
        default, default_by = Default.RUNS, "risk default: read"
    else:
        default, default_by = Default.ASKS, f"risk default: {risk.value}"
    names = rule_names_for(entry)
    is_db = family_of_tool(entry.tool) is RuleFamily.DATABASE and not entry.source.startswith("mcp:")
    count = sum(1 for rule in rules if rule.tool in names or (is_db and rule.tool.startswith("db:")))
    return ToolStanding(
        name=entry.name,
        enabled=enabled,
        enabled_by=enabled_by,
        risk=risk.value,
        default=default,
        default_by=default_by,
        policy_explicit=policy is not None,
        rule_count=count,
    )
