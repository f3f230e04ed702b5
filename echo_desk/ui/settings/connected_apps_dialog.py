""""Protect…": the exact diff of a client's config file before Echo Desk rewrites it.

Lists the client's servers (which move into Echo Desk, sandboxed or not, and which stay, with
why), and the unified diff of the file as it will be written, every character shown as it is
(``common.visible_text`` through the diff view). Each choice makes a new plan and a new diff;
"Rewrite the file" writes exactly the diff on screen (if the file changed meanwhile, nothing is
written and the person is told).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text, shown
from echo_desk.tools.secrets import secrets_kept
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.settings.secret_hints import left_in_file, no_keyring_for_values
from echo_desk.ui.widgets.diff_view import DiffPane

if TYPE_CHECKING:  # the MCP package loads when the page is first used
    from echo_desk.mcp.connected import InstallPlan, Location
    from echo_desk.mcp.connected.plan import Move

COL_SERVER, COL_WHAT, COL_SANDBOX, COL_DETAILS = range(4)


def command_text(move: Move) -> str:
    """What the server runs (stdio) or where it is (HTTP), as Echo Desk will run it."""
    cfg = move.config
    return shlex.join((cfg.command, *cfg.args)) if cfg.is_stdio else cfg.url


class ProtectDialog(QDialog):
    """Non-blocking: ``open()`` it; ``written`` carries the plan that was applied."""

    written = Signal(object)

    def __init__(self, location: Location, title: str, plan: InstallPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.location = location
        self.plan = plan
        self.title = title
        self._keep: set[str] = set()
        self._unsandboxed: set[str] = set()
        self.resize(1000, 720)
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.intro.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.intro)
        splitter = QSplitter(Qt.Orientation.Vertical)
        self.servers = QTreeWidget()
        self.servers.setRootIsDecorated(False)
        self.servers.itemChanged.connect(self._on_item_changed)
        splitter.addWidget(self.servers)
        holder = QWidget()
        holder_layout = QVBoxLayout(holder)
        holder_layout.setContentsMargins(0, 0, 0, 0)
        self.diff_label = QLabel()
        holder_layout.addWidget(self.diff_label)
        self.diff_holder = QVBoxLayout()
        holder_layout.addLayout(self.diff_holder, 1)
        splitter.addWidget(holder)
        splitter.setStretchFactor(1, 3)
        splitter.setSizes([150, 520])
        layout.addWidget(splitter, 1)
        self.keyring = QCheckBox()
        self.keyring.setChecked(secrets_kept())  # no keyring: a moved secret would be lost at exit
        self.keyring.setEnabled(secrets_kept())
        self.keyring.toggled.connect(lambda _on: self.replan())
        layout.addWidget(self.keyring)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.note, lambda p: f"color: {p.warn}")
        self.note.hide()
        layout.addWidget(self.note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.write_button = self.buttons.addButton("", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self._write)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.diff: DiffPane | None = None
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Protect {app} with Echo Desk").format(app=self.title))
        self.intro.setText(_("Echo Desk will rewrite {path}: the servers ticked below move into Echo Desk, "
                             "and {app} starts Echo Desk's gateway in their place, so every call meets your "
                             "rules and approvals. A copy of the file is kept; Undo puts everything back.")
                           .format(path=visible(str(self.location.path), one_line=True), app=self.title))
        self.servers.setHeaderLabels([_("Server"), _("What happens"), _("Sandbox"), _("Details")])
        self.servers.setAccessibleName(_("Servers in the file"))
        self.diff_label.setText(_("The file after the change (exact diff):"))
        self.keyring.setText(_("Move the servers' secrets (env and header values) to the system keyring")
                             if secrets_kept() else no_keyring_for_values())
        self.write_button.setText(_("Rewrite the file"))
        self.write_button.setAccessibleName(_("Rewrite the file as shown"))
        self._show(self.plan)

    # -- showing a plan ------------------------------------------------------------------------
    def _show(self, plan: InstallPlan) -> None:
        self.plan = plan
        self.servers.blockSignals(True)
        self.servers.clear()
        for move in plan.moves:
            what = _("Already in Echo Desk") if move.already else _("Moves into Echo Desk")
            if move.echo_name != move.name:
                what = _("{what}, as “{name}”").format(what=what, name=visible(move.echo_name, one_line=True))
            details = [command_text(move)]
            if move.to_keyring:
                details.append(_("to the keyring: {keys}").format(keys=list_text(move.to_keyring)))
            if move.left_in_file:
                details.append(left_in_file(move.left_in_file))
            if move.needs_secrets:
                details.append(_("needs secrets first: {keys}").format(keys=list_text(move.needs_secrets)))
            row = self._row(move.name, what, " — ".join(visible(d, one_line=True) for d in details if d))
            row.setCheckState(COL_SERVER, Qt.CheckState.Checked)
            if move.config.is_stdio and not move.already:
                row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                row.setCheckState(COL_SANDBOX, Qt.CheckState.Checked if move.config.sandbox else Qt.CheckState.Unchecked)
        for stay in plan.stays:
            row = self._row(stay.name, _("Stays in the file"), visible(shown(stay.reason), one_line=True))
            if stay.by_choice:
                row.setCheckState(COL_SERVER, Qt.CheckState.Unchecked)
            else:
                row.setFlags(row.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
        for column in (COL_SERVER, COL_WHAT, COL_SANDBOX):
            self.servers.resizeColumnToContents(column)
        self.servers.blockSignals(False)
        if self.diff is not None:
            self.diff_holder.removeWidget(self.diff)
            self.diff.deleteLater()
        self.diff = DiffPane(plan.diff)
        self.diff.setAccessibleName(_("Diff of {path}").format(path=str(self.location.path)))
        self.diff_holder.addWidget(self.diff)
        self.write_button.setEnabled(True)

    def _row(self, name: str, what: str, details: str) -> QTreeWidgetItem:
        row = QTreeWidgetItem([visible(name, one_line=True), what, "", details])
        row.setData(COL_SERVER, Qt.ItemDataRole.UserRole, name)
        row.setToolTip(COL_DETAILS, details)
        row.setFlags(row.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        self.servers.addTopLevelItem(row)
        return row

    def _on_item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        name = str(item.data(COL_SERVER, Qt.ItemDataRole.UserRole))
        if column == COL_SERVER:
            (self._keep.discard if item.checkState(COL_SERVER) == Qt.CheckState.Checked else self._keep.add)(name)
        elif column == COL_SANDBOX:
            unsandboxed = item.checkState(COL_SANDBOX) == Qt.CheckState.Unchecked
            (self._unsandboxed.add if unsandboxed else self._unsandboxed.discard)(name)
        else:
            return
        self.replan()

    def replan(self) -> None:
        """A new plan (and diff) for the choices made; reading the file happens off the UI thread."""
        from echo_desk.mcp.connected import plan_install

        keep = frozenset(self._keep)
        sandbox = {name: False for name in self._unsandboxed}
        self.write_button.setEnabled(False)
        location, use_keyring = self.location, self.keyring.isChecked()
        marshal.BackgroundOp(lambda: plan_install(location, keep=keep, sandbox=sandbox, use_keyring=use_keyring)) \
            .on_success(self._show).on_failure(self._failed).run()

    def _failed(self, exc: BaseException) -> None:
        from echo_desk.common.explain import technical_detail
        from echo_desk.mcp.explain import explained

        reason = explained(exc, quote_detail=False)  # the exception's English only in the tooltip
        self.note.setText(_("Nothing was written: {reason}").format(reason=shown(reason)))
        self.note.setToolTip(visible(technical_detail(exc)))
        self.note.show()

    # -- writing ---------------------------------------------------------------------------------
    def _write(self) -> None:
        from echo_desk.mcp.connected import apply_install

        plan = self.plan
        self.write_button.setEnabled(False)

        def done(outcome: object) -> None:
            self.written.emit(outcome)
            self.accept()

        marshal.BackgroundOp(apply_install, plan).on_success(done).on_failure(self._failed).run()
