"""The card under the transcript when the model's answer was cut (a runaway or the token cap).

It says what happened in plain words, from the engine's typed ``Runaway`` (never from its
English description), and offers Retry: one click, or Enter while the card has the focus (it
takes the focus when it appears, so Enter right away retries).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, sentences
from echo_desk.ui.core import i18n_qt, theme

if TYPE_CHECKING:
    from echo_desk.agent.runaway import Runaway

#: A repeated span is quoted up to this many characters.
_UNIT_CHARS = 60


def runaway_title(runaway: Runaway, title_for: Callable[[str], str]) -> str:
    from echo_desk.agent.runaway import RunawayKind  # a cut turn is rare: not before the first frame

    if runaway.kind is RunawayKind.REPEATED:
        return _("The model repeated itself")
    if runaway.kind is RunawayKind.CALL_TOO_LONG:
        return _("The call to {tool} grew too long").format(tool=title_for(runaway.tool))
    return _("The answer was cut off")


def runaway_detail(runaway: Runaway, title_for: Callable[[str], str]) -> str:
    """What happened and what did not, in the person's language (plain text)."""
    from echo_desk.agent.runaway import RunawayKind  # a cut turn is rare: not before the first frame

    if runaway.kind is RunawayKind.REPEATED:
        unit = visible(runaway.unit.strip())
        unit = unit if len(unit) <= _UNIT_CHARS else unit[:_UNIT_CHARS] + "…"
        what = _("It wrote “{unit}” {repeats} times in a row, so Echo Desk stopped it after {tokens} tokens.").format(
            unit=unit, repeats=runaway.repeats, tokens=runaway.tokens)
    elif runaway.kind is RunawayKind.CALL_TOO_LONG:
        what = _("Its arguments grew past what the tool takes, so Echo Desk stopped it after {tokens} tokens.").format(
            tokens=runaway.tokens)
    else:
        what = _("The model reached its length limit after {tokens} tokens.").format(tokens=runaway.tokens)
    not_run = _("The unfinished call was not run.") if runaway.tool else _("Nothing was run from the cut part.")
    return sentences(what, not_run, _("Retry asks again and tells the model what went wrong."))


class RetryCard(QFrame):
    """Shown by the window after a cut turn; ``retry_requested`` carries the ``Runaway``."""

    retry_requested = Signal(object)

    def __init__(self, title_for: Callable[[str], str] = lambda name: name, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("retryCard")
        theme.styled(self, lambda p: f"#retryCard {{ background: {p.warn_bg}; border: 1px solid {p.warn_border}; "
                                     "border-radius: 6px; }")
        self.title_for = title_for
        self.runaway: Runaway | None = None
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setStyleSheet("font-weight: 600")
        self.detail = QLabel()
        self.detail.setTextFormat(Qt.TextFormat.PlainText)  # the repeated span is model text
        self.detail.setWordWrap(True)
        self.retry_button = QPushButton()
        self.retry_button.clicked.connect(self._retry)
        self.dismiss_button = QPushButton()
        self.dismiss_button.setFlat(True)
        self.dismiss_button.clicked.connect(self.dismiss)
        text = QVBoxLayout()
        text.addWidget(self.title)
        text.addWidget(self.detail)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 8, 10, 8)
        row.addLayout(text, 1)
        row.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.dismiss_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.setVisible(False)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.retry_button.setText(_("Retry"))
        self.retry_button.setAccessibleName(_("Retry this turn"))
        self.retry_button.setToolTip(_("Ask the model again (Enter)"))
        self.dismiss_button.setText(_("Dismiss"))
        self.setAccessibleName(_("The answer was stopped"))
        if self.runaway is not None:
            self.title.setText(runaway_title(self.runaway, self.title_for))
            self.detail.setText(runaway_detail(self.runaway, self.title_for))

    def show_runaway(self, runaway: Runaway) -> None:
        self.runaway = runaway
        self.retranslate()
        self.setVisible(True)
        self.retry_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def dismiss(self) -> None:
        self.runaway = None
        self.setVisible(False)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Enter on the focused card or its buttons (a button outside a dialog ignores Enter).
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.focusWidget() is not self.dismiss_button:
            self._retry()
            return
        super().keyPressEvent(event)

    def _retry(self) -> None:
        runaway = self.runaway
        if runaway is None:
            return
        self.dismiss()
        self.retry_requested.emit(runaway)
