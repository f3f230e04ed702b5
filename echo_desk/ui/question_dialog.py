"""The question dialog behind ``Host.ask``: free text, a list of choices, or a small form.

Forms come from a flat JSON schema (``{"type": "object", "properties": {...}}``) with its
defaults filled in. The answer is data: accept (with text/values), decline or cancel.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import _
from echo_desk.tools.host import Answer, AnswerAction, Question


class QuestionDialog(QDialog):
    """Non-blocking: ``open()`` it and listen to ``answered`` (emitted exactly once)."""

    answered = Signal(object)

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = question
        self.answer: Answer | None = None
        self.fields: dict[str, QWidget] = {}
        self.setWindowTitle(_("A question for you"))
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        if question.asked_by:
            asked = QLabel(_("Asked by {who}").format(who=question.asked_by))
            asked.setTextFormat(Qt.TextFormat.PlainText)
            layout.addWidget(asked)
        prompt = QLabel(question.prompt)
        prompt.setWordWrap(True)
        prompt.setTextFormat(Qt.TextFormat.PlainText)
        prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        prompt.setAccessibleName(_("Question"))
        layout.addWidget(prompt)

        self.text: QLineEdit | None = None
        self.choices: QListWidget | None = None
        properties = (question.schema or {}).get("properties") or {}
        if properties:
            form = QFormLayout()
            required = set((question.schema or {}).get("required") or [])
            for name, spec in properties.items():
                widget = self._field(spec if isinstance(spec, dict) else {})
                label = str(spec.get("title") or name) if isinstance(spec, dict) else name
                if name in required:
                    label += " *"
                widget.setAccessibleName(label)
                if isinstance(spec, dict) and spec.get("description"):
                    widget.setToolTip(str(spec["description"]))
                self.fields[name] = widget
                form.addRow(label, widget)
            layout.addLayout(form)
        elif question.choices:
            self.choices = QListWidget()
            self.choices.addItems(list(question.choices))
            self.choices.setCurrentRow(0)
            self.choices.setAccessibleName(_("Choices"))
            self.choices.itemDoubleClicked.connect(lambda _item: self._finish(AnswerAction.ACCEPT))
            layout.addWidget(self.choices)
        else:
            self.text = QLineEdit()
            self.text.setAccessibleName(_("Your answer"))
            self.text.setPlaceholderText(_("Your answer"))
            layout.addWidget(self.text)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.decline = QPushButton(_("Decline"))
        self.cancel = QPushButton(_("Cancel"))
        self.ok = QPushButton(_("Answer"))
        self.decline.setAccessibleName(_("Decline to answer"))
        self.cancel.setAccessibleName(_("Cancel the question"))
        self.ok.setAccessibleName(_("Send the answer"))
        self.ok.setDefault(True)
        self.decline.setAutoDefault(False)
        self.cancel.setAutoDefault(False)
        self.decline.clicked.connect(lambda: self._finish(AnswerAction.DECLINE))
        self.cancel.clicked.connect(lambda: self._finish(AnswerAction.CANCEL))
        self.ok.clicked.connect(lambda: self._finish(AnswerAction.ACCEPT))
        for b in (self.decline, self.cancel, self.ok):
            buttons.addWidget(b)
        layout.addLayout(buttons)

    @staticmethod
    def _field(spec: dict[str, Any]) -> QWidget:
        kind = spec.get("type", "string")
        default = spec.get("default")
        if "enum" in spec:
            combo = QComboBox()
            combo.addItems([str(v) for v in spec["enum"]])
            if default is not None:
                combo.setCurrentText(str(default))
            combo.setProperty("enum_values", list(spec["enum"]))
            return combo
        if kind == "boolean":
            box = QCheckBox()
            box.setChecked(bool(default))
            return box
        if kind == "integer":
            spin = QSpinBox()
            spin.setRange(int(spec.get("minimum", -2**31)), int(spec.get("maximum", 2**31 - 1)))
            spin.setValue(int(default or 0))
            return spin
        if kind == "number":
            dspin = QDoubleSpinBox()
            dspin.setDecimals(4)
            dspin.setRange(float(spec.get("minimum", -1e12)), float(spec.get("maximum", 1e12)))
            dspin.setValue(float(default or 0))
            return dspin
        line = QLineEdit()
        if default is not None:
            line.setText(str(default))
        return line

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QComboBox):
                out[name] = widget.property("enum_values")[widget.currentIndex()]
            elif isinstance(widget, QCheckBox):
                out[name] = widget.isChecked()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                out[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                out[name] = widget.text()
        return out

    def _finish(self, action: AnswerAction) -> None:
        if self.answer is not None:
            return
        text = ""
        if action is AnswerAction.ACCEPT:
            if self.text is not None:
                text = self.text.text()
            elif self.choices is not None and self.choices.currentItem() is not None:
                text = self.choices.currentItem().text()
        self.answer = Answer(action=action, text=text, values=self.values() if action is AnswerAction.ACCEPT else {})
        self.answered.emit(self.answer)
        if action is AnswerAction.ACCEPT:
            super().accept()
        else:
            super().reject()

    def reject(self) -> None:
        self._finish(AnswerAction.CANCEL)

    def closeEvent(self, event: QCloseEvent) -> None:
        self._finish(AnswerAction.CANCEL)
        super().closeEvent(event)
