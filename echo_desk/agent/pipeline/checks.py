"""The refusals before anything of a call runs: unknown, disabled, not granted, not ready,
arguments that are not JSON, that set a hidden parameter or break the schema, a paused tool."""

from __future__ import annotations

import json
from typing import Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.pipeline.call import CallRecord, CallStopped
from echo_desk.agent.policy import effective_risk, grant_problem, is_enabled
from echo_desk.agent.readiness import readiness_of
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.schema_checks import validation_errors, validation_text
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, deferred, for_model, for_person, quoted_later
from echo_desk.store.settings import Settings
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS
from echo_desk.tools.results import ErrorKind, RiskLevel


def admitted(record: CallRecord, registry: ToolRegistry, settings: Settings) -> tuple[RegisteredTool, RiskLevel]:
    """The registered tool and the call's risk, once the tool is known, enabled, granted in
    the scope and ready."""
    name = record.call.name
    entry = registry.get(name)
    if entry is None:
        raise CallStopped(ErrorKind.UNKNOWN_TOOL, for_person(f"unknown tool '{name}'",
                                                         N_("The agent called a tool that does not exist: {name}."),
                                                         name=quoted_later(name)))
    record.entry = entry
    if not is_enabled(entry, settings):
        raise CallStopped(ErrorKind.DISABLED, for_person(f"tool '{name}' is disabled in settings",
                                                     N_("{name} is switched off in Settings › Tools."),
                                                     name=quoted_later(name)))
    risk = effective_risk(entry, settings)
    problem = grant_problem(entry, risk, record.scope)
    if problem:
        raise CallStopped(ErrorKind.NOT_GRANTED, problem)
    readiness = readiness_of(entry.tool)
    if not readiness.ready:
        detail = readiness.detail
        raise CallStopped(ErrorKind.DEPENDENCY, for_person(f"tool '{name}' is not ready: {for_model(detail)}",
                                                           N_("{name} is not ready: {detail}"),
                                                           name=quoted_later(name), detail=detail))
    return entry, risk


def still_admitted(record: CallRecord, approved: RegisteredTool, risk: RiskLevel, registry: ToolRegistry,
                   settings: Settings) -> RegisteredTool:
    """The tool to run once the person said yes: admitted again (the catalog's switch, the
    scope's grant and readiness, which a pin blocks, may have changed while the dialog was
    open), and still the tool that was shown. A tool registered anew under the name with another
    definition or risk is not what was approved; the same definition again (a reconnect) is."""
    entry, now = admitted(record, registry, settings)
    if now is not risk or (entry is not approved and _definition(entry) != _definition(approved)):
        record.entry = approved
        raise CallStopped(ErrorKind.REJECTED, for_person(
            f"tool '{approved.name}' changed while the approval was open "
            "(its definition or risk is not the one shown); nothing was run",
            N_("{name} changed while you were deciding, so what you approved is not what would run. "
               "Nothing was run."), name=quoted_later(approved.name)))
    return entry


def _definition(entry: RegisteredTool) -> tuple[object, ...]:
    tool = entry.tool
    return (entry.source, type(tool), tool.description, json.dumps(tool.parameters, sort_keys=True, default=str),
            getattr(tool, "definition_hash", None))


def parsed_arguments(record: CallRecord, entry: RegisteredTool) -> dict[str, Any]:
    """The model's arguments: a JSON object without hidden parameters, valid for the schema;
    the hidden parameters are then injected from the scope."""
    tool, raw, given = entry.tool, record.call.arguments, record.call.parsed
    if given is not None:
        params: Any = dict(given)  # its own dict: the hidden parameters are added to it below
    else:
        try:
            params = read_json(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            record.arguments = {"_unparsed": raw[:2000]}
            raise CallStopped(ErrorKind.VALIDATION, for_person(
                f"arguments are not valid JSON ({exc.msg} at position {exc.pos})",
                N_("The agent's arguments are not valid JSON (at character {position})."), position=exc.pos)) from None
    record.arguments = params
    if not isinstance(params, dict):
        raise CallStopped(ErrorKind.VALIDATION, for_person(
            f"arguments must be a JSON object, got {type(params).__name__}",
            N_("The agent's arguments are not a JSON object.")))
    if not RESERVED_HIDDEN_PARAMETERS.isdisjoint(params) or not params.keys().isdisjoint(tool.hidden_parameters):
        hidden = sorted(set(params) & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)))
        raise CallStopped(ErrorKind.VALIDATION, for_person(
            f"argument '{hidden[0]}' is not accepted: it is supplied by the application, not the model",
            N_("argument {name} is supplied by the application and cannot be set"), name=hidden[0]))
    errors = validation_errors(tool.parameters, params)
    if errors:
        raise CallStopped(ErrorKind.VALIDATION, validation_text(errors))
    for name in tool.hidden_parameters:
        params[name] = record.scope.hidden.get(name, "")
    return params


def acquire_breaker(breakers: BreakerBoard, name: str) -> None:
    """Take the tool's breaker (a probe when it is half open); refuse while it is open."""
    if breakers.try_acquire(name):
        return
    status = breakers.status(name)
    last = status.last_error or deferred(N_("unknown"))
    raise CallStopped(ErrorKind.DEPENDENCY, for_person(
        f"tool '{name}' is paused after {status.consecutive_failures} failures "
        f"(last: {for_model(last)}); retry in {status.retry_in_seconds:.0f} s",
        N_("{name} is paused after {count} failures in a row (the last: {error}). "
           "It can be tried again in {seconds} s."),
        name=quoted_later(name), count=status.consecutive_failures, error=last,
        seconds=round(status.retry_in_seconds)))
