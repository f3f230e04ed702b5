"""The small form for an MCP prompt's arguments: required ones marked, the server's descriptions
shown as plain visible text (hidden characters made visible), nothing sent from here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.mcp.prompts import PromptInfo


def _plain(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # the server's words: never rich text
    label.setWordWrap(True)
    return label


class PromptForm(QDialog):
    def __init__(self, prompt: PromptInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.prompt = prompt
        self.setMinimumWidth(440)  # the server's descriptions wrap in a readable measure
        self.setWindowTitle(_("MCP prompt {command}").format(command=visible(prompt.command, one_line=True)))
        layout = QVBoxLayout(self)
        heading = _plain(_("From the MCP server “{server}”: {title}").format(
            server=visible(prompt.server, one_line=True), title=visible(prompt.title or prompt.name, one_line=True)))
        layout.addWidget(heading)
        self.description = _plain(visible(prompt.description))
        self.description.setVisible(bool(prompt.description))
        theme.styled(self.description, lambda p: f"color: {p.muted};")
        layout.addWidget(self.description)
        form = QFormLayout()
        self.fields: dict[str, QLineEdit] = {}
        for argument in prompt.arguments:
            name = visible(argument.title or argument.name, one_line=True)
            label = _plain(_("{name} (required)").format(name=name) if argument.required else name)
            field = QLineEdit()
            field.setAccessibleName(name)
            field.textChanged.connect(lambda _t: self._check())
            self.fields[argument.name] = field
            box = QWidget()
            column = QVBoxLayout(box)
            column.setContentsMargins(0, 0, 0, 0)
            column.addWidget(field)
            if argument.description:
                hint = _plain(visible(argument.description))
                theme.styled(hint, lambda p: f"color: {p.muted};")
                column.addWidget(hint)
            form.addRow(label, box)
        layout.addLayout(form)
        self.note = _plain(_("The text the server makes fills the message box; you read it and send it yourself."))
        layout.addWidget(self.note)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(_("Fill the message box"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._check()

    def values(self) -> dict[str, str]:
        return {name: field.text() for name, field in self.fields.items() if field.text()}

    def _check(self) -> None:
        missing = [a for a in self.prompt.arguments if a.required and not self.fields[a.name].text().strip()]
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not missing)
