"""The dialogs of Revert: one confirmation listing every file, and the three-way choice for a
file that changed after the tool wrote it (what it was / what the tool wrote / what it is now).

They only ask; the engine (``echo_desk.agent.undo``) decides what can be reverted and writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QProgressDialog,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.undo.resolution import Resolution
from echo_desk.common.visible_text import has_hidden, path_hides_text, visible, visible_path
from echo_desk.i18n import _, ngettext
from echo_desk.ui.chat.revert_text import record_not_restorable_text
from echo_desk.ui.widgets.warning_note import warning_note

if TYPE_CHECKING:
    from echo_desk.agent.undo.revert import RevertPlan, RevertStep

_MAX_SHOWN_CHARS = 200_000


def visible_text(text: str) -> str:
    """Text on one line, every hidden character shown as ``⟨U+…⟩`` (``common.visible_text``)."""
    return visible(text, one_line=True)


def _hidden_note() -> str:
    return _("A file name or content here holds hidden or control characters (line feeds, bidi, zero-width, "
             "blank-looking letters…). They are shown as ⟨U+…⟩ where they are: read the names carefully.")


def shown_content(data: bytes | None, *, absent: str) -> str:
    """File content as the person can read it: text if it is text, otherwise what it is."""
    if data is None:
        return absent
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return ngettext("Binary content, {n} byte", "Binary content, {n} bytes", len(data)).format(n=len(data))
    # Line feeds stay lines (a CRLF end too); every other hidden character is shown as ⟨U+…⟩.
    if len(text) <= _MAX_SHOWN_CHARS:
        return visible(text)
    # Said, not a bare "…": the person chooses what the whole file holds from what they read.
    return _("{text}\n… Only the first {shown} of its {total} characters are shown here.").format(
        text=visible(text[:_MAX_SHOWN_CHARS]), shown=f"{_MAX_SHOWN_CHARS:,}", total=f"{len(text):,}")


def _content_hides_text(data: bytes | None) -> bool:
    if data is None:
        return False
    try:
        return has_hidden(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return False


class ConfirmRevertDialog(QDialog):
    """One confirmation for several changes: the files that will go back, newest first."""

    def __init__(self, plan: RevertPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_("Revert changes"))
        self.resize(720, 420)
        layout = QVBoxLayout(self)
        intro = QLabel(_("These files go back to what they held before the agent changed them, newest "
                         "change first. A file changed since by someone else is not overwritten: you "
                         "will be asked about it."))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        # A name the agent chose may draw as another file's name ("report.txt⠀", a line feed).
        paths = [s.record.path for s in plan.steps] + [r.path for r in plan.not_restorable]
        self.hidden_warning = warning_note(shown=any(path_hides_text(p) for p in paths))
        self.hidden_warning.setText(_hidden_note())
        layout.addWidget(self.hidden_warning)
        self.files = QListWidget()
        self.files.setAccessibleName(_("Files to revert"))
        for step in plan.steps:
            label = _("delete (it was created)") if step.deletes else _("restore")
            mark = "  ⚠ " + _("changed since") if step.conflict else ""
            self.files.addItem(f"{visible_path(step.record.path)} — {label}{mark}")
        for record in plan.not_restorable:
            self.files.addItem(_("{path} — not restorable: {why}").format(
                path=visible_path(record.path), why=visible_text(record_not_restorable_text(record))))
        layout.addWidget(self.files, 1)
        buttons = QDialogButtonBox()
        self.revert_button = buttons.addButton(_("Revert"), QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = buttons.addButton(_("Cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        cancel.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


class ConflictDialog(QDialog):
    """A file is not what the tool wrote: the person picks which version it should hold.

    Closing the dialog keeps the file as it is now; nothing is overwritten without a choice.
    """

    def __init__(self, step: RevertStep, contents: tuple[bytes | None, bytes | None, bytes | None],
                 on_choice: Callable[[Resolution], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(_("This file changed after the agent wrote it"))
        self.resize(1100, 560)
        self._on_choice = on_choice
        self.choice = Resolution.WHAT_IT_IS_NOW
        layout = QVBoxLayout(self)
        path = QLabel(visible_path(step.record.path))
        path.setTextFormat(Qt.TextFormat.PlainText)
        self.path_label = path
        path.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bold = path.font()
        bold.setBold(True)
        path.setFont(bold)
        layout.addWidget(path)
        why = QLabel(_("Someone changed this file after the agent's change. Choose what it should hold; "
                       "if it changes again before you choose, nothing is written."))
        why.setWordWrap(True)
        layout.addWidget(why)
        before, wrote, now = contents
        self.hidden_warning = warning_note(shown=path_hides_text(step.record.path)
                                           or any(_content_hides_text(d) for d in contents))
        self.hidden_warning.setText(_hidden_note())
        layout.addWidget(self.hidden_warning)
        panes = QHBoxLayout()
        self.panes: dict[Resolution, QPlainTextEdit] = {}
        absent = _("(no file)")
        for resolution, title, data in (
            (Resolution.WHAT_IT_WAS, _("What it was"), before),
            (Resolution.WHAT_THE_TOOL_WROTE, _("What the tool wrote"), wrote),
            (Resolution.WHAT_IT_IS_NOW, _("What it is now"), now),
        ):
            column = QVBoxLayout()
            column.addWidget(QLabel(title))
            pane = QPlainTextEdit()
            pane.setReadOnly(True)
            pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
            pane.setFont(QFont("monospace"))
            pane.setAccessibleName(title)
            if data is None and resolution is Resolution.WHAT_THE_TOOL_WROTE and step.record.after_sha256:
                pane.setPlainText(_("(not kept)"))
            else:
                pane.setPlainText(shown_content(data, absent=absent))
            column.addWidget(pane, 1)
            panes.addLayout(column, 1)
            self.panes[resolution] = pane
        layout.addLayout(panes, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        self.buttons: dict[Resolution, QPushButton] = {}
        for resolution, label in (
            (Resolution.WHAT_IT_WAS, _("Restore what it was")),
            (Resolution.WHAT_THE_TOOL_WROTE, _("Restore what the tool wrote")),
            (Resolution.WHAT_IT_IS_NOW, _("Keep what it is now")),
        ):
            button = QPushButton(label)
            button.clicked.connect(lambda _checked=False, r=resolution: self._choose(r))
            row.addWidget(button)
            self.buttons[resolution] = button
        self.buttons[Resolution.WHAT_THE_TOOL_WROTE].setEnabled(
            wrote is not None or step.record.after_sha256 is None)
        self.buttons[Resolution.WHAT_IT_IS_NOW].setDefault(True)
        layout.addLayout(row)
        self.finished.connect(lambda _code: self._on_choice(self.choice))

    def _choose(self, resolution: Resolution) -> None:
        self.choice = resolution
        self.accept()


class RevertProgress(QProgressDialog):
    """Shown only when a revert lasts (Qt's minimum duration); the window stays usable."""

    SHOW_AFTER_MS = 400

    def __init__(self, total: int, parent: QWidget | None = None) -> None:
        super().__init__(_("Reverting…"), "", 0, max(total, 1), parent)
        self.setWindowTitle(_("Revert changes"))
        self.setCancelButton(None)  # half a revert is worse than waiting: each step is atomic, the set is not
        self.setMinimumDuration(self.SHOW_AFTER_MS)
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setAutoClose(False)
        self.setValue(0)

    def advance(self, done: int, total: int) -> None:
        self.setMaximum(max(total, 1))
        self.setValue(done)
        self.setLabelText(_("Reverting… {done} of {total} changes").format(done=done, total=total))
