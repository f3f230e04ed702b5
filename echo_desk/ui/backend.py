"""What the widgets need from the engine, behind one small object.

``CatalogBackend`` wraps the engine's ``Runtime`` (registry, settings, breakers) so the catalog
and the transcript can ask for tools, titles, enabled state and breaker text without knowing
how the engine is wired. No Qt here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from echo_desk.agent.permissions import ToolStanding, tool_standing
from echo_desk.agent.registry import RegisteredTool
from echo_desk.i18n import _, translate_in
from echo_desk.store.settings import SettingsStore


@dataclass(frozen=True)
class CatalogEntry:
    tool: Any
    source: str


class EngineLike(Protocol):
    """The parts of ``echo_desk.runtime.Runtime`` the UI uses."""

    settings: SettingsStore
    registry: Any
    breakers: Any

    def is_enabled(self, name: str) -> bool: ...


class CatalogBackend:
    """Tools, their state and their text, for the catalog and the transcript."""

    def __init__(self, settings: SettingsStore, runtime: EngineLike | None = None,
                 entries: Iterable[CatalogEntry] | None = None) -> None:
        self.settings = settings
        self.runtime = runtime
        self._static = list(entries) if entries is not None else None
        self._index: dict[str, Any] | None = None

    def entries(self) -> list[CatalogEntry]:
        if self._static is not None:
            return list(self._static)
        if self.runtime is None:
            return []
        return [CatalogEntry(e.tool, e.source) for e in self.runtime.registry.entries()]

    def tool(self, name: str) -> Any | None:
        if self._static is not None:
            if self._index is None:
                self._index = {e.tool.name: e.tool for e in self._static}
            return self._index.get(name)
        if self.runtime is None:
            return None
        try:
            found = self.runtime.registry.get(name)
        except KeyError:
            return None
        return getattr(found, "tool", found)

    def standing(self, name: str, source: str = "") -> ToolStanding | None:
        """The engine's answer for a tool: enabled? what a call does by default? what decided?
        (``permissions.tool_standing``, the same function the dispatcher's checks follow)."""
        standing = getattr(self.runtime, "standing", None) if self.runtime is not None else None
        if callable(standing):
            answer = standing(name)
            if isinstance(answer, ToolStanding):
                return answer
        tool = self.tool(name)
        if tool is None:
            return None
        return tool_standing(RegisteredTool(tool, source or self._source_of(name)), self.settings.current)

    def _source_of(self, name: str) -> str:
        return next((e.source for e in self.entries() if e.tool.name == name), "builtin")

    def is_enabled(self, name: str, source: str = "", capabilities: Iterable[str] = ()) -> bool:
        if self.runtime is not None:
            return bool(self.runtime.is_enabled(name))
        answer = self.standing(name, source)
        return answer is not None and answer.enabled

    def breaker_text(self, name: str) -> str:
        breakers = getattr(self.runtime, "breakers", None) if self.runtime is not None else None
        if breakers is None:
            return ""
        try:
            status = breakers.status(name)
        except Exception:  # an engine without this breaker: nothing to say
            return ""
        state = str(getattr(status.state, "value", status.state))
        failures = int(status.consecutive_failures)
        if state == "open":
            return _("paused after {n} failures, retry in {s} s").format(
                n=failures, s=max(1, math.ceil(status.retry_in_seconds)))
        if state == "half_open":
            return _("trying again after {n} failures").format(n=failures)
        if failures:
            return _("{n} recent failures").format(n=failures)
        return ""

    @staticmethod
    def title(tool: Any) -> str:
        domain = getattr(tool, "translation_domain", "echo_desk")
        return translate_in(domain, getattr(tool, "display_title", "") or tool.name)

    @staticmethod
    def description(tool: Any) -> str:
        domain = getattr(tool, "translation_domain", "echo_desk")
        return translate_in(domain, getattr(tool, "display_description", "") or "")

    def title_for(self, name: str) -> str:
        tool = self.tool(name)
        return self.title(tool) if tool is not None else name
