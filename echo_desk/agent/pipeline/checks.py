"""The refusals before anything of a call runs: unknown, disabled, not granted, not ready,
arguments that are not JSON, that set a hidden parameter or break the schema, a paused tool."""

from __future__ import annotations

import json
from typing import Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.pipeline.call import CallRecord, CallStopped
from echo_desk.agent.policy import effective_risk, grant_problem, is_enabled
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.schema_checks import describe_validation_error, validation_errors
from echo_desk.common.json_text import read_json
from echo_desk.store.settings import Settings
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS
from echo_desk.tools.results import ErrorKind, RiskLevel


def admitted(record: CallRecord, registry: ToolRegistry, settings: Settings) -> tuple[RegisteredTool, RiskLevel]:
    """The registered tool and the call's risk, once the tool is known, enabled, granted in
    the scope and ready."""
    name = record.call.name
    entry = registry.get(name)
    if entry is None:
        raise CallStopped(ErrorKind.UNKNOWN_TOOL, f"unknown tool '{name}'")
    record.entry = entry
    if not is_enabled(entry, settings):
        raise CallStopped(ErrorKind.DISABLED, f"tool '{name}' is disabled in settings")
    risk = effective_risk(entry, settings)
    problem = grant_problem(entry, risk, record.scope)
    if problem:
        raise CallStopped(ErrorKind.NOT_GRANTED, problem)
    if not entry.tool.is_ready():
        raise CallStopped(ErrorKind.DEPENDENCY, f"tool '{name}' is not ready: {entry.tool.readiness_detail()}")
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
        raise CallStopped(ErrorKind.REJECTED, f"tool '{approved.name}' changed while the approval was open "
                                              "(its definition or risk is not the one shown); nothing was run")
    return entry


def _definition(entry: RegisteredTool) -> tuple[object, ...]:
    tool = entry.tool
    return (entry.source, type(tool), tool.description, json.dumps(tool.parameters, sort_keys=True, default=str),
            getattr(tool, "definition_hash", None))


def parsed_arguments(record: CallRecord, entry: RegisteredTool) -> dict[str, Any]:
    """The model's arguments: a JSON object without hidden parameters, valid for the schema;
    the hidden parameters are then injected from the scope."""
    tool, raw = entry.tool, record.call.arguments
    try:
        params = read_json(raw) if raw.strip() else {}
    except json.JSONDecodeError as exc:
        record.arguments = {"_unparsed": raw[:2000]}
        raise CallStopped(ErrorKind.VALIDATION,
                          f"arguments are not valid JSON ({exc.msg} at position {exc.pos})") from None
    record.arguments = params
    if not isinstance(params, dict):
        raise CallStopped(ErrorKind.VALIDATION, f"arguments must be a JSON object, got {type(params).__name__}")
    if not RESERVED_HIDDEN_PARAMETERS.isdisjoint(params) or not params.keys().isdisjoint(tool.hidden_parameters):
        hidden = sorted(set(params) & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)))
        raise CallStopped(
            ErrorKind.VALIDATION,
            f"argument '{hidden[0]}' is not accepted: it is supplied by the application, not the model",
        )
    errors = validation_errors(tool.parameters, params)
    if errors:
        raise CallStopped(ErrorKind.VALIDATION, "; ".join(describe_validation_error(e) for e in errors[:5]))
    for name in tool.hidden_parameters:
        params[name] = record.scope.hidden.get(name, "")
    return params


def acquire_breaker(breakers: BreakerBoard, name: str) -> None:
    """Take the tool's breaker (a probe when it is half open); refuse while it is open."""
    if breakers.try_acquire(name):
        return
    status = breakers.status(name)
    raise CallStopped(
        ErrorKind.DEPENDENCY,
        f"tool '{name}' is paused after {status.consecutive_failures} failures "
        f"(last: {status.last_error or 'unknown'}); retry in {status.retry_in_seconds:.0f} s",
    )
