"""Where a registered tool comes from: built in, a plugin, or an MCP server.

``ToolSource`` is a ``str`` holding the canonical spelling (``builtin``, ``plugin``,
``plugin:<name>``, ``mcp:<server>``), so settings (``disabled_sources``), the audit log and the
CLI's JSON keep the values they always had, while code reads ``kind`` and ``server`` instead
of cutting strings.
"""

from __future__ import annotations

import enum


class SourceKind(enum.StrEnum):
    BUILTIN = "builtin"
    PLUGIN = "plugin"
    MCP = "mcp"


class ToolSource(str):
    """A tool's origin; construct with :meth:`builtin`, :meth:`plugin` or :meth:`mcp`, or from
    the canonical spelling (anything else is refused)."""

    __slots__ = ("kind", "name")
    kind: SourceKind
    #: The plugin's or the MCP server's name ("" for the built-ins and unnamed plugins).
    name: str

    def __new__(cls, spelling: str) -> ToolSource:
        kind_text, _, name = str(spelling).partition(":")
        try:
            kind = SourceKind(kind_text)
        except ValueError:
            raise ValueError(f"not a tool source: {spelling!r} (builtin, plugin[:name] or mcp:<server>)") from None
        if (kind is SourceKind.BUILTIN and name) or (kind is SourceKind.MCP and not name):
            raise ValueError(f"not a tool source: {spelling!r}")
        self = super().__new__(cls, spelling)
        self.kind = kind
        self.name = name
        return self

    @classmethod
    def builtin(cls) -> ToolSource:
        return cls(SourceKind.BUILTIN.value)

    @classmethod
    def plugin(cls, name: str = "") -> ToolSource:
        return cls(f"plugin:{name}" if name else SourceKind.PLUGIN.value)

    @classmethod
    def mcp(cls, server: str) -> ToolSource:
        return cls(f"mcp:{server}")

    @property
    def server(self) -> str:
        """The MCP server's name ("" when the tool is not from an MCP server)."""
        return self.name if self.kind is SourceKind.MCP else ""


BUILTIN = ToolSource.builtin()
PLUGIN = ToolSource.plugin()
