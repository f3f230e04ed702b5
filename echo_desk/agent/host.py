"""The engine's one door to the person: approvals, plus everything a tool may ask (``ToolHost``).

The Qt controller implements it, so does the terminal CLI; tests use a scripted host.
Approval is data: the request carries exactly what the dialog shows, the decision is a value
keyed by the call id.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from echo_desk.agent.scope import ScopeLink
from echo_desk.agent.sources import BUILTIN, ToolSource
from echo_desk.agent.subagents import SpawnGrants
from echo_desk.common.visible_text import any_hidden, has_hidden, path_hides_text
from echo_desk.tools.host import NullToolHost, ToolHost
from echo_desk.tools.results import FileChange, RiskLevel, Target

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Suggestion, Verdict
    from echo_desk.store.grants import GrantScope


class ApprovalChoice(enum.StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_CONVERSATION = "allow_conversation"
    ALWAYS_ALLOW = "always_allow"
    DENY = "deny"

    @property
    def allows(self) -> bool:
        return self is not ApprovalChoice.DENY


@dataclass(frozen=True, kw_only=True)
class ApprovalRequest:
    """Everything the person sees before a side effect. ``binding`` hashes the tool, the
    canonical arguments and the previewed content: the decision is valid for that only."""

    call_id: str
    tool_name: str
    tool_title: str
    risk: RiskLevel
    scope_id: str
    scope_label: str
    scope_chain: tuple[str, ...]
    arguments: dict[str, Any]
    targets: tuple[Target, ...]
    file_changes: tuple[FileChange, ...]
    summary: str
    binding: str
    source: ToolSource = BUILTIN
    #: The gettext domain of ``tool_title`` (a plugin's own catalog; Echo Desk's by default) and
    #: the folder the plugin ships it in.
    tool_domain: str = "echo_desk"
    tool_locale_dir: Path | None = None
    #: Set for a sub-agent spawn (``delegate``): what the sub-agent would get, typed.
    spawn: SpawnGrants | None = None
    #: The permission rules' view of this call: per-part verdicts and the narrow rules the
    #: dialog may offer (``rules.suggestions``). ``None`` when no engine is wired.
    rules: Verdict | None = None
    #: The tool writes only the hunks the person keeps (``ApprovalDecision.selection``).
    hunk_selectable: bool = False
    #: Validate and preview edited arguments: returns the request to show (and answer) instead.
    #: Raises ``agent.revision.RevisionRefused`` with a reason. ``None``: editing is not offered.
    #: The tool's JSON schema (the argument editor builds its form from it).
    parameters_schema: dict[str, Any] = field(default_factory=dict, compare=False)
    #: Files Revert could not restore (over the undo size limit): said before approval.
    not_restorable: tuple[str, ...] = ()
    #: The MCP client asking through the gateway (its key); empty when Echo Desk's own agent asks.
    client: str = ""
    #: Apps other than the one asking may call this tool through the gateway (some client has a
    #: profile): "always allow this tool", the catalog's setting, lets them too.
    shared_with_clients: bool = False
    #: Why a call that would have run without asking is asked (a ``deferred`` message), e.g. the
    #: activity log cannot be written; empty for an ordinary ask.
    asked_because: str = ""
    #: ``scope_chain`` typed: which link is a sub-agent, with its goal (see ``links``).
    scope_links: tuple[ScopeLink, ...] = ()
    revise: Callable[[dict[str, Any]], Awaitable[ApprovalRequest]] | None = field(default=None, compare=False)

    @property
    def links(self) -> tuple[ScopeLink, ...]:
        """The scope chain as typed links (from ``scope_chain`` alone when none were given: then
        no link is taken for a sub-agent)."""
        return self.scope_links or tuple(ScopeLink(label) for label in self.scope_chain)

    def hides_text(self, *, with_diffs: bool = True) -> bool:
        """Whether anything shown (targets, arguments, summary, paths, diffs) holds a hidden
        character: the dialog and the terminal then say so above it. ``with_diffs=False`` leaves
        the diffs to a caller that reads them itself (the dialog, a slice at a time)."""
        texts = [self.summary, *(t.value for t in self.targets), *(t.full_detail for t in self.targets),
                 *(c.diff for c in self.file_changes if with_diffs), *(c.path for c in self.file_changes)]
        paths = [*(t.value for t in self.targets if t.kind == "path"), *(c.path for c in self.file_changes)]
        return any(has_hidden(t) for t in texts) or any(path_hides_text(p) for p in paths) or any_hidden(self.arguments)


@dataclass(frozen=True, kw_only=True)
class ApprovalDecision:
    """The person's answer. ``selection`` (path → ids of the hunks they kept, from the
    ``FileChange.hunks`` shown) allows only those hunks; ``None`` takes every change as shown.
    With a selection, ``binding`` is ``common.hunks.bind_selection(request.binding, selection)``."""

    call_id: str
    choice: ApprovalChoice
    message: str = ""
    binding: str = ""
    #: A narrow grant to store with an allow: one of ``request.rules.suggestions`` and how
    #: long it lasts (``GrantScope``). Both or neither.
    suggestion: Suggestion | None = None
    grant_scope: GrantScope | None = None
    selection: Mapping[str, tuple[str, ...]] | None = None

    @property
    def allowed(self) -> bool:
        return self.choice.allows


class NoOneToAsk(Exception):
    """Raised by ``Host.request_approval`` when no person can answer now (a gateway client's
    call while Echo Desk's window is not running): the call is refused at once with this
    message instead of waiting for an answer that cannot come."""


@runtime_checkable
class Host(ToolHost, Protocol):
    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision: ...


@dataclass
class ScriptedHost(NullToolHost):
    """A host that answers approvals from a fixed choice and records what it was shown.

    Used by the CLI's ``--yes``/``--no`` and by tests.
    """

    choice: ApprovalChoice = ApprovalChoice.DENY
    message: str = ""
    requests: list[ApprovalRequest] = field(default_factory=list)
    outputs: list[tuple[str, str]] = field(default_factory=list)
    mutated: list[str] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return ApprovalDecision(
            call_id=request.call_id, choice=self.choice, message=self.message, binding=request.binding
        )

    def tool_output(self, call_id: str, text: str) -> None:
        self.outputs.append((call_id, text))

    def file_mutated(self, path: str) -> None:
        self.mutated.append(path)
