"""The question dialog behind ``Host.ask``: free text, a list of choices, or a small form.

Forms come from a flat JSON schema (``{"type": "object", "properties": {...}}``) with its
defaults filled in. The answer is data: accept (with text/values), decline or cancel.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.cut_text import cut_note
from echo_desk.common.multi_choice import MultiChoice
from echo_desk.common.secret_names import is_secret_field
from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.tools.host import Answer, AnswerAction, Question, choice_titles
from echo_desk.tools.results import JsonObject
from echo_desk.ui.approval.front_delay import FrontDelay
from echo_desk.ui.approval.multi_choice_box import MultiChoiceBox
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.core.wrap_text import breakable
from echo_desk.ui.widgets.full_text_box import plain_tooltip

#: How many lines of the question show before it scrolls.
MOST_PROMPT_LINES = 20
#: The fewest its box gives way to when the form under it needs the room (a long field title on
#: a small screen): held at full height, the form's rows were drawn over the server's text.
LEAST_PROMPT_LINES = 5


def _plain_label(text: str) -> QLabel:
    """Untrusted text as a label: plain text only (no tags, no image loads), selectable."""
    label = QLabel()
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setText(text)
    return label


def _asker_text(question: Question) -> str:
    if question.mcp_server and question.client:
        return _("MCP server “{name}” asks, during a call from {client}:").format(
            name=visible(question.mcp_server, one_line=True), client=visible(question.client, one_line=True))
    if question.mcp_server:
        return _("MCP server “{name}” asks:").format(name=visible(question.mcp_server, one_line=True))
    who = question.asked_by if question.asked_by not in ("", "agent") else ""
    if who:
        return _("The agent ({scope}) asks:").format(scope=visible(who, one_line=True))
    return _("The agent asks:")


class QuestionDialog(QDialog):
    """Non-blocking: ``open()`` it and listen to ``answered`` (emitted exactly once)."""

    answered = Signal(object)

    def __init__(self, question: Question, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.question = question
        self.answer: Answer | None = None
        self.fields: dict[str, QWidget] = {}
        self.field_labels: dict[str, QLabel] = {}
        #: A text field's default as shown (escapes visible, a cut said) and the value it stands for.
        self._shown_defaults: dict[str, tuple[str, str]] = {}
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        # Who asks comes first, in bold, from typed data: a server's question must never pass
        # for Echo Desk's own, and every text below it is the asker's, shown as plain text.
        self.asker = _plain_label(_asker_text(question))
        font = self.asker.font()
        font.setBold(True)
        self.asker.setFont(font)
        layout.addWidget(self.asker)
        self.destination: QLabel | None = None
        if question.mcp_server:
            self.destination = _plain_label("")
            theme.styled(self.destination, lambda p: f"color: {p.danger_text}; background: {p.danger_bg}; padding: 4px;")
            layout.addWidget(self.destination)
        prompt = _plain_label("")
        prompt.setWordWrap(True)
        prompt.setTextFormat(Qt.TextFormat.PlainText)
        prompt.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if question.mcp_server:
            # Set apart as quoted text: what the server wrote, however much it looks like Echo
            # Desk's own wording (an "allow run_command?" of its own), is the server's.
            theme.styled(prompt, lambda p: f"background: {p.code_bg}; border-left: 3px solid {p.code_border};"
                                           " padding: 6px;")
        self.prompt = prompt
        # A long text scrolls in a box of its own: at full height, a server's 2,000-line message
        # put the buttons 28,000 pixels below the screen. A short one stays a label, sized to fit.
        self.prompt_scroll: QScrollArea | None = None
        if question.prompt.count("\n") >= MOST_PROMPT_LINES or len(question.prompt) > MOST_PROMPT_LINES * 80:
            self.prompt_scroll = QScrollArea()
            self.prompt_scroll.setWidgetResizable(True)
            self.prompt_scroll.setFrameShape(QFrame.Shape.NoFrame)
            self.prompt_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
            self.prompt_scroll.setWidget(prompt)
            line = self.fontMetrics().lineSpacing()
            self.prompt_scroll.setMinimumHeight(line * LEAST_PROMPT_LINES)
            self.prompt_scroll.setMaximumHeight(line * MOST_PROMPT_LINES)
            self.prompt_scroll.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
            layout.addWidget(self.prompt_scroll)
        else:
            layout.addWidget(prompt)

        self.text: QLineEdit | None = None
        self.choices: QListWidget | None = None
        self.url: QLabel | None = None
        self.url_intro: QLabel | None = None
        properties = (question.schema or {}).get("properties") or {}
        if question.url:
            # The whole address, escapes visible, before anything is opened: the host name is
            # the part that says where the person is sent.
            self.url_intro = _plain_label("")
            self.url = _plain_label(visible(question.url))
            theme.styled(self.url, lambda p: f"background: {p.code_bg}; padding: 4px; font-family: monospace;")
            layout.addWidget(self.url_intro)
            layout.addWidget(self.url)
        elif properties:
            form = QFormLayout()
            for name, spec in properties.items():
                spec = spec if isinstance(spec, dict) else {}
                widget = self._field(spec)
                if isinstance(widget, MultiChoiceBox):
                    widget.changed.connect(self._update_answer)
                title = str(spec.get("title") or name)
                if isinstance(widget, QLineEdit) and is_secret_field(name, title, str(spec.get("format") or "")):
                    widget.setEchoMode(QLineEdit.EchoMode.Password)
                if isinstance(widget, QLineEdit) and spec.get("default") is not None:
                    # Escapes visible, as every other text of the asker's: a bidi override in a
                    # default drew "yes" for what was not.
                    default = str(spec["default"])
                    cut = question.form_cuts.get((name, "default"), 0)
                    widget.setText(visible(default, one_line=True) + (" " + cut_note(cut) if cut else ""))
                    self._shown_defaults[name] = (widget.text(), default)
                self.fields[name] = widget
                self.field_labels[name] = _plain_label("")
                form.addRow(self.field_labels[name], widget)
            layout.addLayout(form)
        elif question.choices:
            self.choices = QListWidget()
            for choice in question.choices:  # shown visibly; the answer is the real choice
                item = QListWidgetItem(visible(choice, one_line=True))
                item.setData(Qt.ItemDataRole.UserRole, choice)
                self.choices.addItem(item)
            self.choices.setCurrentRow(0)
            self.choices.itemDoubleClicked.connect(lambda _item: self._finish(AnswerAction.ACCEPT))
            layout.addWidget(self.choices)
        else:
            self.text = QLineEdit()
            layout.addWidget(self.text)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.decline, self.cancel, self.ok = QPushButton(), QPushButton(), QPushButton()
        self.ok.setDefault(True)
        self.decline.setAutoDefault(False)
        self.cancel.setAutoDefault(False)
        self.decline.clicked.connect(lambda: self._finish(AnswerAction.DECLINE))
        self.cancel.clicked.connect(lambda: self._finish(AnswerAction.CANCEL))
        self.ok.clicked.connect(lambda: self._finish(AnswerAction.ACCEPT))
        for b in (self.decline, self.cancel, self.ok):
            buttons.addWidget(b)
        layout.addLayout(buttons)
        # Asked during another app's call, it opens unasked in front: Answer works once it has
        # been in front for a moment (a click or Enter meant for the window below must not answer).
        self.front_delay = FrontDelay(self, self._update_answer, applies=bool(question.client))
        self._update_answer()
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        # The title is what a task bar or window switcher shows: it names the server too.
        self.setWindowTitle(_("Question from MCP server “{name}”").format(
            name=visible(self.question.mcp_server, one_line=True)) if self.question.mcp_server
            else _("A question for you"))
        self.asker.setText(_asker_text(self.question))
        question = self.question
        self.prompt.setText(visible(question.prompt) + ("\n" + cut_note(question.prompt_cut)
                                                         if question.prompt_cut else ""))
        properties = (question.schema or {}).get("properties") or {}
        required = set((question.schema or {}).get("required") or [])
        for name, label in self.field_labels.items():
            spec = properties[name] if isinstance(properties[name], dict) else {}
            text = visible(str(spec.get("title") or name), one_line=True)
            if cut := question.form_cuts.get((name, "title"), 0):
                text += " " + cut_note(cut)
            text += " *" if name in required else ""
            label.setText(breakable(text))
            self.fields[name].setAccessibleName(text)
            if isinstance(field := self.fields[name], MultiChoiceBox):
                field.retranslate()  # its line says how many, in the language now shown
            if spec.get("description"):
                cut = question.form_cuts.get((name, "description"), 0)
                self.fields[name].setToolTip(plain_tooltip(str(spec["description"])
                                                           + ("\n" + cut_note(cut) if cut else "")))
        if self.destination is not None and self.question.url:
            self.destination.setText(_("The page opens in your browser, outside Echo Desk: what you enter there goes "
                                       "to that site. The server only learns whether you opened it."))
        elif self.destination is not None:
            self.destination.setText(_("Your answer is sent to this server. Echo Desk never asks for its own keys "
                                       "or passwords in a question: enter them only in Settings."))
        self.prompt.setAccessibleName(_("The server's question") if self.question.mcp_server else _("Question"))
        if self.choices is not None:
            self.choices.setAccessibleName(_("Choices"))
        if self.text is not None:
            self.text.setAccessibleName(_("Your answer"))
            self.text.setPlaceholderText(_("Your answer"))
        self.decline.setText(_("Decline"))
        self.cancel.setText(_("Cancel"))
        self.ok.setText(_("Answer"))
        if self.url is not None and self.url_intro is not None:
            self.url_intro.setText(_("It asks you to open this address in your browser ({host}):").format(
                host=visible(urlsplit(self.question.url).hostname or "?", one_line=True)))
            self.url.setAccessibleName(_("Address to open"))
            self.ok.setText(_("Open in browser"))
        self.decline.setAccessibleName(_("Decline to answer"))
        self.cancel.setAccessibleName(_("Cancel the question"))
        self.ok.setAccessibleName(_("Send the answer"))

    @staticmethod
    def _field(spec: JsonObject) -> QWidget:
        kind = spec.get("type", "string")
        default = spec.get("default")
        if (several := MultiChoice.of(spec)) is not None:
            return MultiChoiceBox(several)
        if "enum" in spec:
            combo = QComboBox()
            combo.addItems([visible(title, one_line=True) for title in choice_titles(spec)])
            if default in spec["enum"]:
                combo.setCurrentIndex(list(spec["enum"]).index(default))
            combo.setProperty("enum_values", list(spec["enum"]))
            return combo
        if kind == "boolean":
            box = QCheckBox()
            # Only a real true ticks it: bool("false") is True (the core refuses such a form from
            # a server; this holds for any other asker).
            box.setChecked(default is True)
            return box
        if kind == "integer":
            spin = QSpinBox()
            # A spin box holds 32-bit values: wider bounds are narrowed to them, not overflowed.
            low, high = -2**31, 2**31 - 1
            spin.setRange(max(low, min(high, int(spec.get("minimum", low)))),
                          max(low, min(high, int(spec.get("maximum", high)))))
            spin.setValue(max(low, min(high, int(default or 0))))
            return spin
        if kind == "number":
            dspin = QDoubleSpinBox()
            dspin.setDecimals(4)
            dspin.setRange(float(spec.get("minimum", -1e12)), float(spec.get("maximum", 1e12)))
            dspin.setValue(float(default or 0))
            return dspin
        return QLineEdit()  # its default is set by the caller, made visible

    def values(self) -> JsonObject:
        out: JsonObject = {}
        for name, widget in self.fields.items():
            if isinstance(widget, MultiChoiceBox):
                out[name] = widget.values()
            elif isinstance(widget, QComboBox):
                out[name] = widget.property("enum_values")[widget.currentIndex()]
            elif isinstance(widget, QCheckBox):
                out[name] = widget.isChecked()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                out[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                shown, default = self._shown_defaults.get(name, ("", ""))
                # Kept as shown, the default is sent as the asker gave it: the escapes stood
                # for its hidden characters, the note for the part that was cut.
                out[name] = default if name in self._shown_defaults and widget.text() == shown else widget.text()
        return out

    def _fields_answerable(self) -> bool:
        """Whether every field holds a value that can be sent (a list field's count in its bounds:
        its own line says why not)."""
        return not any(isinstance(w, MultiChoiceBox) and w.problem for w in self.fields.values())

    def _update_answer(self) -> None:
        self.ok.setEnabled(self.front_delay.armed and self._fields_answerable())

    def _finish(self, action: AnswerAction) -> None:
        if self.answer is not None or (action is AnswerAction.ACCEPT and not (
                self.front_delay.armed and self._fields_answerable())):
            return
        text = ""
        if action is AnswerAction.ACCEPT:
            if self.text is not None:
                text = self.text.text()
            elif self.choices is not None and self.choices.currentItem() is not None:
                text = self.choices.currentItem().data(Qt.ItemDataRole.UserRole)
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
