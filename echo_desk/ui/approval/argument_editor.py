"""Edit a call's arguments before approving: a form generated from the tool's JSON schema
(strings, numbers, booleans, enums; anything else as JSON), with a raw-JSON tab as fallback.

The editor only collects the new arguments; the engine validates and previews them again
(``ApprovalRequest.revise``) and the dialog then shows that version for approval.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.json_text import NOT_TEXT, TOO_DEEP, TOO_LONG_NUMBER, read_json
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, deferred, shown
from echo_desk.tools.results import JsonObject
from echo_desk.ui.core import i18n_qt, theme

#: Reads a field back as a JSON value.
_Reader = Callable[[], object]

#: What ``read_json`` found that is not a place in the text (its line and column say nothing).
_UNREADABLE = {
    TOO_DEEP: N_("it is nested too deeply to read"),
    TOO_LONG_NUMBER: N_("it holds a number too long to read"),
    NOT_TEXT: N_("it is not text"),
}


class NotArguments(ValueError):
    """Arguments that cannot be read, said for the person (``deferred``): where the JSON breaks
    (which field, which line and column), never the parser's English ("Expecting ',' delimiter")."""


def _not_json(exc: json.JSONDecodeError, field: str = "") -> NotArguments:
    if exc.msg in _UNREADABLE:
        where = deferred(_UNREADABLE[exc.msg])
    elif field:
        where = deferred(N_("it stops being valid JSON at character {column}"), column=exc.colno)
    else:
        where = deferred(N_("it stops being valid JSON at line {line}, character {column}"),
                         line=exc.lineno, column=exc.colno)
    if field:
        return NotArguments(deferred(N_("the field {name} cannot be read: {where}"), name=field, where=where))
    return NotArguments(deferred(N_("the JSON cannot be read: {where}"), where=where))


def _field(spec: JsonObject, value: object) -> tuple[QWidget, _Reader]:
    """A widget for one property and how to read it back (JSON for what has no simple widget)."""
    kind = spec.get("type")
    if isinstance(spec.get("enum"), list) and all(isinstance(v, str) for v in spec["enum"]):
        combo = QComboBox()
        combo.addItems(spec["enum"])
        if isinstance(value, str) and value in spec["enum"]:
            combo.setCurrentText(value)
        return combo, combo.currentText
    if kind == "boolean":
        box = QCheckBox()
        box.setChecked(bool(value))
        return box, box.isChecked
    if kind == "string" and not (isinstance(value, str) and "\n" in value):
        line = QLineEdit("" if value is None else str(value))
        return line, line.text
    if kind == "string":
        text = QPlainTextEdit(str(value))
        return text, text.toPlainText
    if kind in ("integer", "number"):
        line = QLineEdit("" if value is None else json.dumps(value))
        return line, lambda: read_json(line.text()) if line.text().strip() else None
    raw = QPlainTextEdit(json.dumps(value, indent=2, ensure_ascii=False))
    raw.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return raw, lambda: read_json(raw.toPlainText()) if raw.toPlainText().strip() else None


class ArgumentEditor(QDialog):
    """``on_apply`` receives the edited arguments; call ``show_error`` when they are refused."""

    def __init__(self, schema: JsonObject, arguments: JsonObject,
                 on_apply: Callable[[JsonObject], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.resize(720, 520)
        self._on_apply = on_apply
        #: The last refusal as the engine gave it (``shown`` words it in the language of the moment).
        self._error = ""
        layout = QVBoxLayout(self)
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.tabs = QTabWidget()
        form_page = QWidget()
        form = QFormLayout(form_page)
        self.readers: dict[str, _Reader] = {}
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        for name, spec in properties.items():
            widget, reader = _field(spec if isinstance(spec, dict) else {}, arguments.get(name))
            widget.setAccessibleName(name)
            label = QLabel(name)
            label.setToolTip(str(spec.get("description", "")) if isinstance(spec, dict) else "")
            form.addRow(label, widget)
            self.readers[name] = reader
        self.tabs.addTab(form_page, "")
        self.raw = QPlainTextEdit(json.dumps(arguments, indent=2, ensure_ascii=False))
        self.raw.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.tabs.addTab(self.raw, "")
        layout.addWidget(self.tabs, 1)
        self.tabs.currentChanged.connect(self._form_to_json)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # a field's name comes from the tool
        theme.styled(self.error, lambda p: f"color: {p.danger};")
        self.error.setVisible(False)
        layout.addWidget(self.error)
        buttons = QDialogButtonBox()
        self.apply_button = buttons.addButton("", QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton("", QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self._apply)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Edit the arguments"))
        self.intro.setText(_("Change what the agent asked for. The changed call is checked and previewed again; "
                             "you approve that version, and the agent is told what ran."))
        self.tabs.setTabText(0, _("Form"))
        self.tabs.setTabText(1, _("JSON"))
        self.raw.setAccessibleName(_("Arguments as JSON"))
        self.apply_button.setText(_("Check and preview"))
        self.cancel_button.setText(_("Cancel"))
        if self._error:
            self.error.setText(visible(shown(self._error)))

    def edited(self) -> JsonObject:
        """The arguments from the visible tab. Raises ``NotArguments`` (a ``ValueError``) for
        unreadable JSON, saying where."""
        if self.tabs.currentWidget() is self.raw:
            try:
                value = read_json(self.raw.toPlainText())
            except json.JSONDecodeError as exc:
                raise _not_json(exc) from exc
            if not isinstance(value, dict):
                raise NotArguments(deferred(N_("the arguments must be a JSON object, written {example}"),
                                            example="{ … }"))
            return value
        out: JsonObject = {}
        for name, read in self.readers.items():
            try:
                value = read()
            except json.JSONDecodeError as exc:
                raise _not_json(exc, name) from exc
            if value not in (None, ""):
                out[name] = value
        return out

    def _form_to_json(self, index: int) -> None:
        # Opening the JSON tab carries over what was typed in the form (when it reads as values).
        if self.tabs.widget(index) is not self.raw:
            return
        try:
            values = {name: read() for name, read in self.readers.items()}
        except ValueError:
            return
        self.raw.setPlainText(json.dumps({k: v for k, v in values.items() if v not in (None, "")},
                                         indent=2, ensure_ascii=False))

    def _apply(self) -> None:
        try:
            arguments = self.edited()
        except NotArguments as exc:
            self.show_error(deferred(N_("Not checked: {reason}. Correct it, then choose Check and preview again."),
                                     reason=exc.args[0]))
            return
        self.apply_button.setEnabled(False)
        self._on_apply(arguments)

    def show_error(self, text: str) -> None:
        """Show why the edit was refused (text built with ``deferred`` follows a language switch)."""
        self.apply_button.setEnabled(True)
        self._error = text
        self.error.setText(visible(shown(text)))
        self.error.setVisible(True)
