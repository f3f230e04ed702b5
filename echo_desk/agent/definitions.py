"""The provider-neutral tool definition the schema factory produces."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from echo_desk.tools.roles import ToolRole


@dataclass(frozen=True, kw_only=True)
class ToolDefinition:
    """What a model is told about one tool. ``parameters`` never contains hidden parameters.
    ``role`` is the tool's declared role: not sent to any model, it lets a provider choose what
    to offer by what a tool does rather than by its name."""

    name: str
    description: str
    parameters: dict[str, Any]
    role: ToolRole = ToolRole.UNKNOWN
    #: The parameters a small model is offered (``Tool.basic_parameters``; ``None``: all).
    basic_parameters: tuple[str, ...] | None = None
    #: The argument a search holds its query in, and whether it is a regular expression
    #: (``Tool.query_argument``; not sent to any model).
    query_argument: str | None = None
    query_is_regex: bool = False

    def basic(self) -> ToolDefinition:
        """This definition with only its basic parameters (itself when it declares none)."""
        if self.basic_parameters is None:
            return self
        keep = set(self.basic_parameters)
        properties = {k: v for k, v in (self.parameters.get("properties") or {}).items() if k in keep}
        parameters = {**self.parameters, "properties": properties}
        if "required" in parameters:
            parameters["required"] = [r for r in parameters["required"] if r in keep]
        return replace(self, parameters=parameters)


class SchemaConversionError(ValueError):
    """A tool's schema cannot be expressed for a provider. Names the tool; never a silent drop."""

    def __init__(self, tool_name: str, provider: str, reason: str) -> None:
        super().__init__(f"tool {tool_name!r} cannot be sent to {provider}: {reason}")
        self.tool_name = tool_name
        self.provider = provider
        self.reason = reason
