"""A read-only box for untrusted text that cannot hide its end: text that does not fit says so
("12 more lines, 3,000 more characters below", counting lines as drawn) and counts as seen only once scrolled or expanded
to the end. Like a diff pane it has ``is_loaded`` and ``loaded``, so the approval dialog keeps one
rule for both: nothing is allowed before all of it was in front of the person.

Untrusted text shown as a tooltip goes through ``plain_tooltip``: Qt guesses rich text for a
tooltip that starts with a tag, and an HTML comment would hide the rest.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QFontDatabase, QResizeEvent, QShowEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, ngettext
from echo_desk.ui.core import i18n_qt, theme

#: Lines up to this many characters fit the dialog's narrowest width in a monospace font.
_SURE_TO_FIT = 60
#: An expanded box grows to its text up to this many lines as drawn, then scrolls.
MOST_EXPANDED_LINES = 40


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` (made visible) literally, whatever tags it holds."""
    return f"<p style='white-space:pre-wrap'>{html.escape(visible(text))}</p>"


class FullTextBox(QPlainTextEdit):
    """Monospace, wrapped, as tall as its text up to ``most_lines``; ``footer`` holds the "more
    below" marker and the Expand button (the owner puts it under the box)."""

    loaded = Signal()

    def __init__(self, text: str = "", *, most_lines: int = 6, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._most = most_lines
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.footer = QWidget()
        row = QHBoxLayout(self.footer)
        row.setContentsMargins(0, 0, 0, 0)
        self.marker = QLabel()
        self.marker.setWordWrap(True)
        theme.styled(self.marker, lambda p: f"color: {p.warn}; background: {p.warn_bg}; padding: 2px 4px;")
        self.expand = QPushButton()
        self.expand.setAutoDefault(False)
        self.expand.clicked.connect(self._expand)
        row.addWidget(self.marker, 1)
        row.addWidget(self.expand)
        self.is_loaded = True
        self._expanded = False
        self.verticalScrollBar().valueChanged.connect(self._check)
        self.verticalScrollBar().rangeChanged.connect(self._check)
        i18n_qt.bus().language_changed.connect(self._check)
        self.set_text(text)

    def set_text(self, text: str) -> None:
        """Show ``text`` as it is (the caller made it visible); seen again only if it fits."""
        self.setPlainText(text)
        lines = text.split("\n")
        self.setFixedHeight(self._height(min(self._most, len(lines))))
        # Sure to fit before any layout: few short lines. Anything else waits for the layout.
        self.is_loaded = len(lines) <= self._most and max(map(len, lines)) <= _SURE_TO_FIT
        self._check()

    def _height(self, lines: int) -> int:
        return int(max(1, lines) * self.fontMetrics().lineSpacing() + 2 * self.frameWidth() + 12)

    def _lines_height(self, most: int) -> int:
        """The height that shows the first ``most`` lines as drawn, frame and margins included: a
        long line wraps into several, and a line with Chinese in a fallback font is taller than
        the monospace font's own line spacing says. Only laid-out blocks know their lines (the
        box lays out what is in view), so each is laid out here first."""
        block, height, lines = self.document().begin(), 0.0, 0
        while block.isValid() and lines < most:
            block_height = self.blockBoundingRect(block).height()  # lays the block out
            layout = block.layout()
            count = layout.lineCount() if layout is not None else 0
            if lines + max(1, count) <= most or count == 0:
                height += block_height
                lines += max(1, count)
            else:
                last = layout.lineAt(most - lines - 1)
                height += last.y() + last.height()
                lines = most
            block = block.next()
        return max(self._height(1), int(height + 0.999) + 2 * self.frameWidth()
                   + 2 * int(self.document().documentMargin()) + 2)

    def _fit(self) -> None:
        """As tall as the laid-out text, up to ``most_lines`` lines."""
        if self._expanded:
            return
        wanted = self._lines_height(self._most)
        if wanted > self.height():  # only ever taller than the first guess: never hides a line
            self.setFixedHeight(wanted)

    def _expand(self) -> None:
        self._expanded = True
        self.setMaximumHeight(16777215)
        self._fit_expanded()
        # Once the scroll bar of the short box is gone, the text wraps at the wider width.
        QTimer.singleShot(0, self, self._fit_expanded)
        QTimer.singleShot(0, self, self._check)

    def _fit_expanded(self) -> None:
        """As tall as all of the text as drawn, up to ``MOST_EXPANDED_LINES``; beyond, it scrolls."""
        if self._expanded:
            self.setFixedHeight(self._lines_height(MOST_EXPANDED_LINES))

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        QTimer.singleShot(0, self, self._fit)
        QTimer.singleShot(0, self, self._check)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._expanded and event.size().width() != event.oldSize().width():
            QTimer.singleShot(0, self, self._fit_expanded)  # the text wraps anew at another width
        QTimer.singleShot(0, self, self._check)

    def remaining(self) -> tuple[int, int]:
        """Lines as drawn (a long line wraps into several) and characters from the first line not
        wholly in view to the end: one wrapped line counted as one said "0 more lines" while its
        last rows were out of sight."""
        first = self._first_line_out_of_view()
        if first is None:
            return 0, 0
        line_number, position = first
        lines = max(0, self.document().lineCount() - line_number)
        chars = max(0, self.document().characterCount() - 1 - position)
        return lines, chars

    def _first_line_out_of_view(self) -> tuple[int, int] | None:
        """The drawn line number and text position of the first line cut off at the bottom."""
        bottom = self.viewport().height()
        offset = self.contentOffset()
        block = self.firstVisibleBlock()
        while block.isValid():
            top = self.blockBoundingGeometry(block).translated(offset).top()
            layout = block.layout()
            for index in range(layout.lineCount() if layout is not None else 0):
                line = layout.lineAt(index)
                if top + line.y() + line.height() > bottom:
                    return block.firstLineNumber() + index, block.position() + line.textStart()
            block = block.next()
        return None

    def _check(self, *_args: object) -> None:
        bar = self.verticalScrollBar()
        at_end = bar.maximum() == 0 or bar.value() >= bar.maximum()
        if at_end and self.isVisible() and not self.is_loaded:
            self.is_loaded = True
            self.loaded.emit()
        hidden = not at_end and self.isVisible()
        if hidden:
            lines, chars = self.remaining()
            if lines:
                text = ngettext("{lines} more line, {chars} more characters below — scroll to the end "
                                "or expand it before you can allow",
                                "{lines} more lines, {chars} more characters below — scroll to the end "
                                "or expand it before you can allow", lines)
            else:  # not laid out yet: no number rather than a wrong one
                text = _("More text below — scroll to the end or expand it before you can allow")
            self.marker.setText(text.format(lines=f"{lines:,}", chars=f"{chars:,}"))
        # Heard with the box's name: what is below, and that Allow waits for it.
        self.setAccessibleDescription(self.marker.text() if hidden else "")
        self.expand.setText(_("Expand"))
        self.expand.setAccessibleName(_("Show all of this text"))
        self.footer.setVisible(hidden)
