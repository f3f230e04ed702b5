"""Diff views: a plain-text view that paints line colours and numbers for visible lines only.

No HTML per line and no syntax highlighter pass over the whole text, so a 10,000-line diff
opens in milliseconds and scrolls smoothly.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable, Iterator, Sequence

from PySide6.QtCore import QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QFontDatabase,
    QImage,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import _
from echo_desk.tools import DiffHunk
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.widgets.diffparse import (
    ADD,
    DELETE,
    FILLER,
    HUNK,
    META,
    ParsedDiff,
    UnifiedParser,
    side_by_side,
)

#: Palette role of each line kind's background.
_BACKGROUND_ROLE = {ADD: "diff_add", DELETE: "diff_delete", HUNK: "diff_hunk", META: "diff_meta", FILLER: "diff_filler"}
_FIRST_SLICE = 400  # more than any screen shows
_FIRST_SCREEN = 120  # a parsed diff's first lines, shown with the dialog (a tall screen shows ~60)
_SLICE = 1500  # ~5–10 ms of work per event-loop turn
#: A hunk the person unchecked: grey under the text and a veil over it, so it reads as declined
#: (palette roles; the veil is the window colour, part see-through).
_DECLINED_BG = "table_header"
_DECLINED_FG = "faint"
_VEIL_ALPHA = 170
#: A line longer than this, or with text after a run of blanks this long, may end far to the
#: right of a view that does not wrap ("DEBUG = False" + 400 spaces + code): the view wraps then.
_WIDE_CHARS = 160
_BLANK_RUN = re.compile(r"\S[ \t]{16,}\S")


def hides_to_the_right(line: str) -> bool:
    """Whether part of ``line`` could sit out of view to the right of a diff that does not wrap."""
    return len(line) > _WIDE_CHARS or _BLANK_RUN.search(line) is not None


def _veil_colour() -> QColor:
    colour = theme.current().qcolor("window")
    colour.setAlpha(_VEIL_ALPHA)
    return colour


class HunkSpans:
    """Which hunk each line of a diff belongs to, from the engine's ``DiffHunk``s (their place in
    the diff), never from reading ``@@`` lines: a file name can hold those."""

    def __init__(self, hunks: Sequence[DiffHunk] = ()) -> None:
        ordered = sorted(range(len(hunks)), key=lambda k: hunks[k].first_line)
        self._starts = [hunks[k].first_line for k in ordered]
        self._ends = [hunks[k].first_line + hunks[k].line_count for k in ordered]
        self._index = ordered

    def owner(self, line: int) -> int:
        """The position (in the hunks given) of the hunk holding diff line ``line``, or -1."""
        at = bisect.bisect_right(self._starts, line) - 1
        return self._index[at] if at >= 0 and line < self._ends[at] else -1


class _Gutter(QWidget):
    def __init__(self, view: DiffTextView) -> None:
        super().__init__(view)
        self._view = view

    def sizeHint(self) -> QSize:
        return QSize(self._view.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:
        self._view.paint_gutter(self, event)


class DiffTextView(QPlainTextEdit):
    """Read-only diff text with old/new line-number gutter and per-line backgrounds.

    A long diff is loaded in slices on the event loop (the first screenful at once), so opening
    it never blocks the window for long; ``loaded`` fires when every line is in.
    """

    loaded = Signal()
    #: The view started wrapping its lines (one was too wide to be read without scrolling right).
    wrapped = Signal()

    def __init__(self, parsed: ParsedDiff, *, show_old: bool = True, show_new: bool = True,
                 fed: bool = False, parent: QWidget | None = None) -> None:
        """``fed``: ``parsed`` is still growing; whoever parses calls ``take`` and ``finish``
        (the view loads nothing on its own)."""
        super().__init__(parent)
        self._parsed = parsed
        self._fed = fed
        self._show_old = show_old
        self._show_new = show_new
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setWordWrapMode(QTextOption.WrapMode.NoWrap)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                     | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.setUndoRedoEnabled(False)
        #: Lines are wrapped: one was too wide to be read whole without scrolling right.
        self.wraps = False
        self._next_line = min(len(parsed.lines), _FIRST_SLICE)
        self.setPlainText("\n".join(parsed.lines[: self._next_line]))
        self._wrap_if_wide(parsed.lines[: self._next_line])
        self.is_loaded = not fed and self._next_line >= len(parsed.lines)
        if not self.is_loaded and not fed:
            QTimer.singleShot(0, self._load_more)
        self._digits = 3
        self._widen_numbers(0)
        self._gutter = _Gutter(self)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self.updateRequest.connect(self._on_update_request)
        #: The hunk (position in the change's hunks) of a row, or -1 (see ``set_hunk_owner``).
        self._owner_of: Callable[[int], int] = lambda row: -1
        self._declined: frozenset[int] = frozenset()

    @property
    def parsed(self) -> ParsedDiff:
        return self._parsed

    def _wrap_if_wide(self, lines: Sequence[str]) -> None:
        """Wrap every line once one could end out of view to the right: a diff is read top to
        bottom, and nobody scrolls right on each line to see whether it goes on."""
        if self.wraps or not any(map(hides_to_the_right, lines)):
            return
        self.wraps = True
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.wrapped.emit()

    def _widen_numbers(self, start: int) -> None:
        """Room in the gutter for the largest line number from ``start`` on."""
        width = max((n for n in (*self._parsed.old[start:], *self._parsed.new[start:]) if n is not None), default=0)
        digits = max(self._digits, len(str(width)))
        if digits != self._digits:
            self._digits = digits
            if hasattr(self, "_gutter"):
                self.setViewportMargins(self.gutter_width(), 0, 0, 0)
                self._place_gutter()

    def take(self) -> None:
        """Show the lines parsed since the last call (``fed`` views)."""
        lines = self._parsed.lines
        start, end = self._next_line, len(lines)
        if start >= end:
            return
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(("\n" if start else "") + "\n".join(lines[start:end]))
        self._next_line = end
        self._wrap_if_wide(lines[start:end])
        self._widen_numbers(start)

    def finish(self) -> None:
        """Every line is parsed and shown (``fed`` views)."""
        self.take()
        self.is_loaded = True
        self.loaded.emit()

    @property
    def declined(self) -> frozenset[int]:
        return self._declined

    def set_hunk_owner(self, owner_of: Callable[[int], int]) -> None:
        """Which hunk each row belongs to (the pane gives it from the engine's hunks)."""
        self._owner_of = owner_of

    def set_declined(self, hunks: frozenset[int]) -> None:
        """Grey out these hunks (positions in the change's hunks): they will not be written."""
        changed = hunks ^ self._declined
        self._declined = hunks
        # Repaint only when a hunk that changed is on screen: toggling one of 500 hunks must
        # not cost a repaint of the whole view each time.
        if not changed or not self.isVisible():
            return
        first = self.firstVisibleBlock().blockNumber()
        last = min(len(self._parsed), first + self.viewport().height() // max(1, self.fontMetrics().lineSpacing()) + 2)
        if any(self._owner_of(n) in changed for n in range(max(0, first), last)):
            self.viewport().update()

    def is_declined_line(self, number: int) -> bool:
        return 0 <= number < len(self._parsed) and self._owner_of(number) in self._declined

    def _load_more(self) -> None:
        lines = self._parsed.lines
        end = min(len(lines), self._next_line + _SLICE)
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText("\n" + "\n".join(lines[self._next_line:end]))
        self._wrap_if_wide(lines[self._next_line:end])
        self._next_line = end
        if end < len(lines):
            QTimer.singleShot(0, self._load_more)
        else:
            self.is_loaded = True
            self.loaded.emit()

    def gutter_width(self) -> int:
        columns = int(self._show_old) + int(self._show_new)
        return 8 + columns * (self.fontMetrics().horizontalAdvance("9") * self._digits + 8)

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_gutter()

    def _place_gutter(self) -> None:
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def _visible_blocks(self) -> Iterator[tuple[int, QRectF]]:
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        bottom = self.viewport().height()
        while block.isValid():
            geom = self.blockBoundingGeometry(block).translated(offset)
            if geom.top() > bottom:
                break
            yield block.blockNumber(), geom
            block = block.next()

    def paintEvent(self, event: QPaintEvent) -> None:
        # Colour only the lines on screen, under the text, then let Qt draw the text itself.
        painter = QPainter(self.viewport())
        width = self.viewport().width()
        kinds = self._parsed.kinds
        palette = theme.current()
        declined: list[tuple[int, QRectF]] = []
        for number, geom in self._visible_blocks():
            if number < len(kinds):
                role = _BACKGROUND_ROLE.get(kinds[number])
                if self._declined and self.is_declined_line(number):
                    role = _DECLINED_BG
                    declined.append((number, geom))
                if role is not None:
                    painter.fillRect(QRect(0, int(geom.top()), width, int(geom.height()) + 1), palette.qcolor(role))
        painter.end()
        super().paintEvent(event)
        if declined:
            self._veil(declined, width)

    def _veil(self, rows: list[tuple[int, QRectF]], width: int) -> None:
        # Over the text: faded, and the hunk's header says it will not be written.
        painter = QPainter(self.viewport())
        veil = _veil_colour()
        for number, geom in rows:
            rect = QRect(0, int(geom.top()), width, int(geom.height()) + 1)
            painter.fillRect(rect, veil)
            if self._parsed.kinds[number] == HUNK:
                painter.setPen(theme.current().qcolor(_DECLINED_FG))
                painter.drawText(rect.adjusted(0, 0, -8, 0), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                                 _("declined: not written"))
            elif self._parsed.kinds[number] in (ADD, DELETE):
                # A change that will not happen is struck through (context lines stay readable).
                painter.setPen(theme.current().qcolor(_DECLINED_FG))
                left = int(self.contentOffset().x() + self.document().documentMargin())
                right = left + self.fontMetrics().horizontalAdvance(self._parsed.lines[number])
                painter.drawLine(left, rect.center().y(), right, rect.center().y())
        painter.end()

    def paint_gutter(self, gutter: QWidget, event: QPaintEvent) -> None:
        painter = QPainter(gutter)
        painter.fillRect(event.rect(), theme.current().qcolor("diff_meta"))
        painter.setPen(theme.current().qcolor("muted"))
        painter.setFont(self.font())
        column = self.fontMetrics().horizontalAdvance("9") * self._digits + 8
        top_margin = self.contentsRect().top()
        for number, geom in self._visible_blocks():
            if number >= len(self._parsed):
                break
            y = int(geom.top()) + top_margin - self.contentsRect().top()
            h = int(geom.height())
            x = 4
            if self._show_old:
                old = self._parsed.old[number]
                if old is not None:
                    painter.drawText(QRect(x, y, column - 4, h), Qt.AlignmentFlag.AlignRight, str(old))
                x += column
            if self._show_new:
                new = self._parsed.new[number]
                if new is not None:
                    painter.drawText(QRect(x, y, column - 4, h), Qt.AlignmentFlag.AlignRight, str(new))
        painter.end()


class DiffPane(QWidget):
    """One file's diff: unified by default, a side-by-side toggle built on first use."""

    loaded = Signal()

    #: Lines parsed (and shown) per event-loop turn: a few milliseconds of work each.
    PARSE_SLICE = 150
    #: One turn stops taking slices after this long, so the window stays responsive.
    TURN_BUDGET_S = 0.005

    def __init__(self, diff: str, *, truncated: bool = False, hunks: Sequence[DiffHunk] = (),
                 parent: QWidget | None = None) -> None:
        """``hunks``: the change's hunks as the engine gives them (which lines each spans)."""
        super().__init__(parent)
        self._spans = HunkSpans(hunks)
        # Parsed a slice per event-loop turn: the first screenful now, the rest while the window runs.
        self._parser = UnifiedParser(diff)
        self._parser.feed(_FIRST_SCREEN)
        self._parsed = self._parser.parsed
        self._truncated = truncated
        self._side: QSplitter | None = None
        self._side_views: tuple[DiffTextView, ...] = ()
        self._declined: frozenset[int] = frozenset()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        bar = QHBoxLayout()
        self.stats = QLabel()
        self.toggle = QCheckBox()
        self.toggle.toggled.connect(self._set_side_by_side)
        bar.addWidget(self.stats)
        bar.addStretch(1)
        bar.addWidget(self.toggle)
        layout.addLayout(bar)
        self.truncated_note = QLabel()
        self.truncated_note.setWordWrap(True)
        theme.styled(self.truncated_note, lambda p: f"color: {p.warn}; background: {p.warn_bg}; padding: 4px;")
        self.truncated_note.setVisible(truncated)
        layout.addWidget(self.truncated_note)
        self.wide_note = QLabel()
        self.wide_note.setWordWrap(True)
        theme.styled(self.wide_note, lambda p: f"color: {p.warn}; background: {p.warn_bg}; padding: 4px;")
        self.wide_note.setVisible(False)
        layout.addWidget(self.wide_note)
        self.stack = QStackedWidget()
        self.unified = DiffTextView(self._parsed, fed=True)
        self.unified.set_hunk_owner(self._spans.owner)
        self.unified.loaded.connect(self.loaded.emit)
        self.unified.wrapped.connect(self._show_wide_note)
        self.wide_note.setVisible(self.unified.wraps)
        self.stack.addWidget(self.unified)
        layout.addWidget(self.stack, 1)
        self.toggle.setEnabled(False)  # side by side needs every line
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        self.unified.take()
        if self._parser.done:
            self._finish_parse()
        else:
            QTimer.singleShot(0, self._parse_more)

    def _show_wide_note(self) -> None:
        self.wide_note.setVisible(True)

    @property
    def hides_text(self) -> bool:
        """A line parsed so far held a hidden character (final once ``is_loaded``)."""
        return self._parser.hides_text

    def _parse_more(self) -> None:
        # Parse and show small slices until this turn's budget is spent: the cost per line
        # varies with the machine's load, the budget does not.
        started = time.perf_counter()
        while not self._parser.done and time.perf_counter() - started < self.TURN_BUDGET_S:
            self._parser.feed(self.PARSE_SLICE)
            self.unified.take()
        if self._parser.done:
            self._finish_parse()
        else:
            QTimer.singleShot(0, self._parse_more)

    def _finish_parse(self) -> None:
        self.toggle.setEnabled(True)
        self.retranslate()  # the counts are final now
        self.unified.finish()

    @property
    def parsed(self) -> ParsedDiff:
        return self._parsed

    @property
    def is_loaded(self) -> bool:
        return self.unified.is_loaded

    def set_declined(self, hunks: frozenset[int]) -> None:
        """Show these hunks as declined, in the unified and the side-by-side view."""
        self._declined = hunks
        for view in (self.unified, *self._side_views):
            view.set_declined(hunks)

    def retranslate(self, *_args: object) -> None:
        self.toggle.setText(_("Side by side"))
        self.toggle.setAccessibleName(_("Show the diff side by side"))
        self.unified.setAccessibleName(_("Unified diff"))
        self.stats.setText(_("Lines added: {added} · removed: {deleted}").format(
            added=self._parsed.added, deleted=self._parsed.deleted))
        self.truncated_note.setText(_("This diff was shortened by the tool: the change is larger than "
                                      "what is shown here."))
        self.wide_note.setText(_("Some lines are very long or go on after a long run of spaces: lines are "
                                 "wrapped, so no part of them is out of view to the right."))
        if self._side is not None:
            self._side.setAccessibleName(_("Side-by-side diff"))

    def _side_owner(self, rows: list[int]) -> Callable[[int], int]:
        """The hunk of a side-by-side row: that of the unified row it shows."""
        def owner(row: int) -> int:
            return self._spans.owner(rows[row]) if 0 <= row < len(rows) else -1
        return owner

    def _set_side_by_side(self, on: bool) -> None:
        if on and self._side is None:
            left_lines, right_lines = side_by_side(self._parsed)
            self._side = QSplitter(Qt.Orientation.Horizontal)
            left = DiffTextView(left_lines, show_new=False)
            right = DiffTextView(right_lines, show_old=False)
            left.set_hunk_owner(self._side_owner(left_lines.source))
            right.set_hunk_owner(self._side_owner(right_lines.source))
            left.setAccessibleName(_("Before"))
            right.setAccessibleName(_("After"))
            # One scroll position for both columns.
            left.verticalScrollBar().valueChanged.connect(right.verticalScrollBar().setValue)
            right.verticalScrollBar().valueChanged.connect(left.verticalScrollBar().setValue)
            self._side_views = (left, right)
            for view in self._side_views:
                view.set_declined(self._declined)
            self._side.addWidget(left)
            self._side.addWidget(right)
            self._side.setAccessibleName(_("Side-by-side diff"))
            self.stack.addWidget(self._side)
        self.stack.setCurrentWidget(self._side if on and self._side is not None else self.unified)


def warm_up() -> None:
    """Paint a tiny diff once, off screen: Qt's first paint of these widgets sets up its enum
    and font machinery (~100 ms here); the app pays it while loading, not when an approval opens."""
    pane = DiffPane("@@ -1 +1 @@\n-a\n+b\n")
    pane.resize(240, 120)
    # Into an image of our own: grab() converts a pixmap on Qt's global thread pool, whose idle
    # threads then outlive the app by half a minute.
    pane.render(QImage(pane.size(), QImage.Format.Format_ARGB32_Premultiplied))
    pane.deleteLater()
