"""The default-approval ladder is written once (``policy.default_by``): what ``tools list`` and
the catalog say a call does by default (``tool_standing``) is what ``execute_tool``'s approval
step rules when no rule, grant or protected target speaks — for every setting, every risk
(the person's lowered MCP risk included) and a tool that always asks; and the conversation's
"allow" is the one step the standing cannot know of."""

from __future__ import annotations

import itertools
from typing import ClassVar

import pytest

from echo_desk.agent.permissions.model import Default
from echo_desk.agent.permissions.standing import tool_standing
from echo_desk.agent.policy import ApprovalVerdict, DefaultBy, EnabledBy, approval_for
from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.scope import Scope
from echo_desk.builtins.echo import EchoText
from echo_desk.store.settings import Settings, ToolPolicy, ToolSettings
from echo_desk.tools import RiskLevel

AS_DEFAULT = {ApprovalVerdict.AUTO: Default.RUNS, ApprovalVerdict.ASK: Default.ASKS,
              ApprovalVerdict.DENY: Default.REFUSED}


class _AlwaysAsks(EchoText):
    name: ClassVar[str] = "always_asks"
    requires_approval: ClassVar[bool] = True


class _Risky(EchoText):
    name: ClassVar[str] = "risky"
    risk_level: ClassVar[RiskLevel] = RiskLevel.EXEC


CASES = list(itertools.product(
    [None, ToolPolicy.NEVER, ToolPolicy.ASK, ToolPolicy.ALWAYS],
    [(EchoText, "builtin"), (_AlwaysAsks, "builtin"), (_Risky, "builtin"), (_Risky, "mcp:srv")],
    [None, RiskLevel.READ, RiskLevel.WRITE],
))


@pytest.mark.parametrize(("policy", "kind", "lowered"), CASES)
def test_the_standing_says_what_the_approval_step_does(policy: ToolPolicy | None,
                                                       kind: tuple[type[EchoText], str],
                                                       lowered: RiskLevel | None) -> None:
    cls, source = kind
    entry = RegisteredTool(tool=cls(), source=source)
    settings = Settings(tools={entry.name: ToolSettings(policy=policy, risk_override=lowered)})
    standing = tool_standing(entry, settings)
    ruling = approval_for(entry, standing.risk, settings, Scope(id="s"), None, None)
    assert AS_DEFAULT[ruling.verdict] is standing.default
    assert ruling.provenance == standing.default_by.value and isinstance(standing.default_by, DefaultBy)
    assert isinstance(standing.risk, RiskLevel) and isinstance(standing.enabled_by, EnabledBy)
    # Allowed for this conversation: the approval step then runs it, unless the settings say Never
    # or Always allow (those come first); the standing, which knows no conversation, leaves it out.
    allowed = Scope(id="c")
    allowed.session_grants.add(entry.name)
    in_conversation = approval_for(entry, standing.risk, settings, allowed, None, None)
    if policy in (ToolPolicy.NEVER, ToolPolicy.ALWAYS):
        assert in_conversation == ruling
    else:
        assert in_conversation.verdict is ApprovalVerdict.AUTO
        assert in_conversation.provenance == DefaultBy.CONVERSATION.value
