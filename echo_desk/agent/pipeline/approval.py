"""The approval step: the rules' verdict and the ruling on the previewed call, then refusing,
going on, or asking the person — and keeping what they chose (a grant, "always allow").

The answer must be to exactly what was shown (the request's binding); an edit in the dialog is
validated and previewed again, and only that version can be approved.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import json
import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from echo_desk.agent.envelope import DENIED_KEY
from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, NoOneToAsk
from echo_desk.agent.pipeline.call import Call, CallRecord, CallStopped, Decision
from echo_desk.agent.pipeline.execution import run_preview
from echo_desk.agent.policy import ApprovalVerdict, Ruling, approval_for
from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.revision import Revision, RevisionRefused, checked_arguments
from echo_desk.agent.scope import Scope
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.subagents import SpawnPreview
from echo_desk.common.hunks import bind_selection, selection_problem
from echo_desk.i18n import N_, deferred, for_person, locale_dir_of, quoted_later
from echo_desk.store.redact import redact
from echo_desk.store.settings import ToolPolicy
from echo_desk.tools.context import HunkSelection
from echo_desk.tools.results import ErrorKind, RiskLevel, ToolPreview

if TYPE_CHECKING:
    from echo_desk.agent.permissions.engine import PermissionEngine
    from echo_desk.agent.permissions.model import Suggestion
    from echo_desk.agent.permissions.model import Verdict as RulesVerdict
    from echo_desk.agent.permissions.subjects import Subject
    from echo_desk.store.grants import Grant, GrantScope

log = logging.getLogger(__name__)


def ruling(call: Call) -> tuple[RulesVerdict | None, Ruling]:
    """The rules' verdict and the approval ruling on the preview in ``call.ctx`` (on either
    thread: it reads an immutable settings snapshot and the thread-safe rules engine)."""
    rules = rules_verdict(call.services.permissions, call.scope, call.entry, call.params)
    return rules, approval_for(call.entry, call.risk, call.services.settings.current, call.scope,
                               call.ctx.preview, rules)


async def approve(call: Call, rules: RulesVerdict | None, ruled: Ruling) -> None:
    """Act on ``ruled`` (worked out from ``rules`` and the preview): refuse, go on, or ask."""
    record = call.record
    record.provenance = ruled.provenance
    record.deciding = ruled.deciding
    if ruled.verdict is ApprovalVerdict.DENY:
        record.decision = Decision.DENIED
        if ruled.deciding is not None:
            raise CallStopped(ErrorKind.REJECTED, for_person(f"refused by {ruled.provenance}",
                                                             N_("A permission rule refused this call: {rule}."),
                                                             rule=ruled.provenance))
        raise CallStopped(ErrorKind.REJECTED, for_person(f"tool '{call.name}' is set to 'Never' in settings",
                                                         N_("{name} is set to “Never” in Settings › Tools."),
                                                         name=quoted_later(call.name)))
    unrecorded = ""
    if ruled.verdict is ApprovalVerdict.AUTO:
        unrecorded = await _would_go_unrecorded(call)
        if not unrecorded:
            record.decision = Decision.AUTO
            return
        record.provenance = f"{ruled.provenance}; asked: the audit log cannot be written"
    if rules is None:
        # No rule names this tool, so none could decide; the person is asked anyway, and the
        # rules' view gives the dialog its per-part checks and the narrow rules to offer.
        rules = rules_verdict(call.services.permissions, call.scope, call.entry, call.params, for_dialog=True)
    current = Revision(dict(call.params), call.ctx.preview,
                       replace(approval_request(call, call.params, call.ctx.preview, rules), asked_because=unrecorded))
    current.request = replace(current.request, revise=_reviser(call, current))
    call.on_status(ToolStatus.WAITING_APPROVAL)
    try:
        decision = await call.host.request_approval(current.request)
    except NoOneToAsk as exc:
        record.decision, record.provenance = Decision.DENIED, f"no one to ask: {exc}"
        raise CallStopped(ErrorKind.REJECTED, str(exc)) from None
    except asyncio.CancelledError:
        # The dialog was open: "stopped before approval" would hide that the person was asked.
        record.decision = Decision.WITHDRAWN
        raise
    # Only the latest version the person saw (re-previewed after an edit) can be approved.
    request = current.request
    _check_answer(record, request, decision)
    record.decision = Decision.ALLOWED
    record.provenance = f"person: {decision.choice.value}"
    if unrecorded:
        record.provenance += " (asked: the audit log cannot be written)"
    record.deciding = None
    call.ctx.approved_by_person = True
    if current.edited:
        call.ctx.preview = current.preview
        call.params, call.edited = current.params, True
        shown = redact(current.params, call.tool.hidden_parameters)
        record.provenance += " (arguments edited by the person: " + json.dumps(shown, ensure_ascii=False,
                                                                                default=str) + ")"
    if decision.selection is not None:
        _take_selection(call, request, decision)
    _remember(call, decision)


async def _would_go_unrecorded(call: Call) -> str:
    """Why a call that would run without asking is asked instead, or ``""``: the audit log
    cannot be written (a full disk), and what runs unasked must leave a record. Reads change
    nothing and still run. The log is tried again first: there may be room by now."""
    audit = call.services.audit
    if audit is None or call.risk is RiskLevel.READ or not audit.failing:
        return ""
    await asyncio.to_thread(audit.wait_tried)
    if not audit.failing:
        return ""
    return deferred(N_("Asked because Echo Desk cannot write its activity log ({cause}): until it can, a call "
                       "that would run without asking is shown to you first."), cause=audit.failing)


def rules_verdict(engine: PermissionEngine | None, scope: Scope, entry: RegisteredTool, params: Mapping[str, Any],
                  *, for_dialog: bool = False) -> RulesVerdict | None:
    """The permission rules' verdict for a call (``None`` when no rule or grant names it,
    unless it is wanted ``for_dialog``: then it is worked out all the same)."""
    if engine is None:
        return None
    rule_names_for, subject_for, always_evaluated = _subjects()
    roots = scope.workspace_roots
    if not for_dialog and not always_evaluated(entry) and not engine.mentions(rule_names_for(entry), roots):
        return None
    subject = subject_for(entry, params)
    if scope.caller:  # rules may name the MCP client calling through the gateway
        subject = replace(subject, client=scope.caller)
    cwd = roots[0] / str(params.get("cwd", ".")) if subject.command and roots else None
    try:
        return engine.evaluate(subject, workspaces=roots, conversation_id=scope.conversation_id, cwd=cwd)
    except Exception as exc:  # a bug in the rules must not run anything unasked, nor crash the call
        log.exception("permission rules failed for %s", entry.name)
        from echo_desk.agent.permissions.model import Decider, Effect, Provenance, Verdict

        why = Provenance(kind=Decider.OPAQUE, detail=f"the permission rules failed ({type(exc).__name__}); asking")
        return Verdict(effect=Effect.ASK, provenance=why)


def attachment_roots(engine: PermissionEngine | None, scope: Scope, risk: RiskLevel,
                     params: Mapping[str, Any]) -> tuple[Path, ...]:
    """Outside files or folders a read call may reach: those the person attached with a read
    grant for this conversation (the rules still decide the call itself)."""
    if risk is not RiskLevel.READ or engine is None:
        return ()
    return _read_roots_for()(engine.active_grants(), scope.conversation_id, params.get("path"))


def approval_request(call: Call, params: Mapping[str, Any], preview: ToolPreview | None,
                     rules: RulesVerdict | None) -> ApprovalRequest:
    """What the person is shown, bound (by hash) to exactly these targets and changes."""
    entry, scope = call.entry, call.scope
    targets = preview.targets if preview else ()
    changes = preview.file_changes if preview else ()
    spawn = preview.spawn if isinstance(preview, SpawnPreview) else None
    shown = {
        "tool": entry.name,
        "arguments": params,
        "targets": [(t.kind, t.value, t.full_detail) for t in targets],
        "changes": [(c.path, c.kind.value, c.before_sha256, c.after_sha256) for c in changes],
        "spawn": dataclasses.asdict(spawn) if spawn is not None else None,
    }
    binding = hashlib.sha256(
        # surrogatepass: a file name that is not UTF-8 in what is shown is bound too, byte for byte.
        json.dumps(shown, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
    ).hexdigest()
    visible = {k: v for k, v in params.items() if k not in entry.tool.hidden_parameters}
    undo = call.services.undo
    return ApprovalRequest(
        call_id=call.record.call.id,
        tool_name=entry.name,
        tool_title=entry.tool.display_title,
        tool_domain=entry.tool.translation_domain,
        tool_locale_dir=locale_dir_of(type(entry.tool)),
        risk=call.risk,
        scope_id=scope.id,
        scope_label=scope.label,
        scope_chain=scope.chain,
        scope_links=scope.links,
        arguments=visible,
        targets=targets,
        file_changes=changes,
        summary=preview.summary if preview else "",
        binding=binding,
        source=entry.source,
        spawn=spawn,
        rules=rules,
        hunk_selectable=bool(changes) and entry.tool.writes_hunk_selection is True,
        parameters_schema=entry.tool.parameters,
        not_restorable=undo.over_the_cap(changes) if undo else (),
        client=scope.caller,
        shared_with_clients=bool(call.services.settings.current.gateway.clients),
    )


def _reviser(call: Call, current: Revision) -> Callable[[dict[str, Any]], Awaitable[ApprovalRequest]]:
    """What the dialog's "Edit" calls: the edited call validated, previewed and checked again;
    the re-previewed version becomes the only one that can be approved."""
    tool = call.tool

    async def revise(arguments: dict[str, Any]) -> ApprovalRequest:
        edited = checked_arguments(tool, arguments)
        for name in tool.hidden_parameters:
            edited[name] = call.scope.hidden.get(name, "")
        preview: ToolPreview | None = None
        if tool.has_preview:
            try:
                preview = await run_preview(call, edited, inline=call.entry.offloaded)
            except CallStopped as stop:
                raise RevisionRefused(stop.error) from None
        edited_rules = rules_verdict(call.services.permissions, call.scope, call.entry, edited, for_dialog=True)
        if approval_for(call.entry, call.risk, call.services.settings.current, call.scope, preview,
                        edited_rules).verdict is ApprovalVerdict.DENY:
            raise RevisionRefused(deferred(N_("the settings or rules refuse the edited call")))
        request = replace(approval_request(call, edited, preview, edited_rules), revise=revise,
                          asked_because=current.request.asked_because)
        current.params, current.preview, current.request, current.edited = edited, preview, request, True
        return request

    return revise


def _remember(call: Call, decision: ApprovalDecision) -> None:
    """Keep what the person chose beyond this call: a grant, or "always allow" in settings."""
    engine = call.services.permissions
    if decision.suggestion is not None and decision.grant_scope is not None and engine is not None:
        _store_grant(call, engine, decision.suggestion, decision.grant_scope)
    elif decision.choice is ApprovalChoice.ALLOW_CONVERSATION:
        if engine is not None:
            # A visible, revocable grant for the whole tool in this conversation (it
            # never covers a deny, an opaque command or a protected target).
            from echo_desk.agent.permissions.model import GrantScope as Scopes
            from echo_desk.agent.permissions.model import Suggestion as Made

            _store_grant(call, engine, Made(tool=call.name, pattern=None, label=call.name), Scopes.CONVERSATION)
        else:
            call.scope.root().session_grants.add(call.name)
    elif decision.choice is ApprovalChoice.ALWAYS_ALLOW:
        try:
            call.services.settings.set_tool(call.name, policy=ToolPolicy.ALWAYS)
        except OSError as exc:  # the call was approved; only "always" could not be kept: it asks next time
            log.warning("'always allow' not saved: %s", exc)
            call.record.provenance += f" (always allow not saved: {exc})"


def _store_grant(call: Call, engine: PermissionEngine, suggestion: Suggestion, scope: GrantScope) -> None:
    record, roots = call.record, call.scope.workspace_roots
    try:
        made = engine.grant(suggestion, scope, call_id=record.call.id, conversation_id=call.scope.conversation_id,
                            workspace=roots[0] if roots else None, client=call.scope.caller)
    except (ValueError, OSError, sqlite3.Error) as exc:  # the call was approved; only the grant failed (a full disk)
        log.warning("grant not stored: %s", exc)
        record.provenance += f" (grant not stored: {exc})"
        return
    grant_id = getattr(made, "id", None)
    if grant_id:
        record.provenance += f" (grant {grant_id})"


def _check_answer(record: CallRecord, request: ApprovalRequest, decision: ApprovalDecision) -> None:
    """Refuse an answer to something other than what was shown, and a denial."""
    if decision.binding != bind_selection(request.binding, decision.selection) or decision.call_id != request.call_id:
        # An answer to something other than what was shown is no answer.
        record.decision = Decision.DENIED
        record.provenance = "person: answer did not match the request shown"
        raise CallStopped(ErrorKind.REJECTED, for_person(
            "the approval did not match this call; nothing was done",
            N_("The answer did not match the call that was shown. Nothing was done.")))
    if not decision.allowed:
        record.decision = Decision.DENIED
        record.provenance = "person: denied"
        message = f": {decision.message}" if decision.message else ""
        # The card says it in the person's language from the metadata; the model reads the words.
        raise CallStopped(ErrorKind.REJECTED, for_person(f"the person denied this call{message}",
                                                         N_("You denied this call.")),
                          {DENIED_KEY: {"message": decision.message or ""}})


def _take_selection(call: Call, request: ApprovalRequest, decision: ApprovalDecision) -> None:
    """The hunks the person checked, if they match what was shown; else nothing is done."""
    assert decision.selection is not None
    record = call.record
    problem = (selection_problem(decision.selection, request.file_changes) if request.hunk_selectable
               else f"'{call.name}' cannot write part of its changes")
    if problem:
        record.decision, record.provenance = Decision.DENIED, f"person: selection refused ({problem})"
        raise CallStopped(ErrorKind.REJECTED, for_person(
            f"the hunk selection did not match what was shown: {problem}; nothing was done",
            N_("The changes you picked did not match what was shown ({problem}). Nothing was done."),
            problem=problem))
    call.ctx.hunk_selection = HunkSelection({p: frozenset(i) for p, i in decision.selection.items()}, decision.message)
    numbers = {c.path: {h.id: n for n, h in enumerate(c.hunks, 1)} for c in request.file_changes}
    record.provenance += " (hunks: " + "; ".join(
        f"{p}: {','.join(str(n) for n in sorted(numbers[p][i] for i in set(h))) or 'none'}"
        for p, h in decision.selection.items()) + ")"


@functools.cache
def _subjects() -> tuple[Callable[[RegisteredTool], frozenset[str]], Callable[[RegisteredTool, Mapping[str, Any]], Subject],
                        Callable[[RegisteredTool], bool]]:
    """The rules' view of a call, imported on first use: the permission engine (and its shell
    parser) loads only with a dispatcher that has one, and an import per call costs ~3 µs."""
    from echo_desk.agent.permissions.subjects import always_evaluated, rule_names_for, subject_for

    return rule_names_for, subject_for, always_evaluated


@functools.cache
def _read_roots_for() -> Callable[[list[Grant], str, object], tuple[Path, ...]]:
    from echo_desk.agent.attachments.reads import read_roots_for

    return read_roots_for
