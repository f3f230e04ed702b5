"""Settings › Permissions: Rules, Active grants, Policy tester and Activity, each a tab asking
the one ``PermissionEngine`` the dispatcher consults (and the audit log it writes)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from echo_desk.agent.permissions import PermissionEngine, Rule, ToolStanding
from echo_desk.i18n import _
from echo_desk.store.audit import AuditLog
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import ActivityTab
from echo_desk.ui.settings.grants_tab import GrantsTab
from echo_desk.ui.settings.policy_tester import PolicyTester
from echo_desk.ui.settings.rules_tab import RulesTab


class PermissionsPage(QWidget):
    def __init__(self, engine: PermissionEngine, audit: AuditLog | None, workspace: Callable[[], str],
                 standing: Callable[[str], ToolStanding | None] = lambda _name: None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.rules = RulesTab(engine, workspace)
        self.grants = GrantsTab(engine)
        self.tester = PolicyTester(engine, workspace, standing)
        self.activity = ActivityTab(audit, self._rule_for) if audit is not None else None
        self.tabs.addTab(self.rules, "")
        self.tabs.addTab(self.grants, "")
        self.tabs.addTab(self.tester, "")
        if self.activity is not None:
            self.tabs.addTab(self.activity, "")
            self.activity.why.connect(self.show_why)
        # What a tab shows may have changed elsewhere (an approval, the CLI): read it again.
        self.tabs.currentChanged.connect(self._refresh_current)
        layout.addWidget(self.tabs)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def _rule_for(self, source: str) -> Rule | None:
        return next((r for r in self.rules.report.rules if r.source.describe() == source), None)

    def _refresh_current(self, _index: int) -> None:
        current = self.tabs.currentWidget()
        if current is self.rules:
            self.rules.reload()
        elif current is self.grants:
            self.grants.reload()
        elif current is self.activity and self.activity is not None:
            self.activity.reload()

    def show_why(self, rule_source: str, grant_id: str) -> None:
        """Show the rule or grant an audit record names."""
        if grant_id:
            self.tabs.setCurrentWidget(self.grants)
            self.grants.select_grant(grant_id)
        elif rule_source:
            self.tabs.setCurrentWidget(self.rules)
            self.rules.select_source(rule_source)

    def retranslate(self, *_args: object) -> None:
        titles = [_("&Rules"), _("Active &grants"), _("&Policy tester"), _("&Activity")]
        for i in range(self.tabs.count()):
            self.tabs.setTabText(i, titles[i])
        self.tabs.setAccessibleName(_("Permissions"))
