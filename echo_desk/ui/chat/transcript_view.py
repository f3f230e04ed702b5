"""Painting the transcript: one delegate lays out each row as a cached ``QTextDocument``.

Messages are Markdown; tool cards are small HTML documents (status, localized title,
arguments, live output, result, file changes with an expandable diff), built by the Qt-free
``tool_card``.
"""

from __future__ import annotations

import html
import weakref

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QPointF,
    QRectF,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QAction,
    QDesktopServices,
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
from echo_desk.agent.sources import ToolSource
from echo_desk.i18n import _, shown
from echo_desk.ui.chat.attachment_thumbs import attachments_html
from echo_desk.ui.chat.message_bar import BarDocuments, MessageAction, action_label, actions_for, key_action
from echo_desk.ui.chat.tool_icons import add_icon, tool_family
from echo_desk.ui.chat.transcript import (
    ASSISTANT,
    ERROR,
    NOTICE,
    TOOL,
    USER,
    ItemKind,
    ItemRole,
    TranscriptItem,
    TranscriptModel,
)
from echo_desk.ui.core import theme

_MARGIN = 6
_PAD = 10
#: Palette roles (fill, border) of each kind of row: the person's messages in a tinted bubble,
#: the assistant's as an open block, tool cards as rounded cards.
_ROW_ROLES = {USER: ("user_bubble", "user_border"), ASSISTANT: ("assistant_bubble", "assistant_border"),
              TOOL: ("card", "card_border"), NOTICE: ("warn_bg", "warn_border"), ERROR: ("danger_bg", "danger")}
#: The person's messages sit indented from the left, so who said what shows at a glance.
_USER_INSET = 56
_RADIUS = 10


class TranscriptDelegate(QStyledItemDelegate):
    def __init__(self, view: TranscriptView) -> None:
        super().__init__(view)
        self._view = view
        #: The line under each message: footer, versions, actions (drawn only where painted).
        self.bars = BarDocuments()
        self._cache: weakref.WeakKeyDictionary[TranscriptItem, tuple[tuple[object, ...], list[QTextDocument]]] = (
            weakref.WeakKeyDictionary())

    def _width(self, kind: ItemKind | None = None) -> int:
        inset = _USER_INSET if kind == USER else 0
        return max(200, self._view.viewport().width() - 2 * (_MARGIN + _PAD) - 4 - inset)

    def documents(self, item: TranscriptItem) -> list[QTextDocument]:
        """The laid-out document(s) of a row; a long Markdown message is a stack of pieces."""
        # Markdown and its code colouring load with the first message, not before the first frame.
        from echo_desk.ui.chat.markdown import markdown_chunks, markdown_document

        width = self._width(item.kind)
        palette = theme.current()
        key = (item.version, width, i18n.current_language(), palette.name)
        cached = self._cache.get(item)
        if cached is not None and cached[0] == key:
            return cached[1]
        font = self._view.font()
        if item.kind == ASSISTANT:
            # Reuse the pieces that did not change (see markdown_chunks): streaming stays cheap.
            old = {id(d): d for d in (cached[1] if cached is not None and cached[0][1:] == key[1:] else [])}
            by_text = {d.property("chunk"): d for d in old.values()}
            # A row drawn before and changed since (the answer streaming in) is on screen: its new
            # pieces get their colours before layout, a third of the cost of colouring them after
            # it, and off the paint. A row measured for the first time (a conversation opening)
            # may never be shown: its colours wait for its first paint.
            later = not old
            docs = []
            for chunk in markdown_chunks(item.text):
                doc = by_text.get(chunk)
                if doc is None:
                    doc = markdown_document(chunk, width, font, colour_later=later)
                    doc.setProperty("chunk", chunk)
                docs.append(doc)
        else:
            doc = QTextDocument()
            doc.setDefaultFont(font)
            doc.setDocumentMargin(0)
            if item.kind == TOOL:
                # The cards' modules load with the first card, not before the window's first frame.
                from echo_desk.ui.chat.tool_card import card_html

                family = tool_family(item.tool_name, self._view.source_for(item.tool_name))
                icon = add_icon(doc, family, palette.muted)
                doc.setHtml(card_html(item, self._view.title_for(item.tool_name), self._view.title_for, icon, palette))
            else:
                who = {USER: _("You"), NOTICE: _("Echo Desk"), ERROR: _("Error")}.get(item.kind, "")
                doc.setHtml(f"<div style='color:{palette.muted}; font-weight:600'>{html.escape(who)}</div>"  # not prose: HTML blocks
                            f"<div style='white-space:pre-wrap'>{html.escape(shown(item.text))}</div>"
                            + attachments_html(doc, item.images, item.attachments, item.resources))
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
        height = sum(doc.size().height() for doc in self.documents(item)) + self.bars.height(item, self._view.font())
        return QSize(self._width() + 2 * _PAD, int(height) + 2 * (_MARGIN + _PAD) - _MARGIN)

    def row_rect(self, item: TranscriptItem, rect: QRectF) -> QRectF:
        """The bubble or card of ``item`` inside its row's ``rect``."""
        inset = _USER_INSET if item.kind == USER else 0
        return rect.adjusted(_MARGIN + inset, _MARGIN / 2, -_MARGIN, -_MARGIN / 2)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        item: TranscriptItem | None = index.data(ItemRole)
        if item is None:
            return
        docs = self.documents(item)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = self.row_rect(item, QRectF(option.rect))
        palette = theme.current()
        fill, border_role = _ROW_ROLES.get(item.kind, ("card", "card_border"))
        border = palette.qcolor("accent" if option.state & QStyle.StateFlag.State_HasFocus else border_role)
        painter.setPen(border)
        painter.setBrush(palette.qcolor(fill))
        painter.drawRoundedRect(rect, _RADIUS, _RADIUS)
        # Only what is on screen is drawn: a tall message costs what its visible part costs.
        visible = QRectF(self._view.viewport().rect())
        painter.translate(rect.left() + _PAD, rect.top() + _PAD)
        top = rect.top() + _PAD
        ctx = QAbstractTextDocumentLayout.PaintContext()
        ctx.palette.setColor(QPalette.ColorRole.Text, palette.qcolor("text"))
        for doc in docs:
            height = doc.size().height()
            if top + height >= visible.top() and top <= visible.bottom():
                from echo_desk.ui.chat.markdown import colour_pending  # loaded by documents() already

                colour_pending(doc)
                ctx.clip = QRectF(0, max(0.0, visible.top() - top), doc.size().width(),
                                  min(height, visible.bottom() - top))
                doc.documentLayout().draw(painter, ctx)
            painter.translate(0, height)
            top += height
        bar = self.bars.document(item, self._view.font()) if top <= visible.bottom() else None
        if bar is not None:
            painter.translate(0, BarDocuments.GAP)
            ctx.clip = QRectF(0, 0, rect.width() - 2 * _PAD, bar.size().height())  # one line, cut at the edge
            bar.documentLayout().draw(painter, ctx)
        painter.restore()


class TranscriptView(QListView):
    """The transcript list. Click a tool card to expand it; double-click a diff to open it whole."""

    open_diff = Signal(object)
    #: A message's Copy, Edit, Regenerate or version switch (item, ``MessageAction``).
    message_action = Signal(object, object)
    #: A card's "Revert" (call id), "Revert this turn" and "Revert everything since" (row).
    revert_call = Signal(str)
    revert_turn = Signal(int)
    revert_since = Signal(int)
    #: The exact code of a block whose Copy link was clicked (now on the clipboard).
    code_copied = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(TranscriptDelegate(self))
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setWordWrap(True)
        self.setUniformItemSizes(False)
        # Long conversations: lay rows out in batches so the window shows at once. The first batch
        # is measured before the first frame; 20 rows fill a tall window, the rest follow on later
        # turns of the event loop.
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(20)
        self.setSpacing(0)
        theme.styled(self, lambda p: f"QListView {{ background: {p.base}; border: none; }}")
        # A theme switch re-renders every row in the new colours (the cache key has the theme).
        theme.on_change(self, self._on_theme)
        self.setMouseTracking(True)
        self.clicked.connect(self._on_clicked)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.doubleClicked.connect(self._on_double_clicked)
        self._follow = True
        self._pressed_at = QPoint()
        self.verticalScrollBar().rangeChanged.connect(self._keep_at_bottom)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def setModel(self, model: QAbstractItemModel | None) -> None:
        old = self.model()
        if old is not None:
            old.dataChanged.disconnect(self._on_data_changed)
        super().setModel(model)
        if model is not None:
            # QListView does not re-measure rows on dataChanged; rows grow while text streams in.
            model.dataChanged.connect(self._on_data_changed)

    def _on_theme(self, _palette: theme.Palette) -> None:
        self.scheduleDelayedItemsLayout()
        self.viewport().update()

    def _on_data_changed(self, *_args: object) -> None:
        self.scheduleDelayedItemsLayout()

    def source_for(self, name: str) -> ToolSource | None:
        """Where tool ``name`` comes from (for its card's icon), if the model knows."""
        model = self.model()
        return model.source_for(name) if isinstance(model, TranscriptModel) else None

    def title_for(self, name: str) -> str:
        model = self.model()
        return model.title_for(name) if isinstance(model, TranscriptModel) else name

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._pressed_at = event.position().toPoint()
        super().mousePressEvent(event)

    def _hit(self, index: QModelIndex, pos: QPoint) -> tuple[QTextDocument, str] | None:
        """The document under ``pos`` (viewport coordinates) in row ``index`` and its link there
        (the message's own pieces, then the line of actions under it)."""
        item = index.data(ItemRole)
        delegate = self.itemDelegate()
        if item is None or not isinstance(delegate, TranscriptDelegate):
            return None
        rect = delegate.row_rect(item, QRectF(self.visualRect(index)))
        x, y = pos.x() - rect.left() - _PAD, pos.y() - rect.top() - _PAD
        for doc in delegate.documents(item):  # a stack: find the piece under the point
            height = doc.size().height()
            if y < height:
                return doc, doc.documentLayout().anchorAt(QPointF(x, y))
            y -= height
        bar = delegate.bars.document(item, self.font())
        y -= BarDocuments.GAP
        if bar is not None and 0 <= y < bar.size().height() and x < rect.width() - 2 * _PAD:
            return bar, bar.documentLayout().anchorAt(QPointF(x, y))
        return None

    def anchor_at(self, index: QModelIndex, pos: QPoint) -> str:
        """The link under ``pos`` (viewport coordinates) in the row at ``index``, or ""."""
        hit = self._hit(index, pos)
        return hit[1] if hit is not None else ""

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        from echo_desk.ui.chat.markdown import link_target
        from echo_desk.ui.chat.sandbox_card import PLANTED_ANCHOR
        from echo_desk.ui.core.planted_text import planted_tooltip
        from echo_desk.ui.core.rules_text import plain_tooltip

        # A hand over links and Copy; the tooltip shows where a link goes before it is clicked.
        pos = event.position().toPoint()
        hit = self._hit(self.indexAt(pos), pos)
        href = hit[1] if hit is not None else ""
        shape = Qt.CursorShape.PointingHandCursor if href else Qt.CursorShape.ArrowCursor
        self.viewport().setCursor(shape)
        url = link_target(href) if href else None
        tip = url.toString() if url is not None else ""
        if href == PLANTED_ANCHOR:  # a card's "plants blocked" mark: every entry, in full
            item = self.indexAt(pos).data(ItemRole)
            facts = getattr(item, "sandbox", None)
            if facts is not None:
                tip = plain_tooltip(planted_tooltip(facts.planted, server=facts.server, more=facts.planted_more))
            elif item is not None and item.subtranscript:  # a delegate card: its sub-agent's calls, together
                nested = item.subtranscript.sandboxes
                tip = plain_tooltip(planted_tooltip([p for f in nested for p in f.planted], sub_agent=True,
                                                    more=sum(f.planted_more for f in nested)))
        self.viewport().setToolTip(tip)
        super().mouseMoveEvent(event)

    def _on_clicked(self, index: QModelIndex) -> None:
        item = index.data(ItemRole)
        if item is None:
            return
        hit = self._hit(index, self._pressed_at)
        action = MessageAction.of_anchor(hit[1]) if hit is not None else None
        if action is not None and action in actions_for(item):
            self.message_action.emit(item, action)
            return
        if item.kind == TOOL:
            from echo_desk.ui.chat.tool_card import REVERT_ANCHOR

            if hit is not None and hit[1] == REVERT_ANCHOR:
                self.revert_call.emit(item.call_id)
                return
            model = self.model()
            model.toggle_expanded(index.row())  # type: ignore[attr-defined]
        elif item.kind == ASSISTANT and hit is not None and hit[1]:
            self.activate_link(hit[0], hit[1])

    def activate_link(self, doc: QTextDocument, href: str) -> None:
        """A click on a link in a message: a code block's Copy, or a web/mail link opened in the
        system's browser. Nothing is ever opened without this click; other schemes never."""
        from echo_desk.ui.chat.markdown import code_block_text, link_target

        code = code_block_text(doc, href)
        if code is not None:
            QGuiApplication.clipboard().setText(code)
            self.code_copied.emit(code)
            return
        url = link_target(href)
        if url is not None:
            QDesktopServices.openUrl(url)

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
        action = key_action(item, event) if item is not None else None
        if action is not None:
            self.message_action.emit(item, action)
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
            painter.setPen(theme.current().qcolor("muted"))
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
        for action in actions_for(item):
            if action is not MessageAction.COPY:
                entry = QAction(action_label(action), menu)
                entry.triggered.connect(lambda _checked=False, a=action: self.message_action.emit(item, a))
                menu.addAction(entry)
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
        from echo_desk.ui.chat.tool_card import copy_text

        return copy_text(item) if item.kind == TOOL else shown(item.text)  # a notice in today's language

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
