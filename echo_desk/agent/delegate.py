"""The ``delegate`` tool: hand a sub-task to a sub-agent whose grants only narrow.

The person approves the spawn with the manifest and the grants that will actually result in
front of them. The sub-agent runs its own loop through the same ``execute_tool``; its
approvals go to the same person, labelled with its goal. Its progress streams into the
``delegate`` card, and its final answer becomes this call's content.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from functools import partial
from typing import Any

from echo_desk.agent.dispatcher import Dispatcher
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import Host
from echo_desk.agent.loop import AgentLoop, NullListener
from echo_desk.agent.model import ChatMessage, ChatModel, ToolCall
from echo_desk.agent.policy import effective_risk
from echo_desk.agent.schema import SchemaFactory
from echo_desk.agent.scope import Scope, ScopedContext
from echo_desk.agent.subagents import (
    DEFAULT_SUBAGENT_SECONDS,
    DEFAULT_SUBAGENT_TURNS,
    Grants,
    Manifest,
    SpawnPreview,
    child_scope,
    narrow,
)
from echo_desk.common.explain import in_english
from echo_desk.i18n import deferred, for_person
from echo_desk.tools import (
    N_,
    ErrorKind,
    RiskLevel,
    Target,
    Tool,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    ToolRole,
)
from echo_desk.tools.planted import CheckedLater
from echo_desk.tools.sandbox_kept import capped

SUBAGENT_PROMPT = (
    "You are a sub-agent of Echo Desk working on one task for another agent. Use only the tools "
    "you were given. When you are done, answer with the result in plain text; that answer is "
    "all the other agent will see."
)


class DelegateTool(Tool):
    name = "delegate"
    description = (
        "Hand a self-contained sub-task to a sub-agent. It gets only the tools you list (never more "
        "than you have), read-only unless you ask for write roots inside your own, and limited "
        "turns and time. Returns the sub-agent's final answer."
    )
    parameters = {
        "type": "object",
        "properties": {
            "goal": {"type": "string", "minLength": 1, "maxLength": 2000,
                     "description": "What the sub-agent must do, self-contained."},
            "tools": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 32,
                      "description": "Names of the tools it needs."},
            "read_only": {"type": "boolean", "default": True},
            "write_roots": {"type": "array", "items": {"type": "string"}, "maxItems": 8,
                            "description": "Folders it may change (inside yours); ignored when read_only."},
            "max_turns": {"type": "integer", "minimum": 1, "maximum": 50, "default": DEFAULT_SUBAGENT_TURNS},
            "time_limit_seconds": {"type": "number", "minimum": 1, "maximum": 3600,
                                   "default": DEFAULT_SUBAGENT_SECONDS},
        },
        "required": ["goal", "tools"],
        "additionalProperties": False,
    }
    risk_level = RiskLevel.READ
    role = ToolRole.DELEGATE
    requires_approval = True
    stream_capable = True
    timeout_seconds = 3700.0  # the sub-agent's own time limit is enforced inside
    capabilities = frozenset({"agents"})
    title = N_("Delegate to a sub-agent")
    catalog_description = N_(
        "Lets the agent hand a sub-task to a sub-agent with fewer permissions. You approve each "
        "spawn, see what it was given, and approve its side effects like any other."
    )

    def __init__(self, services: DelegationServices) -> None:
        self.services = services

    def _manifest(self, params: Mapping[str, Any]) -> Manifest:
        return Manifest(
            goal=params["goal"],
            tools=tuple(params["tools"]),
            read_only=bool(params.get("read_only", True)),
            write_roots=tuple(params.get("write_roots", ())),
            max_turns=int(params.get("max_turns", DEFAULT_SUBAGENT_TURNS)),
            time_limit_seconds=float(params.get("time_limit_seconds", DEFAULT_SUBAGENT_SECONDS)),
        )

    def _grants(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> tuple[Scope, Manifest, Grants]:
        if not isinstance(ctx, ScopedContext):
            raise ToolError(for_person("delegate can only run inside an agent conversation",
                                       N_("A sub-agent can only be started inside an agent conversation.")),
                            kind=ErrorKind.VALIDATION)
        parent = ctx.scope
        manifest = self._manifest(params)
        return parent, manifest, narrow(parent, manifest, tool_risks=self.services.tool_risks())

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        _, manifest, grants = self._grants(params, ctx)
        # The write roots are the call's real targets; the rest of the manifest travels typed.
        targets = tuple(Target(kind="path", value=str(root), detail=deferred(N_("the sub-agent may write here")))
                        for root in grants.write_roots)
        return SpawnPreview(targets=targets, summary="\n".join([f"goal: {manifest.goal}", *grants.describe()]),
                            spawn=grants.for_approval(manifest.goal))

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        parent, manifest, grants = self._grants(params, ctx)
        if not grants.tools:
            raise ToolError(for_person(
                "no sub-agent started: none of the requested tools could be granted ("
                + "; ".join(map(str, grants.refused)) + ")",
                N_("No sub-agent was started: none of the tools it asked for could be given to it ({refused})."),
                refused=tuple(map(str, grants.refused))))
        if grants.max_turns < 1 or grants.time_limit_seconds <= 0:
            raise ToolError(for_person("no sub-agent started: the parent has no turns or time left",
                                       N_("No sub-agent was started: the conversation has no turns or time left.")))
        host = ctx.host
        if not isinstance(host, Host):
            raise ToolError(for_person("delegate needs a host that can ask the person for approvals",
                                       N_("A sub-agent needs a window that can ask you for approvals.")),
                            kind=ErrorKind.DEPENDENCY)
        child = child_scope(parent, manifest, grants, started_by=ctx.call_id)
        listener = _CardListener(ctx)
        ctx.emit(f"▶ sub-agent started — {'; '.join(grants.describe())}\n")
        model = self.services.model_factory()
        loop = AgentLoop(model, self.services.dispatcher, self.services.schema_factory,
                         max_turns=grants.max_turns)
        history = [ChatMessage(role="system", content=SUBAGENT_PROMPT),
                   ChatMessage(role="user", content=manifest.goal)]
        try:
            async with asyncio.timeout(grants.time_limit_seconds):
                outcome = await loop.run(history, child, host, listener)
        except TimeoutError:
            raise ToolError(for_person(f"the sub-agent ran out of time after {grants.time_limit_seconds:.0f} s",
                                       N_("The sub-agent ran out of time after {seconds} s."),
                                       seconds=f"{grants.time_limit_seconds:.0f}"), kind=ErrorKind.TIMEOUT) from None
        finally:
            await model.aclose()
        transcript, later_check = listener.returned()
        metadata = {"scope_id": child.id, "scope_chain": list(child.chain), "grants": grants.describe(),
                    "transcript": transcript}
        if not outcome.completed:
            return ToolResult(success=False, output=outcome.final_text,
                              error=for_person(f"sub-agent {in_english(outcome.error)}", N_("The sub-agent stopped: {error}"),
                                               error=outcome.error),
                              error_kind=ErrorKind.BUSINESS, metadata=metadata, later_check=later_check)
        return ToolResult.ok(outcome.final_text, metadata=metadata, later_check=later_check)


def _result_entry(call_id: str, envelope: Envelope) -> dict[str, Any]:
    """A result in the transcript, stored as a conversation keeps it (the card shows the error in
    the language of the moment), with the sandbox's facts its nested card shows, capped as the
    card keeps them (a call that planted thousands of files is stored with its first few and
    their count), and a nested sub-agent's transcript."""
    entry: dict[str, Any] = {"result": call_id, "envelope": envelope.to_stored_json()}
    sandbox = envelope.metadata.get("sandbox")
    if isinstance(sandbox, dict):
        entry["sandbox"] = capped(sandbox)
    # A ``delegate`` call of the sub-agent: the transcript of the sub-agent it started, kept
    # nested, so that its steps (and their checks, made late or at a start) are kept too.
    nested = envelope.metadata.get("transcript")
    if envelope.tool == DelegateTool.name and isinstance(nested, list):
        entry["transcript"] = nested
    return entry


def no_model() -> ChatModel:
    """The model factory until a model is connected: ``delegate`` is listed, starts nothing."""
    raise ToolError(for_person("no sub-agent started: no model is connected",
                               N_("No sub-agent was started: no model is connected.")), kind=ErrorKind.DEPENDENCY)


class DelegationServices:
    """What ``delegate`` needs from the running app, wired at start-up."""

    def __init__(
        self, *, model_factory: Callable[[], ChatModel], dispatcher: Dispatcher, schema_factory: SchemaFactory
    ) -> None:
        self.model_factory = model_factory
        self.dispatcher = dispatcher
        self.schema_factory = schema_factory

    def tool_risks(self) -> dict[str, RiskLevel]:
        settings = self.dispatcher.settings.current
        return {e.name: effective_risk(e, settings) for e in self.dispatcher.registry.entries()}


class _CardListener(NullListener):
    """Streams the sub-agent's progress into the parent's ``delegate`` card, and keeps its
    transcript, each call's result as its last check left it: a command whose sandbox still ran
    when its result went is checked when it ends (``Envelope.later_check``), maybe after the
    sub-agent returned; the ``delegate`` result then brings the parent's card (and the stored
    message) up to date through its own ``later_check``."""

    def __init__(self, ctx: ToolExecutionContext) -> None:
        self.ctx = ctx
        self.transcript: list[dict[str, Any]] = []
        # The checks end on any thread (the sandbox's own).
        self._lock = threading.Lock()
        self._unchecked: set[str] = set()
        self._returned: Future[CheckedLater] | None = None

    def returned(self) -> tuple[list[dict[str, Any]], Future[CheckedLater] | None]:
        """The transcript as the sub-agent returns, and, while a call's check is still to come,
        the future of the transcript once every such check has ended (for the parent's card)."""
        with self._lock:
            if self._unchecked:
                self._returned = Future()
            return list(self.transcript), self._returned

    def on_text(self, delta: str) -> None:
        self.ctx.emit(delta)

    def on_tool_call(self, call: ToolCall) -> None:
        self.ctx.emit(f"\n→ {call.name} {call.arguments}\n")
        self.transcript.append({"call": call.name, "arguments": call.arguments, "id": call.id})

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        mark = "✓" if envelope.ok else f"✗ {envelope.error_kind.value if envelope.error_kind else ''}"
        self.ctx.emit(f"  {mark} {envelope.tool}\n")
        with self._lock:
            self.transcript.append(_result_entry(call_id, envelope))
            if envelope.later_check is not None:
                self._unchecked.add(call_id)
        if envelope.later_check is not None:
            envelope.later_check.add_done_callback(partial(self._checked, call_id, envelope))

    def _checked(self, call_id: str, envelope: Envelope, later: Future[CheckedLater]) -> None:
        """A call's later check ended: its entry says what it found (a check that failed or was
        cancelled leaves it as it was, as the call's own card)."""
        with self._lock:
            if not later.cancelled() and later.exception() is None:
                entry = _result_entry(call_id, envelope.checked(later.result()))
                self.transcript = [entry if e.get("result") == call_id else e for e in self.transcript]
            self._unchecked.discard(call_id)
            told = self._returned if not self._unchecked else None
            transcript = list(self.transcript)
        if told is not None and not told.done():
            told.set_result(CheckedLater((), "", {"transcript": transcript}))

    def on_message(self, message: ChatMessage) -> None:
        if message.role == "assistant" and message.content:
            self.transcript.append({"assistant": message.content})

    def on_error(self, message: str) -> None:
        self.ctx.emit(f"\n⚠ {message}\n")

