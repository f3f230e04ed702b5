"""The conversation list: search, new, rename (in place), delete (with confirmation), export."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLineEdit,
    QListView,
    QMenu,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import _
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.widgets.snug_button import SnugButton

if TYPE_CHECKING:
    from echo_desk.store.conversations import Conversation, ConversationStore
    from echo_desk.ui.chat.search_results import MessageSearch, SearchResults

IdRole = Qt.ItemDataRole.UserRole + 20
ConversationRole = Qt.ItemDataRole.UserRole + 21


def display_title(conversation: Conversation) -> str:
    """The title as shown: an untitled conversation (empty in the data) is "New conversation"."""
    return conversation.title or _("New conversation")


class ConversationList(QWidget):
    selected = Signal(object)  # the conversation object
    new_requested = Signal()
    export_requested = Signal(object)
    hit_chosen = Signal(object)  # a search result opened: the ``SearchHit``

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store: ConversationStore | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.search = QLineEdit()
        self.search.setClearButtonEnabled(True)
        layout.addWidget(self.search)
        self.model = QStandardItemModel(self)
        self.model.itemChanged.connect(self._on_renamed)
        self.view = QListView()
        self.view.setModel(self.model)
        self.view.setEditTriggers(QListView.EditTrigger.EditKeyPressed | QListView.EditTrigger.DoubleClicked)
        self.view.selectionModel().currentChanged.connect(self._on_current)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        layout.addWidget(self.view, 1)
        # Words in the search box: the matching messages, with snippets, in place of the list.
        # Built with the first word typed (see ``results``), not before the first frame.
        self._layout = layout
        self._results: SearchResults | None = None
        self.message_search: MessageSearch | None = None
        self.search.textChanged.connect(self._first_search)
        buttons = QHBoxLayout()
        # Snug: at Qt's 80 px each the three asked 252 px, too much of a 900 px window.
        self.new_button = SnugButton()
        self.rename_button = SnugButton()
        self.delete_button = SnugButton()
        self.new_button.clicked.connect(self.new_requested.emit)
        self.rename_button.clicked.connect(self.rename_current)
        self.delete_button.clicked.connect(self.delete_current)
        for b in (self.new_button, self.rename_button, self.delete_button):
            buttons.addWidget(b)
        layout.addLayout(buttons)
        self._loading = False
        self._shown_id: str | None = None
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    @property
    def results(self) -> SearchResults:
        """The search results shown in place of the list (made when first needed)."""
        if self._results is None:
            from echo_desk.ui.chat.search_results import MessageSearch, SearchResults

            self._results = SearchResults()
            self._layout.insertWidget(self._layout.indexOf(self.view) + 1, self._results, 1)
            self._results.hit_chosen.connect(self.hit_chosen)
            self.message_search = MessageSearch(self.search, self._results, self.view, lambda: self.store)
        return self._results

    def _first_search(self, _text: str) -> None:
        self.search.textChanged.disconnect(self._first_search)
        self.results  # noqa: B018 - made now, it follows the box from the words already typed

    def retranslate(self, *_args: object) -> None:
        self.search.setPlaceholderText(_("Search conversations"))
        self.search.setAccessibleName(_("Search conversations"))
        self.view.setAccessibleName(_("Conversations"))
        self.new_button.setText(_("New"))
        self.new_button.setAccessibleName(_("New conversation"))
        self.rename_button.setText(_("Rename"))
        self.rename_button.setAccessibleName(_("Rename conversation"))
        self.delete_button.setText(_("Delete"))
        self.delete_button.setAccessibleName(_("Delete conversation"))
        self._relabel()

    def _relabel(self) -> None:
        """Untitled conversations show the placeholder of the current language (no store read)."""
        self._loading = True  # a relabel is not a rename
        try:
            for row in range(self.model.rowCount()):
                item = self.model.item(row)
                conv = item.data(ConversationRole)
                if conv is not None and not conv.title:
                    item.setText(display_title(conv))
                    item.setToolTip(f"{display_title(conv)}\n{conv.workspace or ''}")
        finally:
            self._loading = False

    def reload(self, select_id: str | None = None) -> None:
        if self.store is None:
            return
        current = select_id or self.current_id()
        self._loading = True
        try:
            self.model.clear()
            for conv in self.store.list():
                item = QStandardItem(display_title(conv))
                item.setData(str(conv.id), IdRole)
                item.setData(conv, ConversationRole)
                item.setToolTip(f"{display_title(conv)}\n{conv.workspace or ''}")
                self.model.appendRow(item)
        finally:
            self._loading = False
        for row in range(self.model.rowCount()):
            if self.model.item(row).data(IdRole) == current:
                self.view.setCurrentIndex(self.model.index(row, 0))
                break

    def mark_shown(self, conversation_id: str | None) -> None:
        """The window opened this conversation itself (e.g. a new one)."""
        self._shown_id = conversation_id

    def current_id(self) -> str | None:
        index = self.view.currentIndex()
        return index.data(IdRole) if index.isValid() else None

    def current_item_text(self) -> str:
        """The shown title of the selected conversation ("" when none is selected)."""
        index = self.view.currentIndex()
        return str(index.data()) if index.isValid() else ""

    def current(self) -> Conversation | None:
        index = self.view.currentIndex()
        return index.data(ConversationRole) if index.isValid() else None

    def _on_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        # Only a different conversation is news: a reload (rename, new title) re-selecting the
        # same one must not reopen it, which would stop its running turn.
        if self._loading or not current.isValid():
            return
        conversation_id = current.data(IdRole)
        if conversation_id != self._shown_id:
            self._shown_id = conversation_id
            self.selected.emit(current.data(ConversationRole))

    def rename_current(self) -> None:
        index = self.view.currentIndex()
        if index.isValid():
            self.view.edit(index)

    def _on_renamed(self, item: QStandardItem) -> None:
        if self._loading or self.store is None:
            return
        title = item.text().strip()
        conv = item.data(ConversationRole)
        if not title:  # an empty title is refused; the old one comes back
            self.reload()
            return
        if conv is not None and title != display_title(conv):
            self.store.rename(conv.id, title)
            self.reload(str(conv.id))

    def delete_current(self) -> None:
        conv = self.current()
        if conv is None:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, _("Delete conversation"),
                          _("Delete “{title}” and all its messages? This cannot be undone.").format(title=display_title(conv)),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def done(result: int) -> None:
            if result == QMessageBox.StandardButton.Yes and self.store is not None:
                self.store.delete(conv.id)
                self.reload()
                self.selected.emit(self.current())

        box.finished.connect(done)
        box.open()

    def _menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        for text, slot in ((_("Rename"), self.rename_current), (_("Delete"), self.delete_current),
                           (_("Export as Markdown…"), lambda: self.export_requested.emit(self.current()))):
            action = QAction(text, menu)
            action.triggered.connect(slot)
            menu.addAction(action)
        menu.popup(self.view.viewport().mapToGlobal(pos))

    def row_count(self) -> int:
        return self.model.rowCount()

    def index_of(self, conversation_id: str) -> QModelIndex | QPersistentModelIndex:
        for row in range(self.model.rowCount()):
            if self.model.item(row).data(IdRole) == conversation_id:
                return self.model.index(row, 0)
        return QModelIndex()
