"""An MCP call's automatic verdict, worked out once and reused while nothing it came from changed.

A client calling the same tool again and again through the gateway (issue #30) had the rules
looked up and the approval ruled anew on every call, for the same answer. Here an "allow" is
kept and given again to the same call while every input of that verdict stays as it was:

- the settings (``SettingsStore.generation``: toggles, policies, risk, profiles, workspaces),
- the rule files and their trust, and the grants (``PermissionEngine.generation``),
- the tools registered (``ToolRegistry.generation``: a server's changed tool list), the very
  entry ruled on (another definition is another entry) and the preview (the server's target),
- the scope, its client, conversation and workspaces, and the call's risk,
- the arguments, in canonical form, unless no rule or grant names the tool at all (then the
  verdict never looked at them: one verdict serves every argument).

Only an allow is kept: an ask or a refusal is worked out on every call. Not kept either: an
allow a grant gave (a grant expires and counts its uses) or a conversation's "allow" (it can be
taken back without a generation changing). The call's own checks before (enabled, granted,
ready: a pinned tool that changed is refused there) and after (the audit log must be writable)
run on every call; the audit record reads the same provenance as without this.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from echo_desk.agent.pipeline.call import Call
from echo_desk.agent.policy import ApprovalVerdict, DefaultBy, Ruling
from echo_desk.agent.registry import RegisteredTool
from echo_desk.tools.results import ToolPreview

if TYPE_CHECKING:
    from echo_desk.agent.permissions.model import Verdict as RulesVerdict

#: The rules' verdict and the ruling made of it (``approval.ruling``'s answer).
Ruled = tuple["RulesVerdict | None", Ruling]

#: Tools (per scope) kept at most; past it all are forgotten (a gateway client calls a handful).
MAX_KEPT = 256
#: Argument sets kept per tool at most, and the longest canonical form kept: writing out a
#: larger one costs about what working the verdict out does.
MAX_ARGUMENT_SETS = 64
MAX_ARGUMENTS_CHARS = 64 * 1024

#: The defaults that stand while the settings do (a conversation's allow does not).
_STANDING_DEFAULTS = frozenset({DefaultBy.ALWAYS.value, DefaultBy.READ_RISK.value})


@dataclass(slots=True)
class _Kept:
    entry: RegisteredTool
    preview: ToolPreview | None
    generations: tuple[object, ...]
    #: The verdict for any arguments (no rule or grant names the tool), if one was kept.
    any_arguments: Ruled | None = None
    by_arguments: dict[str, Ruled] = field(default_factory=dict)


class KeptVerdicts:
    """The dispatcher's kept allows for MCP calls (``ruling`` in place of ``approval.ruling``)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[object, ...], _Kept] = {}

    def ruling(self, call: Call, work_out: Callable[[Call], Ruled]) -> Ruled:
        """``work_out(call)``, or the same allow worked out before for the same call under the
        same generations."""
        entry = call.entry
        if not entry.source.startswith("mcp:"):
            return work_out(call)
        # Read before the verdict is worked out: a change meanwhile leaves it kept under the old
        # generations, so it is never given again.
        generations = _generations(call)
        scope = call.scope
        key = (entry.name, scope.id, scope.caller, scope.conversation_id, scope.workspace_roots, call.risk)
        kept = self._kept.get(key)
        if kept is not None and (kept.entry is not entry or kept.preview is not call.ctx.preview
                                 or kept.generations != generations):
            kept = None
        arguments: str | None = None
        if kept is not None:
            if kept.any_arguments is not None:
                return kept.any_arguments
            if kept.by_arguments:
                arguments = _canonical(call)
                found = kept.by_arguments.get(arguments) if arguments is not None else None
                if found is not None:
                    return found
        rules, ruled = work_out(call)
        if not _reusable(rules, ruled):
            return rules, ruled
        if kept is None:
            if len(self._kept) >= MAX_KEPT:
                self._kept.clear()
            kept = self._kept[key] = _Kept(entry, call.ctx.preview, generations)
        if rules is None:  # no rule or grant names the tool: the arguments were not looked at
            kept.any_arguments = (rules, ruled)
            return rules, ruled
        if arguments is None:
            arguments = _canonical(call)
        if arguments is not None and len(kept.by_arguments) < MAX_ARGUMENT_SETS:
            kept.by_arguments[arguments] = (rules, ruled)
        return rules, ruled


def _generations(call: Call) -> tuple[object, ...]:
    services = call.services
    engine = services.permissions
    return (services.settings.generation, services.registry.generation,
            engine.generation(call.scope.workspace_roots) if engine is not None else None)


def _reusable(rules: RulesVerdict | None, ruled: Ruling) -> bool:
    if ruled.verdict is not ApprovalVerdict.AUTO:
        return False
    if ruled.deciding is None:
        return ruled.provenance in _STANDING_DEFAULTS
    if ruled.deciding.grant is not None:
        return False
    return rules is None or all(part.provenance.grant is None for part in rules.parts)


def _canonical(call: Call) -> str | None:
    """The arguments as one text that differs whenever they do (``None``: too long to keep)."""
    try:
        text = json.dumps(call.params, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):  # not JSON (a value the gateway never makes): not kept
        return None
    return text if len(text) <= MAX_ARGUMENTS_CHARS else None
