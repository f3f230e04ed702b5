"""The schema factory: the tool definitions a model may see in a scope, and why others are hidden."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.converters import CONVERTERS, convert_each
from echo_desk.agent.definitions import SchemaConversionError, ToolDefinition
from echo_desk.agent.policy import effective_risk, grant_problem, is_enabled
from echo_desk.agent.readiness import readiness_of
from echo_desk.agent.registry import RegisteredTool, ToolRegistry
from echo_desk.agent.schema_checks import strip_hidden
from echo_desk.agent.scope import Scope
from echo_desk.i18n import for_model
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.tools.base import RESERVED_HIDDEN_PARAMETERS


@dataclass(frozen=True)
class Availability:
    name: str
    source: str
    visible: bool
    reason: str  # why it is hidden; '' when visible


class SchemaFactory:
    def __init__(self, registry: ToolRegistry, settings: SettingsStore, breakers: BreakerBoard) -> None:
        self.registry = registry
        self.settings = settings
        self.breakers = breakers

    def availability(self, scope: Scope | None = None) -> list[Availability]:
        settings = self.settings.current
        out: list[Availability] = []
        for entry in self.registry.entries():
            out.append(Availability(entry.name, entry.source, *self._why_hidden(entry, scope, settings)))
        return out

    def _why_hidden(self, entry: RegisteredTool, scope: Scope | None, settings: Settings) -> tuple[bool, str]:
        if not is_enabled(entry, settings):
            return False, "disabled in settings"
        if scope is not None:
            problem = grant_problem(entry, effective_risk(entry, settings), scope)
            if problem:
                return False, problem
        readiness = readiness_of(entry.tool)
        if not readiness.ready:
            return False, f"not ready: {for_model(readiness.detail)}"
        status = self.breakers.status(entry.name)
        if status.blocks:
            return False, f"paused after {status.consecutive_failures} failures"
        return True, ""

    def definitions(self, scope: Scope | None = None) -> list[ToolDefinition]:
        visible = {a.name for a in self.availability(scope) if a.visible}
        return [definition_of(e) for e in self.registry.entries() if e.name in visible]

    def for_provider(
        self, provider: str, scope: Scope | None = None
    ) -> tuple[list[dict[str, Any]], list[SchemaConversionError]]:
        """The definitions in ``provider``'s own format (openai, anthropic, gemini, bedrock),
        and a clear error for each tool that provider cannot take (never a silent drop)."""
        if provider not in CONVERTERS:
            raise ValueError(f"unknown provider {provider!r}; choose one of {', '.join(CONVERTERS)}")
        return convert_each(provider, self.definitions(scope))


def definition_of(entry: RegisteredTool) -> ToolDefinition:
    tool = entry.tool
    hidden = RESERVED_HIDDEN_PARAMETERS | set(tool.hidden_parameters)
    return ToolDefinition(name=tool.name, description=tool.description,
                          parameters=strip_hidden(tool.parameters, hidden), role=tool.role,
                          basic_parameters=tool.basic_parameters, query_argument=tool.query_argument,
                          query_is_regex=tool.query_is_regex)
