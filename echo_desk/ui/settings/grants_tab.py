"""The Permissions page's Active grants tab: what the person allowed in approvals, for how long,
created by which call, how often used; Revoke one or all (the engine forgets them before the
next call)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.permissions import Grant, PermissionEngine
from echo_desk.gateway.clients import display_name
from echo_desk.i18n import _
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.rules_text import plain_tooltip, scope_label, when


class GrantsTab(QWidget):
    def __init__(self, engine: PermissionEngine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.shown: list[Grant] = []
        layout = QVBoxLayout(self)
        self.grants = QTreeWidget()
        self.grants.setColumnCount(6)
        self.grants.setRootIsDecorated(False)
        self.grants.setUniformRowHeights(True)
        # "What" takes the room left and the rest fit their text (使用次数 too): fixed widths summed
        # past the page and scrolled the id away. A handful of grants: measuring them costs nothing.
        header = self.grants.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, 6):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.grants.currentItemChanged.connect(lambda *_: self._update_buttons())
        layout.addWidget(self.grants, 1)
        self.empty = QLabel()
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.empty)
        row = QHBoxLayout()
        self.revoke = QPushButton()
        self.revoke.clicked.connect(self.revoke_selected)
        self.revoke_all = QPushButton()
        self.revoke_all.clicked.connect(self.revoke_everything)
        self.refresh = QPushButton()
        self.refresh.clicked.connect(self.reload)
        row.addWidget(self.refresh)
        row.addStretch(1)
        row.addWidget(self.revoke)
        row.addWidget(self.revoke_all)
        layout.addLayout(row)
        self.reload()
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def reload(self) -> None:
        """Show the grants in force now."""
        self.shown = self.engine.active_grants()
        self._render()

    def _render(self) -> None:
        self.grants.clear()
        for grant in self.shown:
            what = f"{grant.tool}  {grant.pattern}" if grant.pattern is not None else grant.tool
            where = grant.workspace or (grant.conversation_id[:8] if grant.conversation_id else "")
            if grant.client:  # given in that MCP client's dialog: it covers that client alone
                where = " · ".join(filter(None, (display_name(grant.client), where)))
            item = QTreeWidgetItem([what, scope_label(grant.scope) + (f" · {where}" if where else ""),
                                    when(grant.expires_at) if grant.expires_at is not None else _("until revoked"),
                                    f"{grant.created_by_call} · {when(grant.created_at)}", str(grant.uses), grant.id])
            item.setData(0, Qt.ItemDataRole.UserRole, grant.id)
            item.setToolTip(0, plain_tooltip(what))
            self.grants.addTopLevelItem(item)
        self.empty.setVisible(not self.shown)
        self._update_buttons()

    def select_grant(self, grant_id: str) -> bool:
        for i in range(self.grants.topLevelItemCount()):
            item = self.grants.topLevelItem(i)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == grant_id:
                self.grants.setCurrentItem(item)
                return True
        return False

    def _update_buttons(self) -> None:
        self.revoke.setEnabled(self.grants.currentItem() is not None)
        self.revoke_all.setEnabled(bool(self.shown))

    def revoke_selected(self) -> None:
        item = self.grants.currentItem()
        if item is not None:
            self.engine.revoke(str(item.data(0, Qt.ItemDataRole.UserRole)))
        self.reload()

    def revoke_everything(self) -> None:
        self.engine.revoke_all()
        self.reload()

    def retranslate(self, *_args: object) -> None:
        self.grants.setHeaderLabels([_("What"), _("Scope"), _("Expires"), _("Created by"), _("Uses"), _("Id")])
        self.grants.setAccessibleName(_("Active grants"))
        self.empty.setText(_("No active grants. Grants appear here when you allow a rule in an approval."))
        self.revoke.setText(_("Re&voke"))
        self.revoke_all.setText(_("Revoke a&ll"))
        self.refresh.setText(_("Re&fresh"))
        self._render()
