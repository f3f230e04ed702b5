"""Painting the transcript: one delegate lays out each row as a cached ``QTextDocument``.

Messages are Markdown; tool cards are small HTML documents (status, localized title,
arguments, live output, result, file changes with an expandable diff).
"""

from __future__ import annotations

import html
import json
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QAction,
    QColor,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QMenu,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from echo_desk import i18n
from echo_desk.agent.visible_text import visible
from echo_desk.i18n import _, aside, shown
from echo_desk.ui.diffparse import ADD, DELETE, HUNK, parse_unified
from echo_desk.ui.labels import CHANGE_LABELS, STATUS_COLOURS, status_label
from echo_desk.ui.markdown import markdown_chunks, markdown_document
from echo_desk.ui.result_grid import grid_html
from echo_desk.ui.sandbox_card import sandbox_html
from echo_desk.ui.subagent_card import subtranscript_html
from echo_desk.ui.transcript import ASSISTANT, ERROR, NOTICE, TOOL, USER, ItemRole, TranscriptItem

_MARGIN = 6
_PAD = 10
_CARD_DIFF_LINES = 400
_COLLAPSED_LINES = 6
_COLLAPSED_ARGS = 160
#: The href of the "Revert" link in a card with file changes.
REVERT_ANCHOR = "echo-desk:revert"
_BUBBLES = {USER: "#ddf4ff", ASSISTANT: "#ffffff", TOOL: "#f6f8fa", NOTICE: "#fff8c5", ERROR: "#ffebe9"}
_BORDERS = {USER: "#b6e3ff", ASSISTANT: "#d0d7de", TOOL: "#d0d7de", NOTICE: "#d4a72c", ERROR: "#ff8182"}


def _lines(text: str, limit: int | None) -> tuple[str, int]:
    lines = text.split("\n")  # "\n" only: a "\r" or U+2029 stays in its line, shown visibly
    if limit is None or len(lines) <= limit:
        return text, 0
    return "\n".join(lines[:limit]), len(lines) - limit


def _pretty_args(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False) if arguments else ""
    except ValueError:
        return arguments


def _div(text: str, colour: str) -> str:
    # Tool arguments and output are untrusted: escaped, and hidden characters made visible.
    return f"<div style='color:{colour}'>{html.escape(visible(text))}</div>"


def _compact_args(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False) if arguments else ""
    except ValueError:
        return arguments


def _bold(text: str) -> str:
    return f"<b>{html.escape(text)}</b>"


def _muted(text: str) -> str:
    return f"<span style='color:#57606a'>{html.escape(text)}</span>"


def _pre(text: str, colour: str = "#24292f") -> str:
    return f"<pre style='margin:2px 0; color:{colour}; white-space:pre-wrap'>{html.escape(visible(text))}</pre>"


def card_html(item: TranscriptItem, title: str, title_for: Callable[[str], str] | None = None) -> str:
    """The tool card for ``item`` (what the person sees of one call). ``title_for`` names the
    tools inside a sub-agent's nested transcript."""
    status = item.status
    colour = STATUS_COLOURS[status]
    parts = [
        f"<div><span style='color:{colour}; font-weight:600'>● {html.escape(status_label(status))}</span>"
        f"&nbsp;&nbsp;{aside(f'<b>{html.escape(title)}</b>', _muted(item.tool_name))}</div>"
    ]
    limit = None if item.expanded else _COLLAPSED_LINES
    hidden = 0
    if item.expanded:
        args = _pretty_args(item.arguments)
    else:
        # Collapsed: the arguments on one line, cut at a readable length.
        args = _compact_args(item.arguments)
        if len(args) > _COLLAPSED_ARGS:
            args = args[:_COLLAPSED_ARGS] + " …"
            hidden += 1
    if args:
        parts.append(_pre(args, "#57606a"))
    if item.subtranscript:
        # A finished delegate: its sub-agent's steps, structured, instead of the raw live stream.
        nested, more = subtranscript_html(item.subtranscript, title_for or (lambda name: name),
                                          expanded=item.expanded)
        hidden += more
        parts.append(nested)
    elif item.output:
        out_lines = item.output.rstrip("\n").split("\n")  # as _lines: "\n" only
        shown = out_lines if item.expanded else out_lines[-12:]
        hidden += len(out_lines) - len(shown)
        parts.append(_div(_("Output"), "#57606a"))
        parts.append(_pre("\n".join(shown), "#1f2328"))
    if item.error:
        parts.append(_pre(item.error, "#cf222e"))
    if item.sandbox is not None:
        parts.append(sandbox_html(item.sandbox))
    if item.grid is not None:
        # A database result: the grid instead of the model's text table (Copy still gives the text).
        table, more_hidden = grid_html(item.grid, expanded=item.expanded)
        hidden += int(more_hidden)
        parts.append(table)
    elif item.result:
        result, more = _lines(item.result, limit)
        hidden += more
        parts.append(_pre(result))
    for change in item.file_changes:
        diff = str(change.get("diff", "") or "")
        parsed = parse_unified(diff)
        kind = _(CHANGE_LABELS.get(str(change.get("kind", "")), str(change.get("kind", ""))))
        parts.append(
            f"<div>{aside(_bold(visible(str(change.get('path', '')))), html.escape(kind))} "
            f"<span style='color:#1a7f37'>+{parsed.added}</span> <span style='color:#cf222e'>−{parsed.deleted}</span></div>")
        if item.expanded and len(parsed):
            rows = []
            colours = {ADD: "#e6ffec", DELETE: "#ffebe9", HUNK: "#ddf4ff"}
            for i in range(min(len(parsed), _CARD_DIFF_LINES)):
                bg = colours.get(parsed.kinds[i], "#ffffff")
                rows.append(f"<div style='background:{bg}; white-space:pre'>{html.escape(parsed.lines[i]) or ' '}</div>")
            parts.append("<div style='font-family:monospace'>" + "".join(rows) + "</div>")
            if len(parsed) > _CARD_DIFF_LINES:
                more_text = _("{n} more lines: double-click to open the whole diff")
                parts.append(_div(more_text.format(n=len(parsed) - _CARD_DIFF_LINES), "#57606a"))
            if change.get("truncated"):
                parts.append(_div(_("The tool shortened this diff."), "#9a6700"))
        elif len(parsed):
            hidden += 1
    if item.file_changes and item.status == "done":
        if item.reverted:
            parts.append(_div(_("Reverted"), "#57606a"))
        else:
            parts.append(f"<div><a href='{REVERT_ANCHOR}' style='color:#0969da'>↶ {html.escape(_('Revert'))}</a></div>")
    if hidden and not item.expanded:
        parts.append(_div(_("Click to show everything"), "#0969da"))
    elif item.expanded:
        parts.append(_div(_("Click to collapse"), "#0969da"))
    return "".join(parts)


class TranscriptDelegate(QStyledItemDelegate):
    def __init__(self, view: TranscriptView) -> None:
        super().__init__(view)
        self._view = view
        self._cache: weakref.WeakKeyDictionary[TranscriptItem, tuple[tuple[Any, ...], list[QTextDocument]]] = (
            weakref.WeakKeyDictionary())

    def _width(self) -> int:
        return max(200, self._view.viewport().width() - 2 * (_MARGIN + _PAD) - 4)

    def documents(self, item: TranscriptItem) -> list[QTextDocument]:
        """The laid-out document(s) of a row; a long Markdown message is a stack of pieces."""
        width = self._width()
        key = (item.version, width, i18n.current_language())
        cached = self._cache.get(item)
        if cached is not None and cached[0] == key:
            return cached[1]
        font = self._view.font()
        if item.kind == ASSISTANT:
            # Reuse the pieces that did not change (see markdown_chunks): streaming stays cheap.
            old = {id(d): d for d in (cached[1] if cached is not None and cached[0][1:] == key[1:] else [])}
            by_text = {d.property("chunk"): d for d in old.values()}
            docs = []
            for chunk in markdown_chunks(item.text):
                doc = by_text.get(chunk)
                if doc is None:
                    doc = markdown_document(chunk, width, font)
                    doc.setProperty("chunk", chunk)
                docs.append(doc)
        else:
            doc = QTextDocument()
            doc.setDefaultFont(font)
            doc.setDocumentMargin(0)
            if item.kind == TOOL:
                doc.setHtml(card_html(item, self._view.title_for(item.tool_name), self._view.title_for))
            else:
                who = {USER: _("You"), NOTICE: _("Echo Desk"), ERROR: _("Error")}.get(item.kind, "")
                doc.setHtml(f"<div style='color:#57606a; font-weight:600'>{html.escape(who)}</div>"
                            f"<div style='white-space:pre-wrap'>{html.escape(shown(item.text))}</div>")
            doc.setTextWidth(width)
            docs = [doc]
        self._cache[item] = (key, docs)
        return docs

    def document(self, item: TranscriptItem) -> QTextDocument:
        """The first (for cards and short messages: only) document of a row."""
        return self.documents(item)[0]

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        item = index.data(ItemRole)
        if item is None:
            return QSize(0, 0)
        height = sum(doc.size().height() for doc in self.documents(item))
        return QSize(self._width() + 2 * _PAD, int(height) + 2 * (_MARGIN + _PAD) - _MARGIN)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        item: TranscriptItem | None = index.data(ItemRole)
        if item is None:
            return
        docs = self.documents(item)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(option.rect).adjusted(_MARGIN, _MARGIN / 2, -_MARGIN, -_MARGIN / 2)
        border = QColor(_BORDERS.get(item.kind, "#d0d7de"))
        if option.state & QStyle.StateFlag.State_HasFocus:
            border = QColor("#0969da")
        painter.setPen(border)
        painter.setBrush(QColor(_BUBBLES.get(item.kind, "#ffffff")))
        painter.drawRoundedRect(rect, 6, 6)
        # Only what is on screen is drawn: a tall message costs what its visible part costs.
        visible = QRectF(self._view.viewport().rect())
        painter.translate(rect.left() + _PAD, rect.top() + _PAD)
        top = rect.top() + _PAD
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, QColor("#1f2328"))
        for doc in docs:
            height = doc.size().height()
            if top + height >= visible.top() and top <= visible.bottom():
                ctx.clip = QRectF(0, max(0.0, visible.top() - top), doc.size().width(),
                                  min(height, visible.bottom() - top))
                doc.documentLayout().draw(painter, ctx)
            painter.translate(0, height)
            top += height
        painter.restore()


class TranscriptView(QListView):
    """The transcript list. Click a tool card to expand it; double-click a diff to open it whole."""

    open_diff = Signal(object)
    #: A card's "Revert" (call id), "Revert this turn" and "Revert everything since" (row).
    revert_call = Signal(str)
    revert_turn = Signal(int)
    revert_since = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(TranscriptDelegate(self))
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        # Long conversations: lay rows out in batches so the window shows at once.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(40)
        self.setSpacing(0)
        self.setStyleSheet("QListView { background: #ffffff; border: none; }")
        self.clicked.connect(self._on_clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.doubleClicked.connect(self._on_double_clicked)
        self._follow = True
        self._pressed_at = QPoint()
        self.verticalScrollBar().rangeChanged.connect(self._keep_at_bottom)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def setModel(self, model: Any) -> None:
        old = self.model()
        if old is not None:
            old.dataChanged.disconnect(self._on_data_changed)
        super().setModel(model)
        if model is not None:
            # QListView does not re-measure rows on dataChanged; rows grow while text streams in.
            model.dataChanged.connect(self._on_data_changed)

    def _on_data_changed(self, *_args: object) -> None:
        self.scheduleDelayedItemsLayout()

    def title_for(self, name: str) -> str:
        model = self.model()
        fn = getattr(model, "title_for", None)
        return fn(name) if callable(fn) else name

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._pressed_at = event.position().toPoint()
        super().mousePressEvent(event)

    def anchor_at(self, index: QModelIndex, pos: QPoint) -> str:
        """The link under ``pos`` (viewport coordinates) in the card at ``index``, or ""."""
        item = index.data(ItemRole)
        if item is None or item.kind != TOOL:
            return ""
        rect = self.visualRect(index)
        inner = QPointF(pos.x() - rect.left() - _MARGIN - _PAD, pos.y() - rect.top() - _MARGIN / 2 - _PAD)
        delegate = self.itemDelegate()
        assert isinstance(delegate, TranscriptDelegate)
        return delegate.document(item).documentLayout().anchorAt(inner)

    def _on_clicked(self, index: QModelIndex) -> None:
        item = index.data(ItemRole)
        if item is not None and item.kind == TOOL and self.anchor_at(index, self._pressed_at) == REVERT_ANCHOR:
            self.revert_call.emit(item.call_id)
            return
        if item is not None and item.kind == TOOL:
            model = self.model()
            model.toggle_expanded(index.row())  # type: ignore[attr-defined]

    def _on_double_clicked(self, index: QModelIndex) -> None:
        item = index.data(ItemRole)
        if item is not None and item.kind == TOOL and item.file_changes:
            self.open_diff.emit(item)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        # Keyboard use: arrows move between rows, Enter/Space open or close a card, Ctrl+C copies.
        item = self.currentIndex().data(ItemRole)
        if item is not None and event.matches(QKeySequence.StandardKey.Copy):
            self.copy_item(item)
            return
        if item is not None and item.kind == TOOL and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter,
                                                                      Qt.Key.Key_Space):
            self.model().toggle_expanded(self.currentIndex().row())  # type: ignore[attr-defined]
            return
        super().keyPressEvent(event)

    def empty_text(self) -> str:
        return _("Type a message below to start. The agent works in the workspace folder chosen above, "
                 "may only use the tools you allow in Settings › Tools, and asks you before it changes "
                 "anything unless you chose “Always allow” for a tool.")

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        model = self.model()
        if model is None or model.rowCount() == 0:
            # An empty conversation says what to do instead of showing a blank page.
            painter = QPainter(self.viewport())
            painter.setPen(QColor("#57606a"))
            area = self.viewport().rect().adjusted(60, 0, -60, 0)
            painter.drawText(area, int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap), self.empty_text())
            painter.end()

    def _menu(self, pos: QPoint) -> None:
        item = self.indexAt(pos).data(ItemRole)
        if item is None:
            return
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        copy = QAction(_("Copy"), menu)
        copy.triggered.connect(lambda: self.copy_item(item))
        menu.addAction(copy)
        row = self.indexAt(pos).row()
        if item.kind == TOOL and item.file_changes and not item.reverted:
            revert = QAction(_("Revert"), menu)
            revert.triggered.connect(lambda: self.revert_call.emit(item.call_id))
            menu.addAction(revert)
        if item.kind in (TOOL, USER):
            menu.addSeparator()
            this_turn = QAction(_("Revert this turn"), menu)
            this_turn.triggered.connect(lambda: self.revert_turn.emit(row))
            since = QAction(_("Revert everything since this message"), menu)
            since.triggered.connect(lambda: self.revert_since.emit(row))
            menu.addAction(this_turn)
            menu.addAction(since)
        menu.popup(self.viewport().mapToGlobal(pos))

    @staticmethod
    def item_text(item: TranscriptItem) -> str:
        """What "Copy" puts on the clipboard: the Markdown of a message, the whole of a card."""
        if item.kind != TOOL:
            return item.text
        parts = [f"{item.tool_name} {item.arguments}", item.output, item.error, item.result]
        parts += [str(c.get("diff", "")) for c in item.file_changes]
        return "\n\n".join(p for p in parts if p)

    def copy_item(self, item: TranscriptItem) -> None:
        QGuiApplication.clipboard().setText(self.item_text(item))

    def _on_scrolled(self, value: int) -> None:
        # Follow new output only while the person is at the bottom.
        self._follow = value >= self.verticalScrollBar().maximum() - 4

    def _keep_at_bottom(self, _min: int, _max: int) -> None:
        if self._follow:
            self.scrollToBottom()

    def relayout(self) -> None:
        self.scheduleDelayedItemsLayout()
