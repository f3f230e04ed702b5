"""What the widgets need from the engine, behind one small object.

``CatalogBackend`` wraps the engine's ``Runtime`` (registry, settings, breakers) so the catalog
and the transcript can ask for tools, titles, enabled state and breaker text without knowing
how the engine is wired. No Qt here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from echo_desk.agent.model import hidden_tools
from echo_desk.agent.permissions import ToolStanding
from echo_desk.agent.permissions.standing import tool_standing
from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.sources import ToolSource
from echo_desk.i18n import locale_dir_of, translate_in
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import Tool
from echo_desk.ui.core.labels import breaker_label

if TYPE_CHECKING:
    from echo_desk.agent.breaker import BreakerBoard
    from echo_desk.agent.model import ChatModel
    from echo_desk.agent.permissions import PermissionEngine
    from echo_desk.agent.registry import ToolRegistry
    from echo_desk.mcp.manager import McpManager
    from echo_desk.store.audit import AuditLog
    from echo_desk.store.settings import LocalModelSettings, ProviderSettings
    from echo_desk.tools.secrets import SecretStore


@dataclass(frozen=True)
class CatalogEntry:
    tool: Tool
    source: ToolSource

    def __post_init__(self) -> None:
        object.__setattr__(self, "source", ToolSource(self.source))  # a spelling is accepted and checked


class EngineLike(Protocol):
    """The parts of ``echo_desk.runtime.Runtime`` the UI uses."""

    settings: SettingsStore
    registry: ToolRegistry
    breakers: BreakerBoard
    audit: AuditLog
    #: The connected MCP servers (their icons, for the catalog), once attached.
    mcp: McpManager | None

    @property
    def permissions(self) -> PermissionEngine | None: ...

    def is_enabled(self, name: str) -> bool: ...

    def standing(self, name: str) -> ToolStanding | None: ...

    def standings(self, names: Iterable[str]) -> dict[str, ToolStanding]: ...


class ModelFactory(Protocol):
    """``echo_desk.providers.create_model``, named here because the providers load late."""

    def __call__(self, provider_settings: ProviderSettings, secrets: SecretStore | None = None, *,
                 local: LocalModelSettings | None = None) -> ChatModel: ...


class CatalogBackend:
    """Tools, their state and their text, for the catalog and the transcript."""

    def __init__(self, settings: SettingsStore, runtime: EngineLike | None = None,
                 entries: Iterable[CatalogEntry] | None = None) -> None:
        self.settings = settings
        self.runtime = runtime
        self._static = list(entries) if entries is not None else None
        self._index: dict[str, Tool] | None = None
        #: The connected chat model (the window keeps it current), asked which tools it hides.
        self.model: object | None = None

    def hidden_from_model(self, name: str) -> bool:
        """The connected model is not offered this tool (the engine's answer, its profile's)."""
        return name in hidden_tools(self.model)

    def entries(self) -> list[CatalogEntry]:
        if self._static is not None:
            return list(self._static)
        if self.runtime is None:
            return []
        return [CatalogEntry(e.tool, e.source) for e in self.runtime.registry.entries()]

    def source_icon(self, source: ToolSource) -> bytes | None:
        """An MCP server's own icon for its group in the catalog, once loaded."""
        manager = self.runtime.mcp if self.runtime is not None and source.server else None
        return manager.icon_of(source.server) if manager is not None else None

    def tool(self, name: str) -> Tool | None:
        if self._static is not None:
            if self._index is None:
                self._index = {e.tool.name: e.tool for e in self._static}
            return self._index.get(name)
        if self.runtime is None:
            return None
        found = self.runtime.registry.get(name)
        return found.tool if found is not None else None

    def standing(self, name: str, source: str = "") -> ToolStanding | None:
        """The engine's answer for a tool: enabled? what a call does by default? what decided?
        (``permissions.tool_standing``, the same function the dispatcher's checks follow)."""
        if self.runtime is not None:
            return self.runtime.standing(name)
        tool = self.tool(name)
        if tool is None:
            return None
        return tool_standing(RegisteredTool(tool, ToolSource(source or self._source_of(name))),
                             self.settings.current)

    def standings(self, sources: Mapping[str, str]) -> dict[str, ToolStanding]:
        """``standing`` for every tool in ``sources`` (name → source) in one pass."""
        if self.runtime is not None:
            return self.runtime.standings(sources)
        settings = self.settings.current
        answers: dict[str, ToolStanding] = {}
        for name, source in sources.items():
            tool = self.tool(name)
            if tool is not None:
                answers[name] = tool_standing(RegisteredTool(tool, ToolSource(source or "builtin")), settings)
        return answers

    def _source_of(self, name: str) -> str:
        return next((e.source for e in self.entries() if e.tool.name == name), "builtin")

    def is_enabled(self, name: str, source: str = "", capabilities: Iterable[str] = ()) -> bool:
        if self.runtime is not None:
            return bool(self.runtime.is_enabled(name))
        answer = self.standing(name, source)
        return answer is not None and answer.enabled

    def breaker_text(self, name: str) -> str:
        if self.runtime is None:
            return ""
        return breaker_label(self.runtime.breakers.status(name))

    @staticmethod
    def title(tool: Tool) -> str:
        return translate_in(tool.translation_domain, tool.display_title or tool.name, locale_dir_of(type(tool)))

    @staticmethod
    def description(tool: Tool) -> str:
        return translate_in(tool.translation_domain, tool.display_description or "", locale_dir_of(type(tool)))

    def source_for(self, name: str) -> ToolSource | None:
        """Where tool ``name`` comes from (built-in, plugin, MCP server), if it is registered."""
        if self._static is not None:
            return next((e.source for e in self._static if e.tool.name == name), None)
        if self.runtime is None:
            return None
        found = self.runtime.registry.get(name)
        return found.source if found is not None else None

    def integrity_warnings(self) -> dict[str, tuple[str, ...]]:
        """Why an MCP tool deserves a second look (same name as another server's, names another
        server's tool, hidden text, gives the model orders): ``echo_desk.mcp.integrity``, over
        the tools registered now. Reasons are deferred text (``shown()`` in the current language)."""
        from echo_desk.mcp.integrity import texts_of, tool_warnings

        found = tool_warnings(texts_of(entry.tool for entry in self.entries()))
        return {name: tuple(w.detail for w in warnings) for name, warnings in found.items()}

    def title_for(self, name: str) -> str:
        tool = self.tool(name)
        return self.title(tool) if tool is not None else name
