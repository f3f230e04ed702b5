"""The Tools page of the settings: filter box, capability tags, profile switcher, the tree."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.gateway.clients import display_name
from echo_desk.gateway.view import set_builtins
from echo_desk.i18n import _
from echo_desk.store.settings import Settings
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.core.labels import capability_label, policy_label, profile_label, risk_label
from echo_desk.ui.core.mnemonics import literal
from echo_desk.ui.settings.catalog_model import (
    COL_CLIENT,
    COL_DESCRIPTION,
    COL_POLICY,
    COL_RISK,
    COL_STATUS,
    COL_TOOL,
    CatalogFilter,
    NameRole,
    PolicyRole,
    ToolCatalogModel,
)
from echo_desk.ui.settings.catalog_tree import CatalogTree

_POLICIES = ("", "ask", "always", "never")


class PolicyDelegate(QStyledItemDelegate):
    """Approval policy picker: Default / Ask / Always allow / Never."""

    def __init__(self, catalog: ToolCatalogModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._catalog = catalog

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,
                     index: QModelIndex | QPersistentModelIndex) -> QWidget:
        combo = QComboBox(parent)
        combo.setAccessibleName(_("Approval policy"))
        for value in _POLICIES:
            combo.addItem(_("Default") if not value else policy_label(value), value)
        return combo

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        current = index.data(PolicyRole) or ""
        editor.setCurrentIndex(max(0, _POLICIES.index(current) if current in _POLICIES else 0))
        editor.activated.connect(lambda _i: self.commitData.emit(editor))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel,
                     index: QModelIndex | QPersistentModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        name = index.data(NameRole)
        if name:
            self._catalog.set_policy(str(name), str(editor.currentData() or ""))


class ToolsPage(QWidget):
    def __init__(self, backend: CatalogBackend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        self.model = ToolCatalogModel(backend, self)

        layout = QVBoxLayout(self)
        bar = QHBoxLayout()
        self.filter = QLineEdit()
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(lambda text: self.filtering.set_filter(text=text))
        self.tag_label = QLabel()
        self.tags = QComboBox()
        self.tags.currentIndexChanged.connect(lambda _i: self.filtering.set_filter(tag=self.tags.currentData() or ""))
        self.profile_label = QLabel()
        self.profiles = QComboBox()
        self.profiles.activated.connect(self._apply_profile)
        bar.addWidget(self.filter, 2)
        bar.addWidget(self.tag_label)
        bar.addWidget(self.tags, 1)
        bar.addWidget(self.profile_label)
        bar.addWidget(self.profiles, 1)
        layout.addLayout(bar)
        # Other MCP clients calling through the gateway: what one of them sees (a column).
        client_bar = QHBoxLayout()
        self.client_label = QLabel()
        self.clients = QComboBox()
        self.clients.activated.connect(lambda _i: self._show_client(self.clients.currentData() or ""))
        self.client_builtins = QCheckBox()
        self.client_builtins.setVisible(False)
        self.client_builtins.toggled.connect(self._set_client_builtins)
        client_bar.addWidget(self.client_label)
        client_bar.addWidget(self.clients, 1)
        client_bar.addWidget(self.client_builtins, 2)
        layout.addLayout(client_bar)

        self.tree = CatalogTree()
        self.tree.setModel(self.model)
        self.filtering: CatalogFilter = CatalogFilter(self.tree, self.model)
        self.tree.setUniformRowHeights(True)  # 2,000 rows: skip per-row measuring
        self.tree.setAlternatingRowColors(True)
        self.tree.setItemDelegateForColumn(COL_POLICY, PolicyDelegate(self.model, self.tree))
        self.tree.setEditTriggers(QTreeView.EditTrigger.CurrentChanged | QTreeView.EditTrigger.SelectedClicked
                                  | QTreeView.EditTrigger.DoubleClicked)
        header = self.tree.header()
        header.setSectionResizeMode(COL_TOOL, QHeaderView.ResizeMode.Interactive)
        # Not Stretch: the tree gives the description the room left (``CatalogTree``).
        header.setSectionResizeMode(COL_DESCRIPTION, QHeaderView.ResizeMode.Interactive)
        # Not ResizeToContents: that measures every row on each relayout (a filter keystroke).
        header.setSectionResizeMode(COL_RISK, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_STATUS, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(COL_POLICY, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(False)
        header.resizeSection(COL_POLICY, 140)
        header.setSectionResizeMode(COL_CLIENT, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(COL_CLIENT, 150)
        self.tree.setColumnHidden(COL_CLIENT, True)
        self.tree.expandAll()
        layout.addWidget(self.tree, 1)
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        theme.styled(self.hint, lambda p: f"color: {p.muted}")
        # What a scope grants and how sub-agents narrow it: one click from the catalog.
        self.help_button = QPushButton()
        self.help_button.clicked.connect(self.show_scope_help)
        self.help_dialog: QWidget | None = None
        footer = QHBoxLayout()
        footer.addWidget(self.hint, 1)
        footer.addWidget(self.help_button)
        layout.addLayout(footer)

        self._status_timer = QTimer(self)
        self._status_timer.setInterval(1000)
        self._status_timer.timeout.connect(self.model.refresh_status)
        self._unsubscribe = backend.settings.subscribe(lambda s: marshal.run_on_main(self._on_settings, s))
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        if _args:  # a language switch (the model is built in the current language already)
            self.model.retranslate()
        self.filter.setPlaceholderText(_("Filter tools by name or description"))
        self.filter.setAccessibleName(_("Filter tools"))
        self.tag_label.setText(_("Capability:"))
        self.tags.setAccessibleName(_("Filter by capability"))
        self.profile_label.setText(_("Profile:"))
        self.profiles.setAccessibleName(_("Capability profile"))
        self.client_label.setText(_("Shown to:"))
        self.clients.setAccessibleName(_("Which agent's view of the tools to show"))
        self.tree.setAccessibleName(_("Tools catalog"))
        metrics = self.tree.fontMetrics()
        risk_width = max(metrics.horizontalAdvance(risk_label(r)) for r in ("read", "write", "exec"))
        self.tree.header().resizeSection(COL_RISK, max(metrics.horizontalAdvance(_("Risk")), risk_width) + 24)
        # Wide enough for its longest text ("Default (asks) · rules: 12"), which 140 px cut in both
        # languages; never narrower than the 140 px it starts with.
        policy_width = max(metrics.horizontalAdvance(
            _("Default ({policy})").format(policy=policy_label(p)) + " · " + _("rules: {n}").format(n=99))
            for p in ("always", "ask", "never"))
        self.tree.header().resizeSection(COL_POLICY, max(140, policy_width + 24))
        self.tree.fit_columns()
        self.hint.setText(_("Unchecked tools are never offered to the model and are refused if it calls "
                            "them anyway. Changes apply at once."))
        self.help_button.setText(_("&About scopes and sub-agents…"))
        self.help_button.setAccessibleName(_("About scopes and sub-agents"))
        current_tag = self.tags.currentData() or ""
        self.tags.blockSignals(True)
        self.tags.clear()
        self.tags.addItem(_("All capabilities"), "")
        for tag in self.model.capability_tags():
            self.tags.addItem(capability_label(tag), tag)
        self.tags.setCurrentIndex(max(0, self.tags.findData(current_tag)))
        self.tags.blockSignals(False)
        self._fill_profiles(self.backend.settings.current)
        self._fill_clients(self.backend.settings.current)

    def show_scope_help(self) -> None:
        """Open (or raise) the "About scopes and sub-agents" page."""
        from echo_desk.ui.settings.scope_help import ScopeHelpDialog

        if self.help_dialog is None:
            self.help_dialog = ScopeHelpDialog(self)
        self.help_dialog.show()
        self.help_dialog.raise_()

    def _fill_profiles(self, settings: Settings) -> None:
        self.profiles.blockSignals(True)
        self.profiles.clear()
        for name in settings.profiles:
            self.profiles.addItem(profile_label(name), name)
        self.profiles.setCurrentIndex(max(0, self.profiles.findData(settings.active_profile)))
        self.profiles.blockSignals(False)

    def _fill_clients(self, settings: Settings) -> None:
        """Echo Desk's own chat, then every MCP client that connected through the gateway."""
        current = self.clients.currentData() or ""
        self.clients.blockSignals(True)
        self.clients.clear()
        self.clients.addItem(_("Echo Desk's chat"), "")
        for key in sorted(settings.gateway.clients):
            self.clients.addItem(_("{client} (through MCP)").format(client=visible(display_name(key), one_line=True)),
                                 key)
        self.clients.setCurrentIndex(max(0, self.clients.findData(current)))
        self.clients.blockSignals(False)
        self._show_client(self.clients.currentData() or "")

    def _show_client(self, key: str) -> None:
        """The last column shows what ``key`` sees; '' hides it (the chat sees the checked tools)."""
        self.model.set_client(key or None)
        self.tree.setColumnHidden(COL_CLIENT, not key)
        self.tree.fit_columns()
        self.client_builtins.setVisible(bool(key))
        if key:
            profile = self.backend.settings.current.gateway.client(key)
            self.client_builtins.blockSignals(True)
            self.client_builtins.setChecked(profile.builtins)
            self.client_builtins.blockSignals(False)
            # Short: a check box does not wrap, and with what the tools are in its text the Settings
            # window could not be narrower than ~1,160 px. What they are is in its tooltip.
            self.client_builtins.setText(_("Offer Echo Desk's own &tools to {client}").format(
                client=literal(visible(display_name(key), one_line=True))))
            what = _("File edits with review and undo, commands in the sandbox, database reads.")
            self.client_builtins.setToolTip(what)
            self.client_builtins.setAccessibleDescription(what)

    def _set_client_builtins(self, on: bool) -> None:
        key = self.clients.currentData() or ""
        if key:
            set_builtins(self.backend.settings, key, on)

    def _apply_profile(self, _index: int) -> None:
        name = self.profiles.currentData()
        if not name:
            return

        def change(s: Settings) -> None:
            s.active_profile = str(name)
            # A profile means "these capabilities": per-tool on/off overrides would hide its effect.
            s.tools = {k: v.model_copy(update={"enabled": None}) for k, v in s.tools.items()}

        self.backend.settings.update(change)

    def _on_settings(self, settings: Settings) -> None:
        if self.profiles.currentData() != settings.active_profile:
            self._fill_profiles(settings)
        known = {self.clients.itemData(i) for i in range(self.clients.count())} - {""}
        if known != set(settings.gateway.clients):  # a client connected for the first time
            self._fill_clients(settings)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.sync_registry()
        self._status_timer.start()

    def sync_registry(self) -> None:
        """Tools come and go (MCP servers connecting, plugins): re-read the registry if it changed."""
        if {e.tool.name for e in self.backend.entries()} != set(self.model.tool_names()):
            self.model.rebuild()
            self.tree.expandAll()
            self.filtering.reset()
            self.retranslate()

    def hideEvent(self, event: QHideEvent) -> None:
        self._status_timer.stop()
        super().hideEvent(event)

    def close_page(self) -> None:
        self._status_timer.stop()
        self._unsubscribe()
        self.model.close()

    def visible_tools(self) -> set[str]:
        return {name for name in self.model.tool_names() if not self.filtering.is_hidden(name)}

    def tool_checked(self, name: str) -> bool:
        return self.model.itemFromIndex(self.model.tool_index(name)).checkState() == Qt.CheckState.Checked


__all__ = ["ToolsPage"]
