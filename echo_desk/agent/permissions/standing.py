"""``tool_standing``: the one answer to "is this tool enabled, what does a call do by default,
and what decided that?" — for the dispatcher, ``echo-desk tools list`` and the UI catalog.

It only reads settings and the registry entry; rules are counted, not evaluated (a rule's verdict
depends on the call's arguments: see ``PermissionEngine.evaluate``).
"""

from __future__ import annotations

from collections.abc import Iterable

from echo_desk.agent.permissions.model import Default, Rule, ToolStanding
from echo_desk.agent.permissions.subjects import family_of_tool, rule_names_for
from echo_desk.agent.policy import ApprovalVerdict, default_by, effective_risk, enabled_and_why
from echo_desk.agent.registry import RegisteredTool
from echo_desk.store.settings import Settings
from echo_desk.tools import RuleFamily


def tool_standing(entry: RegisteredTool, settings: Settings, rules: Iterable[Rule] = ()) -> ToolStanding:
    """Enabled?, the default for a call (runs / asks / refused) and what decided each: the
    same ladders ``execute_tool`` follows (``policy.enabled_and_why``, ``policy.default_by``),
    with the *effective* risk (the person may lower an MCP tool's)."""
    enabled, enabled_by = enabled_and_why(entry, settings)
    risk = effective_risk(entry, settings)
    policy = settings.tool(entry.name).policy
    decided = default_by(entry, risk, policy, None)
    names = rule_names_for(entry)
    is_db = family_of_tool(entry.tool) is RuleFamily.DATABASE and not entry.source.startswith("mcp:")
    count = sum(1 for rule in rules if rule.tool in names or (is_db and rule.tool.startswith("db:")))
    return ToolStanding(
        name=entry.name,
        enabled=enabled,
        enabled_by=enabled_by,
        risk=risk,
        default=_DEFAULTS[decided.verdict],
        default_by=decided,
        policy_explicit=policy is not None,
        rule_count=count,
    )


_DEFAULTS = {ApprovalVerdict.AUTO: Default.RUNS, ApprovalVerdict.ASK: Default.ASKS, ApprovalVerdict.DENY: Default.REFUSED}
