"""Editing a call's arguments in the approval dialog: the edited call is validated and
previewed again, and only that re-previewed version can be approved.

The dispatcher hands the dialog ``ApprovalRequest.revise``; each edit returns a new request
(new targets, diff and binding). The decision must answer the latest one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from jsonschema import ValidationError

from echo_desk.agent.host import ApprovalRequest
from echo_desk.agent.schema_checks import describe_validation_error, validation_errors
from echo_desk.i18n import N_, deferred, for_person
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS, Tool
from echo_desk.tools.results import ToolPreview


class RevisionRefused(Exception):
    """The edited arguments cannot be approved; the message says why (shown to the person)."""


@dataclass
class Revision:
    """The call as the person last saw it: the model's, or their own edit of it."""

    params: dict[str, Any]
    preview: ToolPreview | None
    request: ApprovalRequest
    edited: bool = False


def checked_arguments(tool: Tool, arguments: object) -> dict[str, Any]:
    """The edited arguments, held to the same checks as the model's (object, no hidden
    parameters, the tool's schema)."""
    if not isinstance(arguments, dict):
        raise RevisionRefused(deferred(N_("the arguments must be a JSON object")))
    hidden = sorted(set(arguments) & (RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)))
    if hidden:
        raise RevisionRefused(deferred(N_("argument {name} is supplied by the application and cannot be set"),
                                       name=hidden[0]))
    errors = validation_errors(tool.parameters, arguments)
    if errors:
        raise RevisionRefused(_for_person(errors[0], "; ".join(describe_validation_error(e) for e in errors[:5])))
    return dict(arguments)


def _for_person(error: ValidationError, model_text: str) -> str:
    """The first error in the person's words for the two mistakes an edit makes most (a name
    left out, a name the tool does not take); the validator's own sentence otherwise."""
    instance, expected = error.instance, error.validator_value
    if error.absolute_path or not isinstance(instance, dict):
        return model_text
    if error.validator == "required" and isinstance(expected, list):
        missing = tuple(n for n in expected if n not in instance)
        if missing:
            return for_person(model_text, N_("missing argument: {names}"), names=missing)
    if error.validator == "additionalProperties" and expected is False and isinstance(error.schema, dict):
        known = tuple(sorted(error.schema.get("properties") or {}))
        extra = tuple(n for n in instance if n not in known)
        if extra:
            return for_person(model_text, N_("the tool takes no argument {names} (it takes: {known})"),
                              names=extra, known=known)
    return model_text


def told_to_model(visible: dict[str, Any]) -> str:
    """The first line of the result the model gets when the person changed its arguments."""
    return ("The person edited the arguments of this call before approving it; these ran instead of yours: "
            + json.dumps(visible, ensure_ascii=False, sort_keys=True))
