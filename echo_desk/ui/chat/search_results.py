"""The results of a search across conversations: one row per match, the snippet's matches marked."""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QKeyEvent, QPainter, QPaintEvent, QStandardItem, QStandardItemModel, QTextDocument
from PySide6.QtWidgets import QLineEdit, QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.core import i18n_qt, marshal, theme

if TYPE_CHECKING:
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.store.message_search import SearchHit

log = logging.getLogger(__name__)

HitRole = Qt.ItemDataRole.UserRole + 30
_PAD = 6


def _role_label(role: str) -> str:
    return {"user": _("You"), "assistant": _("Agent"), "tool": _("Tool result"),
            "title": _("Title")}.get(role, role)


def hit_html(hit: SearchHit, untitled: str) -> str:
    """The row: the conversation's title, who wrote the message, the snippet with matches marked.
    Stored text is untrusted: escaped, hidden characters made visible."""
    palette = theme.current()
    mark = f"background:{palette.find_match}; color:{palette.text}; font-weight:600"
    snippet = "".join(f"<span style='{mark}'>{html.escape(visible(text, one_line=True))}</span>" if match
                      else html.escape(visible(text, one_line=True)) for text, match in hit.snippet.parts)
    title = html.escape(visible(hit.title or untitled, one_line=True))
    return (f"<div style='font-weight:600'>{title} <span style='color:{palette.muted}; font-weight:400'>· "
            f"{html.escape(_role_label(hit.role))}</span></div><div style='color:{palette.text}'>{snippet}</div>")


class _HitDelegate(QStyledItemDelegate):
    def _document(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QTextDocument:
        doc = QTextDocument()
        doc.setDefaultFont(option.font)
        doc.setDocumentMargin(0)
        hit = index.data(HitRole)
        doc.setHtml(hit_html(hit, _("New conversation")) if hit is not None else "")
        doc.setTextWidth(max(80, option.rect.width() - 2 * _PAD))
        return doc

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        doc = self._document(option, index)
        return QSize(int(doc.idealWidth()), int(doc.size().height()) + 2 * _PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        rect = option.rect
        painter.save()
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(rect, option.palette.highlight().color().lighter(170))
        painter.translate(rect.left() + _PAD, rect.top() + _PAD)
        self._document(option, index).drawContents(painter, QRectF(0, 0, rect.width(), rect.height()))
        painter.restore()


class SearchResults(QListView):
    """The matches of the search box's words; ``hit_chosen`` carries the ``SearchHit`` opened."""

    hit_chosen = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hits_model = QStandardItemModel(self)
        self.setModel(self.hits_model)
        self.setItemDelegate(_HitDelegate(self))
        self.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.setUniformItemSizes(False)
        self.setWordWrap(True)
        self.setVerticalScrollMode(QListView.ScrollMode.ScrollPerPixel)
        self.activated.connect(self._open)  # Enter, or a (double-)click as the platform decides
        self.clicked.connect(self._open)
        self.query = ""
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setAccessibleName(_("Search results"))
        self.viewport().update()

    def show_hits(self, query: str, hits: list[SearchHit]) -> None:
        self.query = query
        self.hits_model.clear()
        for hit in hits:
            item = QStandardItem(hit.snippet.text)
            item.setData(hit, HitRole)
            item.setData(f"{hit.title} · {_role_label(hit.role)}: {hit.snippet.text}",
                         Qt.ItemDataRole.AccessibleTextRole)
            self.hits_model.appendRow(item)
        if hits:
            self.setCurrentIndex(self.hits_model.index(0, 0))

    def hits(self) -> list[SearchHit]:
        return [self.hits_model.item(row).data(HitRole) for row in range(self.hits_model.rowCount())]

    def open_current(self) -> bool:
        """Open the chosen match (the first when none is chosen); ``False`` when there is none."""
        index = self.currentIndex()
        if not index.isValid():
            index = self.hits_model.index(0, 0)
        if not index.isValid():
            return False
        self._open(index)
        return True

    def _open(self, index: QModelIndex) -> None:
        hit = index.data(HitRole)
        if hit is not None:
            self.hit_chosen.emit(hit)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.hits_model.rowCount() == 0 and self.query:
            painter = QPainter(self.viewport())
            painter.setPen(Qt.GlobalColor.darkGray)
            painter.drawText(self.viewport().rect().adjusted(8, 8, -8, -8),
                             int(Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap),
                             _("Nothing matches “{query}”.").format(query=self.query))
            painter.end()


class MessageSearch(QObject):
    """Drives the results from the search box: searches the store shortly after typing stops,
    shows the results in place of the conversation list while there are words in the box.

    Keys in the box: Down enters the results, Enter opens the chosen (or first) match, Escape
    clears the search."""

    DELAY_MS = 150

    def __init__(self, box: QLineEdit, results: SearchResults, hidden_while_searching: QWidget,
                 store: Callable[[], ConversationStore | None]) -> None:
        super().__init__(box)
        self._box = box
        self._results = results
        self._hidden = hidden_while_searching
        self._store = store
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.DELAY_MS)
        self._timer.timeout.connect(self._run_in_background)
        self._generation = 0
        box.textChanged.connect(self._on_text)
        box.installEventFilter(self)
        results.setVisible(False)
        if box.text():  # made when the first word was typed: follow it
            self._on_text(box.text())

    def _on_text(self, text: str) -> None:
        self._generation += 1  # results still on their way for older text are dropped
        searching = bool(text.strip())
        self._results.setVisible(searching)
        self._hidden.setVisible(not searching)
        if searching:
            self._timer.start()
        else:
            self._timer.stop()
            self._results.show_hits("", [])

    def _run_in_background(self) -> None:
        """Typing paused: search off the UI thread (a large store must not freeze typing)."""
        store = self._store()
        query = self._box.text().strip()
        if store is None or not query:
            return
        generation = self._generation

        def show(hits: list[SearchHit]) -> None:
            if generation == self._generation:
                self._results.show_hits(query, hits)

        def failed(error: BaseException) -> None:
            log.warning("search for %r failed: %s", query, error)
            show([])

        marshal.BackgroundOp(store.search, query).on_success(show).on_failure(failed).run()

    def run_now(self) -> None:
        """Search for the box's words now, on this thread (Enter or Down before results came)."""
        self._timer.stop()
        self._generation += 1
        store = self._store()
        query = self._box.text().strip()
        if store is not None and query:
            self._results.show_hits(query, store.search(query))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self._box or event.type() != QEvent.Type.KeyPress or not self._box.text().strip():
            return False
        assert isinstance(event, QKeyEvent)
        key = event.key()
        stale = self._timer.isActive() or self._results.query != self._box.text().strip()
        if stale and key in (Qt.Key.Key_Down, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.run_now()
        if key == Qt.Key.Key_Down:
            self._results.setFocus(Qt.FocusReason.TabFocusReason)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._results.open_current()
            return True
        if key == Qt.Key.Key_Escape:
            self._box.clear()
            return True
        return False
