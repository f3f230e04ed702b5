"""KEY=VALUE rows for an MCP server's ``env`` or ``headers``, each with "store in keyring".

A row loaded from a ``{"keyring": name}`` reference shows an empty value with the
placeholder "(stored in keyring)"; left empty, the reference is kept as it is.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import _
from echo_desk.mcp.config import Value
from echo_desk.mcp.editing import Entry
from echo_desk.tools.secrets import secrets_kept
from echo_desk.ui.settings.secret_hints import no_keyring_for_values


class _Row:
    def __init__(self, grid: QGridLayout, row: int, on_remove: object) -> None:
        self.key = QLineEdit()
        self.value = QLineEdit()
        self.keyring = QCheckBox()
        self.remove = QPushButton()
        self.ref = ""
        self.keyring.toggled.connect(self._echo)
        for column, widget in enumerate((self.key, self.value, self.keyring, self.remove)):
            grid.addWidget(widget, row, column)
        self.remove.clicked.connect(lambda: on_remove(self))  # type: ignore[operator]
        self.retranslate()

    def _echo(self, secret: bool) -> None:
        # A value headed for the keyring is not shown on screen (shoulder surfing, screenshots).
        self.value.setEchoMode(QLineEdit.EchoMode.Password if secret else QLineEdit.EchoMode.Normal)

    def retranslate(self) -> None:
        self.key.setPlaceholderText(_("Name"))
        self.key.setAccessibleName(_("Name"))
        self.value.setPlaceholderText(_("(stored in keyring)") if self.ref else _("Value"))
        self.value.setAccessibleName(_("Value"))
        self.keyring.setText(_("Store in keyring"))
        self.keyring.setAccessibleName(_("Store in keyring"))
        self.keyring.setToolTip("" if secrets_kept() else no_keyring_for_values())
        self.remove.setText(_("Remove"))
        self.remove.setAccessibleName(_("Remove this row"))

    def widgets(self) -> tuple[QWidget, ...]:
        return (self.key, self.value, self.keyring, self.remove)


class KeyValueRows(QWidget):
    """Editable rows of name, value and "store in keyring"; ``add_button`` appends one."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.grid = QGridLayout()
        self.grid.setColumnStretch(0, 1)
        self.grid.setColumnStretch(1, 1)
        outer.addLayout(self.grid)
        self.empty = QLabel()
        outer.addWidget(self.empty)
        bottom = QHBoxLayout()
        self.add_button = QPushButton()
        self.add_button.clicked.connect(lambda: self.add_row())
        bottom.addWidget(self.add_button)
        bottom.addStretch(1)
        outer.addLayout(bottom)
        self.rows: list[_Row] = []
        self._next = 0
        self.retranslate()

    def retranslate(self, add_text: str = "") -> None:
        if add_text:
            self.add_button.setText(add_text)
        self.add_button.setAccessibleName(self.add_button.text())
        self.empty.setText(_("None yet."))
        for row in self.rows:
            row.retranslate()

    def set_values(self, values: dict[str, Value]) -> None:
        for row in list(self.rows):
            self._remove(row)
        for key, value in values.items():
            if isinstance(value, str):
                self.add_row(key, value)
            else:
                self.add_row(key, "", keyring=True, ref=value["keyring"])

    def add_row(self, key: str = "", value: str = "", *, keyring: bool = False, ref: str = "") -> _Row:
        row = _Row(self.grid, self._next, self._remove)
        self._next += 1
        row.ref = ref
        row.key.setText(key)
        row.value.setText(value)
        row.keyring.setChecked(keyring)
        # No keyring: a new value stays in mcp.json; a reference already there can be turned off.
        row.keyring.setEnabled(secrets_kept() or keyring)
        row.retranslate()
        self.rows.append(row)
        self.empty.setVisible(False)
        return row

    def _remove(self, row: _Row) -> None:
        for widget in row.widgets():
            self.grid.removeWidget(widget)
            widget.deleteLater()
        self.rows.remove(row)
        self.empty.setVisible(not self.rows)

    def values(self) -> list[Entry]:
        """Every row that is not completely empty, in order."""
        out = []
        for row in self.rows:
            key, value = row.key.text().strip(), row.value.text()
            if key or value or row.ref:
                out.append(Entry(key=key, value=value, keyring=row.keyring.isChecked(),
                                    ref=row.ref if row.keyring.isChecked() else ""))
        return out
