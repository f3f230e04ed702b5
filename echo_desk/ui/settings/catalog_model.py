"""The tools catalog as a Qt item model: sources as groups, tools as rows.

A ``QStandardItemModel`` so filtering runs in C++ over a prepared search role (a keystroke over
2,000 tools stays well under a frame). Every toggle goes straight to the ``SettingsStore``;
the model then re-reads the engine's view of what is enabled, so what you see is what the
engine will do.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    Qt,
)
from PySide6.QtGui import QBrush, QColor, QIcon, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QApplication, QStyle, QTreeView

from echo_desk.agent.permissions import ToolStanding
from echo_desk.agent.readiness import readiness_of
from echo_desk.agent.sources import SourceKind, ToolSource
from echo_desk.common.visible_text import visible
from echo_desk.gateway.clients import display_name
from echo_desk.gateway.view import NotOffered, not_offered, set_offered
from echo_desk.i18n import N_, _, said_by_tool, shown
from echo_desk.store.settings import Settings, ToolPolicy
from echo_desk.tools import Tool
from echo_desk.ui.core import marshal, theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.core.labels import (
    DEFAULT_POLICIES,
    approval_label,
    not_ready_label,
    risk_colour,
    risk_label,
    source_label,
)
from echo_desk.ui.core.remote_icons import blank_icon, remote_icon
from echo_desk.ui.widgets.failure_text import failure_reason, failure_tip
from echo_desk.ui.widgets.full_text_box import plain_tooltip

NameRole = Qt.ItemDataRole.UserRole + 10
SourceRole = Qt.ItemDataRole.UserRole + 11
SearchRole = Qt.ItemDataRole.UserRole + 12
PolicyRole = Qt.ItemDataRole.UserRole + 13
#: The risk level a row shows (``read``/``write``/``exec``): its colour is looked up per theme.
RiskRole = Qt.ItemDataRole.UserRole + 14
#: Whether a row's status is "Ready" (the theme's ok colour) or a warning.
ReadyRole = Qt.ItemDataRole.UserRole + 15
#: The integrity warnings of an MCP tool (reasons, in the current language): a badge on the row.
WarningsRole = Qt.ItemDataRole.UserRole + 16

COL_TOOL, COL_DESCRIPTION, COL_RISK, COL_STATUS, COL_POLICY, COL_CLIENT = range(6)
#: Why a client does not see a tool, as the per-client column says it.
_NOT_OFFERED = {
    NotOffered.HIDDEN: N_("Switched off for this client"),
    NotOffered.BUILTINS_OFF: N_("Echo Desk's own tools are off for this client"),
    NotOffered.CHAT_ONLY: N_("Only in Echo Desk's own chat"),
    NotOffered.DATABASE_WRITES_OFF: N_("Database writes are off for this client (read-only)"),
}
_FEW = 64


def _show_risk(cell: QStandardItem, risk: str) -> None:
    cell.setText(risk_label(risk))
    cell.setData(risk, RiskRole)
    cell.setForeground(QBrush(QColor(risk_colour(risk))))


def _warning_icon() -> QIcon:
    style = QApplication.style()
    return style.standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)


def _readiness_failed(exc: Exception) -> str:
    """A tool's readiness check that raised, in the person's language: the exception's English
    (a developer's words) is kept for the tooltip (``failure_tip``), not put in the cell. A check
    runs programs: a missing one is "command not found"."""
    return _("Readiness check failed: {error}").format(error=failure_reason(exc, running=True))


def _status_colour(ready: bool) -> QColor:
    return QColor(theme.colour("ok" if ready else "warn"))


class ToolCatalogModel(QStandardItemModel):
    def __init__(self, backend: CatalogBackend, parent: QObject | None = None) -> None:
        super().__init__(0, 6, parent)
        self.backend = backend
        #: The MCP client whose view the last column shows (``Settings.gateway.clients``), if any.
        self.client: str | None = None
        self._syncing = False
        self._rows: dict[str, list[QStandardItem]] = {}
        self._groups: dict[ToolSource, QStandardItem] = {}
        self._tools: dict[str, Tool] = {}
        self._sources: dict[str, str] = {}
        self._search: dict[str, str] = {}
        #: ``echo_desk.mcp.integrity`` warnings per tool, worked out when the rows are (re)built.
        self._warnings: dict[str, tuple[str, ...]] = {}
        self._icon_keys: dict[str, tuple[int | None, bool]] = {}
        self.itemChanged.connect(self._on_item_changed)
        self._unsubscribe = backend.settings.subscribe(lambda s: marshal.run_on_main(self._on_settings, s))
        # Colours are the theme's: a light/dark switch repaints the open catalog in the new ones.
        theme.on_change(self, lambda _palette: self._bulk(self._fill_colours))
        self.rebuild()

    def close(self) -> None:
        self._unsubscribe()

    # -- building ---------------------------------------------------------------------------
    def rebuild(self) -> None:
        """Re-read the registry (tools come and go with MCP servers and plugins).

        Rows are filled before they enter the model, so building 2,000 rows emits no per-cell
        signals.
        """
        self.removeRows(0, self.rowCount())
        self._rows.clear()
        self._icon_keys.clear()
        self._groups.clear()
        self._tools.clear()
        by_source: dict[ToolSource, list[Tool]] = defaultdict(list)
        for entry in self.backend.entries():
            by_source[entry.source].append(entry.tool)
        order = sorted(by_source, key=lambda s: (s.kind is not SourceKind.BUILTIN, s.kind is SourceKind.MCP, s))
        groups = []
        for source in order:
            group = QStandardItem()
            group.setData(source, SourceRole)
            group.setCheckable(True)
            group.setEditable(False)
            font = group.font()
            font.setBold(True)
            group.setFont(font)
            filler = [QStandardItem() for _ in range(5)]
            for f in filler:
                f.setEditable(False)
            self._groups[source] = group
            for tool in sorted(by_source[source], key=lambda t: t.name):
                group.appendRow(self._make_row(tool, source))
            groups.append([group, *filler])
        standings = self._standings()  # one pass of the engine's answers for both fills
        self._fill_texts(standings)
        self._fill_states(standings)
        self._fill_status()
        self._fill_client()
        self._syncing = True
        try:
            for row in groups:
                self.invisibleRootItem().appendRow(row)
        finally:
            self._syncing = False
        self._set_headers()

    def _make_row(self, tool: Tool, source: str) -> list[QStandardItem]:
        name = tool.name
        self._tools[name] = tool
        self._sources[name] = source
        cells = [QStandardItem() for _ in range(6)]
        for cell in cells:
            cell.setEditable(False)
            cell.setData(name, NameRole)
        cells[COL_TOOL].setCheckable(True)
        cells[COL_CLIENT].setCheckable(True)
        cells[COL_POLICY].setEditable(True)
        cells[COL_RISK].setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        self._rows[name] = cells
        return cells

    def _standings(self) -> dict[str, ToolStanding]:
        """The engine's answer for every row, asked once per refresh (not once per cell)."""
        return self.backend.standings(self._sources)

    def _bulk(self, fill: Callable[[], list[QStandardItem]]) -> None:
        """Run an update with per-cell signals off, then tell the views as cheaply as possible:
        a few cells one by one, a mass change (a language switch) as one layout change."""
        self._syncing = True
        blocked = self.blockSignals(True)
        try:
            changed = fill()
        finally:
            self.blockSignals(blocked)
        try:
            if len(changed) > _FEW:
                self.layoutAboutToBeChanged.emit()
                self.layoutChanged.emit()
            else:
                for item in changed:
                    item.emitDataChanged()
        finally:
            self._syncing = False

    # -- text -------------------------------------------------------------------------------
    def _set_headers(self) -> None:
        seen_by = (_("Seen by {client}").format(client=visible(display_name(self.client), one_line=True))
                   if self.client else "")
        self.setHorizontalHeaderLabels([_("Tool"), _("Description"), _("Risk"), _("Status"), _("Approval"), seen_by])

    def retranslate(self) -> None:
        """Titles, descriptions, badges and the search text in the current language."""
        self._set_headers()
        standings = self._standings()
        self._bulk(lambda: self._fill_texts(standings))
        self._bulk(lambda: self._fill_states(standings))
        self._bulk(self._fill_status)
        self._bulk(self._fill_client)

    # -- one MCP client's view (the gateway) ------------------------------------------------
    def set_client(self, client: str | None) -> None:
        """Show in the last column what ``client`` sees (``None``: no client, the column is empty)."""
        self.client = client
        self._set_headers()
        self._bulk(self._fill_client)

    def _fill_client(self) -> list[QStandardItem]:
        """The client's switch per tool: checked when its profile offers the tool (the catalog's
        own switch still applies on top); greyed, with the reason, when the profile cannot."""
        profile = self.backend.settings.current.gateway.client(self.client) if self.client else None
        changed: list[QStandardItem] = []
        for name, cells in self._rows.items():
            cell = cells[COL_CLIENT]
            why = not_offered(name, self._sources[name], profile) if profile is not None else None
            state = Qt.CheckState.Checked if profile is not None and why is None else Qt.CheckState.Unchecked
            # The person can switch a tool back on unless the profile keeps its kind away as a whole.
            usable = profile is not None and why not in (NotOffered.BUILTINS_OFF, NotOffered.CHAT_ONLY)
            tip = _(_NOT_OFFERED[why]) if why is not None and profile is not None else ""
            if cell.checkState() != state or cell.isEnabled() != usable or cell.toolTip() != tip:
                cell.setCheckState(state)
                cell.setEnabled(usable)
                cell.setToolTip(tip)
                cell.setData(tip or None, Qt.ItemDataRole.AccessibleDescriptionRole)
                changed.append(cell)
        return changed

    def _fill_texts(self, standings: dict[str, ToolStanding] | None = None) -> list[QStandardItem]:
        for source, group in self._groups.items():
            group.setText(_("{source} ({count})").format(source=source_label(source), count=group.rowCount()))
            group.setToolTip(_("Turn every tool of this source on or off"))
        if standings is None:
            standings = self._standings()
        self._warnings = {name: tuple(shown(w) for w in reasons)
                          for name, reasons in self.backend.integrity_warnings().items() if name in self._rows}
        for name, cells in self._rows.items():
            tool = self._tools[name]
            standing = standings.get(name)
            title = self.backend.title(tool)
            description = self.backend.description(tool)
            cells[COL_TOOL].setText(visible(title, one_line=True))
            warnings = self._warnings.get(name, ())
            cells[COL_TOOL].setData(warnings or None, WarningsRole)
            # A registry name is [A-Za-z0-9_-] only; the reasons name servers and tools: plain text.
            cells[COL_TOOL].setToolTip(plain_tooltip("\n".join([name, *(_("Warning: {reason}").format(
                reason=visible(w, one_line=True)) for w in warnings)])) if warnings else name)
            cells[COL_TOOL].setData(_("Enable {tool}").format(tool=title), Qt.ItemDataRole.AccessibleTextRole)
            cells[COL_DESCRIPTION].setText(visible(description, one_line=True))
            # Plain text: an HTML comment in a server's description must not hide from the
            # person what the model reads.
            cells[COL_DESCRIPTION].setToolTip(plain_tooltip(description))
            # The effective risk the engine uses (the person may lower an MCP tool's).
            _show_risk(cells[COL_RISK], standing.risk if standing is not None else tool.risk_level)
            tags = " ".join(f"#{c}" for c in sorted(tool.capabilities))
            english = f"{tool.name} {tool.display_title} {tool.description}"
            search = f"{name} {title} {description} {english} {tags} ".lower()
            cells[COL_TOOL].setData(search, SearchRole)
            self._search[name] = search
        return [cell for cells in self._rows.values() for cell in cells] + list(self._groups.values())

    def refresh_states(self) -> None:
        """Check marks and policies from the settings (and the engine's enabled rule)."""
        self._bulk(self._fill_states)

    def _fill_states(self, standings: dict[str, ToolStanding] | None = None) -> list[QStandardItem]:
        settings = self.backend.settings.current
        changed: list[QStandardItem] = []
        if standings is None:
            standings = self._standings()
        for source, group in self._groups.items():
            state = Qt.CheckState.Unchecked if source in settings.disabled_sources else Qt.CheckState.Checked
            if group.checkState() != state:
                group.setCheckState(state)
                changed.append(group)
        for name, cells in self._rows.items():
            tool = self._tools[name]
            # The engine's own answers (effective risk included: an MCP tool the person lowered
            # to read runs without asking), never a re-computation here.
            standing = standings.get(name)
            on = standing is not None and standing.enabled
            state = Qt.CheckState.Checked if on else Qt.CheckState.Unchecked
            if cells[COL_TOOL].checkState() != state:
                cells[COL_TOOL].setCheckState(state)
                changed.append(cells[COL_TOOL])
            policy = settings.tool(name).policy
            value = policy.value if policy is not None else ""
            default = standing.default.value if standing is not None else "asks"
            risk = standing.risk if standing is not None else tool.risk_level
            if cells[COL_RISK].data(RiskRole) != risk or cells[COL_RISK].text() != risk_label(risk):
                _show_risk(cells[COL_RISK], risk)
                changed.append(cells[COL_RISK])
            text = approval_label(value or DEFAULT_POLICIES[default], explicit=bool(value))
            if standing is not None and standing.rule_count:
                # How many permission rules mention the tool (the engine counts; Settings › Permissions lists them).
                text += " · " + _("rules: {n}").format(n=standing.rule_count)
            if cells[COL_POLICY].data(PolicyRole) != value or cells[COL_POLICY].text() != text:
                cells[COL_POLICY].setData(value, PolicyRole)
                cells[COL_POLICY].setText(text)
                changed.append(cells[COL_POLICY])
        return changed

    def refresh_status(self) -> None:
        """Readiness and breaker text (called on a timer while the catalog is visible)."""
        self._bulk(self._fill_status)

    def _fill_status(self) -> list[QStandardItem]:
        changed: list[QStandardItem] = [
            group for source, group in self._groups.items()
            if self._fill_icon(f"source {source}", group, self.backend.source_icon(source))
        ]
        for name, cells in self._rows.items():
            tool = self._tools[name]
            parts = []
            detail_tip = ""
            readiness = readiness_of(tool)
            if readiness.error is not None:  # a broken readiness check is itself worth showing
                parts.append(_readiness_failed(readiness.error))
                detail_tip = failure_tip(readiness.error)
            elif not readiness.ready:
                # A plugin's detail is a message id of its own catalog (ours are translated already);
                # Echo Desk's own may be English for the model, said to the person with ``for_person``.
                why = said_by_tool(tool, readiness.detail)
                parts.append(not_ready_label(why))
            offline = getattr(tool, "offline_detail", None)  # an MCP tool's server that failed
            if callable(offline) and (note := offline()):
                parts.append(shown(note))
            breaker = self.backend.breaker_text(name)
            if breaker:
                parts.append(breaker)
            if self.backend.hidden_from_model(name):
                parts.append(_("Hidden from this model"))
            warnings = self._warnings.get(name, ())
            if warnings:
                # A badge with the first reason; the tool's tooltip lists them all.
                parts.append("⚠ " + _("Warning: {reason}").format(reason=visible(warnings[0], one_line=True)))
            text = " · ".join(parts) if parts else _("Ready")
            # A narrow column elides a long status: the whole of it on hover (a failed check's
            # technical detail instead, which its sentence leads into).
            detail_tip = detail_tip or (plain_tooltip(text) if parts else "")
            if self._fill_icon(name, cells[COL_TOOL], tool.display_icon, keep_place=self._from_mcp(name)):
                changed.append(cells[COL_TOOL])
            if cells[COL_STATUS].text() != text or cells[COL_STATUS].toolTip() != detail_tip:
                cells[COL_STATUS].setText(text)
                cells[COL_STATUS].setToolTip(detail_tip)
                cells[COL_STATUS].setData(not parts, ReadyRole)
                cells[COL_STATUS].setForeground(QBrush(_status_colour(not parts)))
                changed.append(cells[COL_STATUS])
        return changed

    def _fill_icon(self, name: str, cell: QStandardItem, data: bytes | None, *, keep_place: bool = False) -> bool:
        """The tool's own icon (an MCP server's, loaded in the background) once it is there; an
        MCP tool without one keeps the place blank so the names of a server's tools line up. An
        integrity warning's badge takes the place of the server's icon: the server chose that one."""
        warned = bool(self._warnings.get(name))
        key = (hash(data) if data else None, warned)
        if name in self._icon_keys and self._icon_keys[name] == key:
            return False
        self._icon_keys[name] = key
        icon = _warning_icon() if warned else remote_icon(data)
        cell.setIcon(icon if icon is not None else blank_icon() if keep_place else QIcon())
        return True

    def _from_mcp(self, name: str) -> bool:
        return self._sources.get(name, "").startswith(f"{SourceKind.MCP.value}:")

    def _fill_colours(self) -> list[QStandardItem]:
        """Every coloured cell in the current theme's colours (after a light/dark switch)."""
        changed: list[QStandardItem] = []
        for cells in self._rows.values():
            risk = cells[COL_RISK].data(RiskRole)
            if risk is not None:
                cells[COL_RISK].setForeground(QBrush(QColor(risk_colour(str(risk)))))
                changed.append(cells[COL_RISK])
            ready = cells[COL_STATUS].data(ReadyRole)
            if ready is not None:
                cells[COL_STATUS].setForeground(QBrush(_status_colour(bool(ready))))
                changed.append(cells[COL_STATUS])
        return changed

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
        elif item.column() == COL_CLIENT and self.client:
            set_offered(self.backend.settings, self.client, str(name), item.checkState() == Qt.CheckState.Checked)

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
        self._bulk(self._fill_client)

    # -- queries ----------------------------------------------------------------------------
    def tool_index(self, name: str) -> QModelIndex:
        cells = self._rows.get(name)
        return cells[COL_TOOL].index() if cells else QModelIndex()

    def group_index(self, source: ToolSource | str) -> QModelIndex:
        group = self._groups.get(ToolSource(source))
        return group.index() if group else QModelIndex()

    def capability_tags(self) -> list[str]:
        tags: set[str] = set()
        for tool in self._tools.values():
            tags.update(tool.capabilities)
        return sorted(tags)

    def search_texts(self) -> dict[str, str]:
        return self._search

    def source_of(self, name: str) -> str:
        return self._sources.get(name, "")

    def sources(self) -> list[str]:
        return list(self._groups)

    def tool_names(self) -> list[str]:
        return list(self._rows)


class CatalogFilter:
    """Text and capability-tag filter that hides rows in the tree view.

    Hiding rows, rather than a proxy model, because a tree digests a proxy's scattered row
    removals one range at a time (40 ms when a keystroke hides 1,800 of 2,000 tools); here a
    keystroke costs the regex over our own copy of the search text plus one relayout. Only rows
    whose visibility changes are touched.
    """

    def __init__(self, tree: QTreeView, model: ToolCatalogModel) -> None:
        self._tree = tree
        self._model = model
        self._text = ""
        self._tag = ""
        self._hidden: set[str] = set()
        self._hidden_groups: set[str] = set()

    def set_filter(self, text: str | None = None, tag: str | None = None) -> None:
        if text is not None:
            self._text = text.strip().lower()
        if tag is not None:
            self._tag = tag
        self.apply()

    def apply(self) -> None:
        words = [re.escape(word) for word in self._text.split()]
        if self._tag:
            words.append(re.escape(f"#{self._tag.lower()} "))
        pattern = re.compile("".join(f"(?=.*{w})" for w in words), re.DOTALL) if words else None
        texts = self._model.search_texts()
        hidden = {n for n, t in texts.items() if not pattern.match(t)} if pattern is not None else set()
        for name in hidden ^ self._hidden:
            index = self._model.tool_index(name)
            if index.isValid():
                self._tree.setRowHidden(index.row(), index.parent(), name in hidden)
        self._hidden = hidden
        # A group with nothing left to show is hidden too.
        counts: dict[str, int] = defaultdict(int)
        for name in texts:
            if name not in hidden:
                counts[self._model.source_of(name)] += 1
        hidden_groups = {source for source in self._model.sources() if counts[source] == 0}
        for source in hidden_groups ^ self._hidden_groups:
            index = self._model.group_index(source)
            self._tree.setRowHidden(index.row(), index.parent(), source in hidden_groups)
        self._hidden_groups = hidden_groups

    def reset(self) -> None:
        """After the model was rebuilt: every row starts visible again."""
        self._hidden = set()
        self._hidden_groups = set()
        self.apply()

    def is_hidden(self, name: str) -> bool:
        return name in self._hidden or self._model.source_of(name) in self._hidden_groups
