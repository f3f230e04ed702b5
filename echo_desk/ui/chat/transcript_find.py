"""Finding text in the open transcript: the matches in what is shown, and their highlights.

Matches are looked for in the laid-out documents the transcript paints (the rendered Markdown
and the cards as shown), so what is found is what the person sees. The highlights are drawn on
copies of those documents while painting; the transcript's own layout cache is left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QModelIndex, QPersistentModelIndex
from PySide6.QtGui import QPainter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QAbstractItemView, QStyleOptionViewItem

from echo_desk.ui.chat.transcript import ItemRole, TranscriptItem
from echo_desk.ui.chat.transcript_view import TranscriptDelegate, TranscriptView
from echo_desk.ui.core import theme

_KEPT_COPIES = 300


@dataclass(frozen=True)
class Match:
    """One occurrence: the row, which of its documents, and where in that document."""

    row: int
    part: int
    position: int
    length: int


def _occurrences(doc: QTextDocument, term: str) -> list[int]:
    positions: list[int] = []
    cursor = doc.find(term, 0)  # no flags: case-insensitive
    while not cursor.isNull():
        positions.append(cursor.selectionStart())
        cursor = doc.find(term, cursor.selectionEnd())
    return positions


class FindDelegate(TranscriptDelegate):
    """The transcript's delegate, painting the matches of ``term`` (the current one stronger)."""

    def __init__(self, view: TranscriptView) -> None:
        super().__init__(view)
        self.term = ""
        self.current: tuple[TranscriptItem, int, int] | None = None  # item, part, position
        self._painting = False
        self._copies: dict[tuple[int, str, int], tuple[QTextDocument, QTextDocument]] = {}

    def set_term(self, term: str) -> None:
        if term != self.term:
            self.term = term
            self._copies.clear()

    def documents(self, item: TranscriptItem) -> list[QTextDocument]:
        docs = super().documents(item)
        if not self._painting or not self.term:
            return docs
        return [self._highlighted(item, part, doc) for part, doc in enumerate(docs)]

    def _highlighted(self, item: TranscriptItem, part: int, doc: QTextDocument) -> QTextDocument:
        if self.term.lower() not in doc.toPlainText().lower():
            return doc
        current = self.current[2] if self.current is not None and self.current[:2] == (item, part) else -1
        key = (id(doc), self.term, current)
        kept = self._copies.get(key)
        if kept is not None and kept[0] is doc:
            return kept[1]
        copy = doc.clone(doc)
        copy.setDocumentMargin(doc.documentMargin())
        copy.setTextWidth(doc.textWidth())
        for position in _occurrences(copy, self.term):
            cursor = QTextCursor(copy)
            cursor.setPosition(position)
            cursor.setPosition(position + len(self.term), QTextCursor.MoveMode.KeepAnchor)
            mark = QTextCharFormat()
            mark.setBackground(theme.current().qcolor("find_current" if position == current else "find_match"))
            cursor.mergeCharFormat(mark)
        if len(self._copies) > _KEPT_COPIES:
            self._copies.clear()
        self._copies[key] = (doc, copy)  # the original is kept so its id is not reused meanwhile
        return copy

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        self._painting = True
        try:
            super().paint(painter, option, index)
        finally:
            self._painting = False


class TranscriptFinder:
    """Finds ``term`` in a transcript view, steps through the matches and shows each one."""

    def __init__(self, view: TranscriptView) -> None:
        self.view = view
        self.delegate = FindDelegate(view)
        view.setItemDelegate(self.delegate)
        self.matches: list[Match] = []
        self.index = -1

    def search(self, term: str, near_row: int = -1) -> int:
        """Every match of ``term`` (case-insensitive); the current one is the first at or after
        ``near_row`` (the first of all by default). Returns the count."""
        self.delegate.set_term(term)
        self.matches = []
        model = self.view.model()
        if term and model is not None:
            for row in range(model.rowCount()):
                item = model.index(row, 0).data(ItemRole)
                if item is None:
                    continue
                for part, doc in enumerate(self.delegate.documents(item)):
                    self.matches += [Match(row, part, p, len(term)) for p in _occurrences(doc, term)]
        self.index = -1
        if self.matches:
            after = [i for i, m in enumerate(self.matches) if m.row >= near_row]
            self._go(after[0] if after else 0)
        else:
            self._go(-1)
        return len(self.matches)

    def step(self, forward: bool = True) -> None:
        """The next (or previous) match, wrapping around."""
        if self.matches:
            self._go((self.index + (1 if forward else -1)) % len(self.matches))

    def clear(self) -> None:
        self.search("")

    def _go(self, index: int) -> None:
        self.index = index
        model = self.view.model()
        if index < 0 or model is None:
            self.delegate.current = None
            self.view.viewport().update()
            return
        match = self.matches[index]
        item = model.index(match.row, 0).data(ItemRole)
        self.delegate.current = (item, match.part, match.position)
        reveal_row(self.view, match.row, self._offset_in_row(item, match))

    def _offset_in_row(self, item: TranscriptItem, match: Match) -> int:
        docs = self.delegate.documents(item)
        above = sum(int(doc.size().height()) for doc in docs[:match.part])
        doc = docs[match.part]
        block = doc.findBlock(match.position)
        layout = block.layout()
        line = layout.lineForTextPosition(match.position - block.position()) if layout is not None else None
        block_top = doc.documentLayout().blockBoundingRect(block).top()
        return above + int(block_top + (line.y() if line is not None and line.isValid() else 0))


def reveal_row(view: TranscriptView, row: int, offset: int = 0) -> None:
    """Scroll so that ``offset`` pixels into ``row`` are in view (a third from the top), make it
    the current row, and stop following new output at the bottom."""
    model = view.model()
    if model is None or not 0 <= row < model.rowCount():
        return
    index = model.index(row, 0)
    view.doItemsLayout()  # every row measured: a far row's place is known
    view.setCurrentIndex(index)
    view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
    rect = view.visualRect(index)
    bar = view.verticalScrollBar()
    bar.setValue(bar.value() + rect.top() + offset - view.viewport().height() // 3)
    view.viewport().update()


def row_of_message(view: TranscriptView, message_id: int) -> int:
    """The row showing the stored message ``message_id`` (-1 when none does)."""
    model = view.model()
    if model is None or message_id <= 0:
        return -1
    for row in range(model.rowCount()):
        item = model.index(row, 0).data(ItemRole)
        if item is not None and item.message_id == message_id:
            return row
    return -1
