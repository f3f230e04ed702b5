"""Editing a call's arguments in the approval dialog: the edited call is validated and
previewed again, and only that re-previewed version can be approved.

The dispatcher hands the dialog ``ApprovalRequest.revise``; each edit returns a new request
(new targets, diff and binding). The decision must answer the latest one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from echo_desk.agent.host import ApprovalRequest
from echo_desk.agent.schema_checks import validation_errors, validation_text
from echo_desk.i18n import N_, deferred
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
        raise RevisionRefused(validation_text(errors))
    return dict(arguments)


def told_to_model(visible: dict[str, Any]) -> str:
    """The first line of the result the model gets when the person changed its arguments."""
    return ("The person edited the arguments of this call before approving it; these ran instead of yours: "
            + json.dumps(visible, ensure_ascii=False, sort_keys=True))
