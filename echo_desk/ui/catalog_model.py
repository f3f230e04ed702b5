"""The tools catalog as a Qt item model: sources as groups, tools as rows.

A ``QStandardItemModel`` so filtering runs in C++ over a prepared search role (a keystroke over
2,000 tools stays well under a frame). Every toggle goes straight to the ``SettingsStore``;
the model then re-reads the engine's view of what is enabled, so what you see is what the
engine will do.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRegularExpression,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel

from echo_desk.i18n import _
from echo_desk.store.settings import Settings, ToolPolicy
from echo_desk.ui import marshal
from echo_desk.ui.backend import CatalogBackend
from echo_desk.ui.labels import RISK_COLOURS, policy_label, risk_label, source_label

NameRole = Qt.ItemDataRole.UserRole + 10
SourceRole = Qt.ItemDataRole.UserRole + 11
SearchRole = Qt.ItemDataRole.UserRole + 12
PolicyRole = Qt.ItemDataRole.UserRole + 13

COL_TOOL, COL_DESCRIPTION, COL_RISK, COL_STATUS, COL_POLICY = range(5)


def _risk(tool: Any) -> str:
    risk = getattr(tool, "risk_level", "read")
    return str(getattr(risk, "value", risk))


class ToolCatalogModel(QStandardItemModel):
    def __init__(self, backend: CatalogBackend, parent: QObject | None = None) -> None:
        super().__init__(0, 5, parent)
        self.backend = backend
        self._syncing = False
        self._rows: dict[str, list[QStandardItem]] = {}
        self._groups: dict[str, QStandardItem] = {}
        self._tools: dict[str, Any] = {}
        self._sources: dict[str, str] = {}
        self.itemChanged.connect(self._on_item_changed)
        self._unsubscribe = backend.settings.subscribe(lambda s: marshal.run_on_main(self._on_settings, s))
        self.rebuild()

    def close(self) -> None:
        self._unsubscribe()

    # -- building ---------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Re-read the registry (tools come and go with MCP servers and plugins)."""
        self._syncing = True
        try:
            self.removeRows(0, self.rowCount())
            self._rows.clear()
            self._groups.clear()
            self._tools.clear()
            by_source: dict[str, list[Any]] = defaultdict(list)
            for entry in self.backend.entries():
                by_source[entry.source].append(entry.tool)
            order = sorted(by_source, key=lambda s: (s != "builtin", s.startswith("mcp:"), s))
            root = self.invisibleRootItem()
            for source in order:
                group = QStandardItem()
                group.setData(source, SourceRole)
                group.setCheckable(True)
                group.setEditable(False)
                font = group.font()
                font.setBold(True)
                group.setFont(font)
                filler = [QStandardItem() for _ in range(4)]
                for f in filler:
                    f.setEditable(False)
                self._groups[source] = group
                tools = sorted(by_source[source], key=lambda t: t.name)
                children = []
                for tool in tools:
                    row = self._make_row(tool, source)
                    children.append(row)
                for row in children:
                    group.appendRow(row)
                root.appendRow([group, *filler])
        finally:
            self._syncing = False
        self.retranslate()

    def _make_row(self, tool: Any, source: str) -> list[QStandardItem]:
        name = tool.name
        self._tools[name] = tool
        self._sources[name] = source
        cells = [QStandardItem() for _ in range(5)]
        for cell in cells:
            cell.setEditable(False)
            cell.setData(name, NameRole)
        cells[COL_TOOL].setCheckable(True)
        cells[COL_POLICY].setEditable(True)
        risk = _risk(tool)
        cells[COL_RISK].setForeground(QBrush(QColor(RISK_COLOURS.get(risk, "#57606a"))))
        cells[COL_RISK].setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        self._rows[name] = cells
        return cells

    # -- text -------------------------------------------------------------------------------
    def retranslate(self) -> None:
        """Titles, descriptions, badges and the search text in the current language."""
        self._syncing = True
        try:
            self.setHorizontalHeaderLabels([_("Tool"), _("Description"), _("Risk"), _("Status"), _("Approval")])
            for source, group in self._groups.items():
                group.setText(_("{source} ({count} tools)").format(source=source_label(source),
                                                                   count=group.rowCount()))
                group.setToolTip(_("Turn every tool of this source on or off"))
            for name, cells in self._rows.items():
                tool = self._tools[name]
                title = self.backend.title(tool)
                description = self.backend.description(tool)
                cells[COL_TOOL].setText(title)
                cells[COL_TOOL].setToolTip(name)
                cells[COL_TOOL].setData(_("Enable {tool}").format(tool=title), Qt.ItemDataRole.AccessibleTextRole)
                cells[COL_DESCRIPTION].setText(description)
                cells[COL_DESCRIPTION].setToolTip(description)
                cells[COL_RISK].setText(risk_label(_risk(tool)))
                tags = " ".join(f"#{c}" for c in sorted(getattr(tool, "capabilities", ()) or ()))
                english = f"{tool.name} {getattr(tool, 'display_title', '')} {getattr(tool, 'description', '')}"
                cells[COL_TOOL].setData(f"{name} {title} {description} {english} {tags} ".lower(), SearchRole)
        finally:
            self._syncing = False
        self.refresh_states()
        self.refresh_status()

    def refresh_states(self) -> None:
        """Check marks and policies from the settings (and the engine's enabled rule)."""
        settings = self.backend.settings.current
        self._syncing = True
        try:
            for source, group in self._groups.items():
                state = Qt.CheckState.Unchecked if source in settings.disabled_sources else Qt.CheckState.Checked
                if group.checkState() != state:
                    group.setCheckState(state)
            for name, cells in self._rows.items():
                tool = self._tools[name]
                on = self.backend.is_enabled(name, self._sources[name], getattr(tool, "capabilities", ()))
                state = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
                if cells[COL_TOOL].checkState() != state:
                    cells[COL_TOOL].setCheckState(state)
                policy = settings.tool(name).policy
                value = policy.value if policy is not None else ""
                effective = value or ("always" if _risk(tool) == "read" else "ask")
                text = policy_label(effective) if value else _("Default ({policy})").format(policy=policy_label(effective))
                if cells[COL_POLICY].data(PolicyRole) != value or cells[COL_POLICY].text() != text:
                    cells[COL_POLICY].setData(value, PolicyRole)
                    cells[COL_POLICY].setText(text)
        finally:
            self._syncing = False

    def refresh_status(self) -> None:
        """Readiness and breaker text (called on a timer while the catalog is visible)."""
        self._syncing = True
        try:
            for name, cells in self._rows.items():
                tool = self._tools[name]
                parts = []
                try:
                    if not tool.is_ready():
                        parts.append(tool.readiness_detail() or _("Not ready"))
                except Exception as exc:  # a broken readiness check is itself worth showing
                    parts.append(_("Readiness check failed: {error}").format(error=exc))
                breaker = self.backend.breaker_text(name)
                if breaker:
                    parts.append(breaker)
                text = " · ".join(parts) if parts else _("Ready")
                if cells[COL_STATUS].text() != text:
                    cells[COL_STATUS].setText(text)
                    cells[COL_STATUS].setForeground(QBrush(QColor("#1a7f37" if not parts else "#9a6700")))
        finally:
            self._syncing = False

    # -- changes from the person ------------------------------------------------------------
    def _on_item_changed(self, item: QStandardItem) -> None:
        if self._syncing:
            return
        source = item.data(SourceRole)
        if source is not None and item.parent() is None:
            self.set_source_enabled(str(source), item.checkState() == Qt.CheckState.Checked)
            return
        name = item.data(NameRole)
        if name is None:
            return
        if item.column() == COL_TOOL:
            self.set_tool_enabled(str(name), item.checkState() == Qt.CheckState.Checked)

    def set_tool_enabled(self, name: str, enabled: bool) -> None:
        self.backend.settings.set_tool(name, enabled=enabled)

    def set_source_enabled(self, source: str, enabled: bool) -> None:
        def change(s: Settings) -> None:
            disabled = [x for x in s.disabled_sources if x != source]
            if not enabled:
                disabled.append(source)
            s.disabled_sources = disabled

        self.backend.settings.update(change)

    def set_policy(self, name: str, policy: str) -> None:
        self.backend.settings.set_tool(name, policy=ToolPolicy(policy) if policy else None)

    def _on_settings(self, _settings: Settings) -> None:
        self.refresh_states()

    # -- queries ----------------------------------------------------------------------------
    def tool_index(self, name: str) -> QModelIndex:
        cells = self._rows.get(name)
        return cells[COL_TOOL].index() if cells else QModelIndex()

    def group_index(self, source: str) -> QModelIndex:
        group = self._groups.get(source)
        return group.index() if group else QModelIndex()

    def capability_tags(self) -> list[str]:
        tags: set[str] = set()
        for tool in self._tools.values():
            tags.update(getattr(tool, "capabilities", ()) or ())
        return sorted(tags)

    def tool_names(self) -> list[str]:
        return list(self._rows)


class CatalogFilter(QSortFilterProxyModel):
    """Text and capability-tag filter, evaluated by Qt over ``SearchRole``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setFilterRole(SearchRole)
        self.setFilterKeyColumn(COL_TOOL)
        self.setRecursiveFilteringEnabled(True)
        self.setAutoAcceptChildRows(False)
        self._text = ""
        self._tag = ""

    def set_filter(self, text: str | None = None, tag: str | None = None) -> None:
        if text is not None:
            self._text = text.strip().lower()
        if tag is not None:
            self._tag = tag
        lookaheads = [f"(?=.*{re.escape(word)})" for word in self._text.split()]
        if self._tag:
            lookaheads.append(f"(?=.*#{re.escape(self._tag.lower())} )")
        pattern = "^" + "".join(lookaheads) if lookaheads else ""
        self.setFilterRegularExpression(QRegularExpression(
            pattern, QRegularExpression.PatternOption.DotMatchesEverythingOption))

    def lessThan(self, left: QModelIndex | QPersistentModelIndex, right: QModelIndex | QPersistentModelIndex) -> bool:
        return str(left.data()).lower() < str(right.data()).lower()
