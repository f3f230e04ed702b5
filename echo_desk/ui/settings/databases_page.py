"""The Databases page: the connections the database tools may use.

Name, type, DSN and write mode go to the settings (``Settings.databases``); a password goes to
the secret store (the OS keyring) as ``database.<name>.password`` and never into the settings
file or a DSN. "Test connection" makes one cheap real round trip off the UI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.builtins.database.check import CheckKind, CheckResult, check_connection
from echo_desk.builtins.database.connection_editing import (
    ConnectionFormError,
    remove_connection,
    save_connection,
    stored_password,
    validate,
)
from echo_desk.builtins.database.connections import redact_dsn
from echo_desk.i18n import N_, _
from echo_desk.store.settings import DatabaseConnection, SettingsStore
from echo_desk.tools.secrets import secrets_kept
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.settings.secret_hints import saved_hint, unset_hint

KIND_LABELS = {"postgres": N_("PostgreSQL"), "sqlite": N_("SQLite file")}


def check_text(result: CheckResult) -> str:
    """The test result in the person's language (the database's own message kept as is)."""
    texts = {
        CheckKind.OK: _("Connected."),
        CheckKind.OK_NO_WORKSPACE: _("Connected. The agent can use this file only while a workspace "
                                     "that contains it is open."),
        CheckKind.PASSWORD_MISSING: _("Password missing: type it in the password field."),
        CheckKind.FILE_NOT_FOUND: _("Database file not found: {detail}"),
        CheckKind.OUTSIDE_WORKSPACE: _("The file is outside the workspace, so the agent may not open it: "
                                       "{detail}"),
        CheckKind.NO_WORKSPACE: _("A relative path needs an open workspace; choose a workspace folder "
                                  "in the main window first."),
        CheckKind.FAILED: _("Connection failed: {detail}"),
    }
    return texts[result.kind].format(detail=result.detail)


class DatabasesPage(QWidget):
    """List, add, edit, remove and test database connections."""

    def __init__(self, settings: SettingsStore, workspace: Callable[[], str] = lambda: "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.workspace = workspace
        #: The name of the connection in the form; ``None`` while adding a new one.
        self.editing: str | None = None
        self.confirm_box: QMessageBox | None = None
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.table = QTableWidget(0, 4)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemSelectionChanged.connect(self._on_selected)
        self.table.setMaximumHeight(180)
        layout.addWidget(self.table)
        # While there is none, how to add one: the form below is where (not only the Add button).
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.empty)
        row = QHBoxLayout()
        self.add_button = QPushButton()
        self.add_button.clicked.connect(self.start_new)
        self.remove_button = QPushButton()
        self.remove_button.clicked.connect(self._ask_remove)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        layout.addLayout(row)

        form = QFormLayout()
        self.name = QLineEdit()
        self.kind = QComboBox()
        for kind in KIND_LABELS:
            self.kind.addItem("", kind)
        self.kind.currentIndexChanged.connect(lambda _i: self._kind_changed())
        self.dsn = QLineEdit()
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.write_mode = QCheckBox()
        self.labels = {n: QLabel() for n in ("name", "kind", "dsn", "password")}
        for key, field in (("name", self.name), ("kind", self.kind), ("dsn", self.dsn), ("password", self.password)):
            self.labels[key].setBuddy(field)
        form.addRow(self.labels["name"], self.name)
        form.addRow(self.labels["kind"], self.kind)
        form.addRow(self.labels["dsn"], self.dsn)
        form.addRow(self.labels["password"], self.password)
        form.addRow("", self.write_mode)
        layout.addLayout(form)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet(f"color: {theme.colour('warn')}")
        layout.addWidget(self.warning)
        buttons = QHBoxLayout()
        self.save_button = QPushButton()
        self.save_button.clicked.connect(self.save)
        self.test_button = QPushButton()
        self.test_button.clicked.connect(self.test_connection)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self.retranslate()
        self.refresh()
        self.start_new()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    # -- text -------------------------------------------------------------------------------
    def retranslate(self, *_args: object) -> None:
        self.intro.setText(_("Databases the agent may query with the database tools. Queries are read-only "
                             "unless you turn on write mode. Passwords are kept in the system keyring, never "
                             "in the settings file.") if secrets_kept() else
                           _("Databases the agent may query with the database tools. Queries are read-only "
                             "unless you turn on write mode. This machine has no system keyring: a password "
                             "lasts until Echo Desk exits, and is never written to the settings file."))
        self.table.setHorizontalHeaderLabels([_("Name"), _("Type"), _("Address (no password)"), _("Write mode")])
        self.table.setAccessibleName(_("Database connections"))
        self.empty.setText(_("No database connections yet. Fill in the form below and press Save to add one."))
        self.add_button.setText(_("&Add…"))
        self.add_button.setAccessibleName(_("Add a database connection"))
        self.remove_button.setText(_("&Remove"))
        self.remove_button.setAccessibleName(_("Remove the selected connection"))
        for i in range(self.kind.count()):
            self.kind.setItemText(i, _(KIND_LABELS[str(self.kind.itemData(i))]))
        texts = {"name": _("&Name:"), "kind": _("T&ype:"), "dsn": _("&DSN or file:"), "password": _("&Password:")}
        for key, label in self.labels.items():
            label.setText(texts[key])
        for widget, name in ((self.name, _("Connection name")), (self.kind, _("Database type")),
                             (self.dsn, _("DSN or file path")), (self.password, _("Password"))):
            widget.setAccessibleName(name)
        self.write_mode.setText(_("&Write mode: let the agent change data on this connection"))
        self.warning.setText(_("In write mode the agent may use “Change a database” (db_execute) here. Every "
                               "such call is Execute risk: it always asks you first and shows the target "
                               "database and the full SQL text. Without write mode the database itself "
                               "refuses every change."))
        self.save_button.setText(_("&Save"))
        self.save_button.setAccessibleName(_("Save this connection"))
        self.test_button.setText(_("&Test connection"))
        self.test_button.setAccessibleName(_("Test the connection"))
        self.result.setAccessibleName(_("Connection test result"))
        self._kind_changed()
        self.refresh()

    def _kind_changed(self) -> None:
        sqlite = self.kind.currentData() == "sqlite"
        self.dsn.setPlaceholderText(_("data/app.db (a file inside the workspace)") if sqlite
                                    else "postgresql://user@localhost:5432/dbname")
        self.password.setEnabled(not sqlite)
        self._password_hint()

    def _password_hint(self) -> None:
        if self.kind.currentData() == "sqlite":
            self.password.setPlaceholderText(_("SQLite files have no password"))
            return
        stored = bool(self.editing and stored_password(self.editing))
        self.password.setPlaceholderText(saved_hint() if stored else unset_hint())

    # -- list -------------------------------------------------------------------------------
    def connections(self) -> list[DatabaseConnection]:
        return list(self.settings.current.databases)

    def refresh(self, select: str | None = None) -> None:
        conns = self.connections()
        self.table.blockSignals(True)
        self.table.setRowCount(len(conns))
        for row, conn in enumerate(conns):
            cells = (conn.name, _(KIND_LABELS.get(conn.kind, conn.kind)), redact_dsn(conn.dsn),
                     _("Yes") if conn.write_mode else _("No"))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, conn.name)
                if col == 3 and conn.write_mode:
                    item.setForeground(Qt.GlobalColor.darkYellow)
                self.table.setItem(row, col, item)
        if select is not None:
            for row, conn in enumerate(conns):
                if conn.name == select:
                    self.table.selectRow(row)
        self.table.blockSignals(False)
        self.remove_button.setEnabled(bool(self.table.selectedItems()))
        self.empty.setVisible(not conns)

    def selected_name(self) -> str | None:
        items = self.table.selectedItems()
        return str(items[0].data(Qt.ItemDataRole.UserRole)) if items else None

    def _on_selected(self) -> None:
        name = self.selected_name()
        self.remove_button.setEnabled(name is not None)
        conn = next((c for c in self.connections() if c.name == name), None)
        if conn is not None:
            self.load(conn)

    def load(self, conn: DatabaseConnection) -> None:
        self.editing = conn.name
        self.name.setText(conn.name)
        self.kind.setCurrentIndex(max(0, self.kind.findData(conn.kind)))
        self.dsn.setText(conn.dsn)
        self.password.clear()
        self.write_mode.setChecked(conn.write_mode)
        self.result.clear()
        self._kind_changed()

    def start_new(self) -> None:
        """Empty the form for a new connection."""
        self.editing = None
        self.table.clearSelection()
        self.name.clear()
        self.dsn.clear()
        self.password.clear()
        self.write_mode.setChecked(False)
        self.result.clear()
        self._kind_changed()
        self.name.setFocus()

    # -- saving -----------------------------------------------------------------------------
    def _form(self) -> DatabaseConnection:
        return DatabaseConnection(name=self.name.text().strip(),
                                  kind="sqlite" if self.kind.currentData() == "sqlite" else "postgres",
                                  dsn=self.dsn.text().strip(), write_mode=self.write_mode.isChecked())

    def _problem(self, conn: DatabaseConnection) -> str:
        try:
            validate(conn, self.connections(), self.editing)
        except ConnectionFormError as problem:
            return _(problem.message).format(**problem.params)
        return ""

    def save(self) -> bool:
        """Write the form to the settings and a typed password to the keyring. On bad input say
        what is wrong and keep the form as it is."""
        conn = self._form()
        try:
            save_connection(self.settings, conn, editing=self.editing, password=self.password.text())
        except ConnectionFormError as problem:
            self.result.setText(_(problem.message).format(**problem.params))
            return False
        except Exception as exc:  # a locked keyring: say so, keep the form, change nothing else  # noqa: BLE001
            self.result.setText(_("The password could not be saved: {error}").format(error=exc))
            return False
        self.editing = conn.name
        self.password.clear()
        self.refresh(select=conn.name)
        self._password_hint()
        self.result.setText(_("Saved."))
        return True

    def _ask_remove(self) -> None:
        name = self.selected_name()
        if name is None:
            return
        box = QMessageBox(QMessageBox.Icon.Question, _("Remove connection"),
                          _("Remove the connection “{name}” and its saved password?").format(name=name),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.accepted.connect(lambda: self.remove(name))
        box.finished.connect(lambda _r: setattr(self, "confirm_box", None))
        self.confirm_box = box
        box.open()

    def remove(self, name: str) -> None:
        """Remove a connection from the settings and its password from the keyring."""
        try:
            remove_connection(self.settings, name)
        except Exception as exc:  # the connection is kept rather than leave a password behind  # noqa: BLE001
            self.result.setText(_("The saved password could not be removed: {error}").format(error=exc))
            return
        self.refresh()
        if self.editing == name:
            self.start_new()
        self.result.setText(_("Removed “{name}”.").format(name=name))

    # -- testing ----------------------------------------------------------------------------
    def test_connection(self) -> None:
        """Check what the form says (saved or not) off the UI thread."""
        conn = self._form()
        if not conn.dsn:
            self.result.setText(self._problem(conn))
            return
        if not conn.name:
            conn = conn.model_copy(update={"name": "test"})
        password = self.password.text() or (stored_password(self.editing) if self.editing else None)
        folder = self.workspace()
        self.test_button.setEnabled(False)
        self.result.setText(_("Testing…"))

        def done(result: CheckResult) -> None:
            if not shiboken6.isValid(self.result):
                return  # the settings window was closed while the test ran
            self.test_button.setEnabled(True)
            self.result.setText(check_text(result))

        def failed(error: BaseException) -> None:
            if not shiboken6.isValid(self.result):
                return
            self.test_button.setEnabled(True)
            self.result.setText(_("Connection failed: {detail}").format(detail=error))

        marshal.BackgroundOp(check_connection, conn, password or None, Path(folder) if folder else None) \
            .on_success(done).on_failure(failed).run()
