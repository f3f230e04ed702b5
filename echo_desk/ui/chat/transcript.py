"""The transcript as a Qt list model: messages and tool cards are rows, not widgets.

Streaming text and live tool output are coalesced on a short timer so 200 tokens/s cost a
handful of repaints per second, not one per token.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer, Signal

from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import shown

# The rows are plain data (no Qt), defined beside the card facts; imported from here too.
from echo_desk.ui.chat.transcript_item import ASSISTANT as ASSISTANT
from echo_desk.ui.chat.transcript_item import ERROR as ERROR
from echo_desk.ui.chat.transcript_item import NOTICE as NOTICE
from echo_desk.ui.chat.transcript_item import TOOL as TOOL
from echo_desk.ui.chat.transcript_item import USER as USER
from echo_desk.ui.chat.transcript_item import ItemKind as ItemKind
from echo_desk.ui.chat.transcript_item import TranscriptItem as TranscriptItem

if TYPE_CHECKING:
    from echo_desk.agent.envelope import Envelope
    from echo_desk.agent.sources import ToolSource
    from echo_desk.chat_messages import AttachmentRef, ImagePart, ResourcePart
    from echo_desk.store.answer_stats import AnswerStats
    from echo_desk.store.conversations import StoredMessage
    from echo_desk.store.message_tree import BranchPosition
    from echo_desk.tools.results import JsonObject
    from echo_desk.ui.chat.card_facts import ResultFacts

    #: Where a stored message stands among its branches (``None``: unknown).
    BranchOf = Callable[[str], BranchPosition | None]

ItemRole = Qt.ItemDataRole.UserRole + 1
_FLUSH_MS = 50
_ROOT = QModelIndex()
_MAX_OUTPUT_CHARS = 20_000


def _switchable(branch: BranchPosition | None) -> BranchPosition | None:
    """A position worth a switcher: the message has other versions."""
    return branch if branch is not None and branch.count > 1 else None


class TranscriptModel(QAbstractListModel):
    #: A call's file changes were recorded while an earlier card still says the change log could
    #: not take its own: the log writes what it held back before each new record, so those cards
    #: may offer Revert now (the window asks the change log).
    late_records_possible = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._items: list[TranscriptItem] = []
        self._by_call: dict[str, TranscriptItem] = {}
        self._pending_text = ""
        self._pending_output: dict[str, str] = {}
        self._streaming: TranscriptItem | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(_FLUSH_MS)
        self._timer.timeout.connect(self.flush)
        #: Localized title for a tool name; the app sets it from the registry.
        self.title_for: Callable[[str], str] = lambda name: name
        #: Where a tool comes from (its card's icon); set by the window from the registry.
        self.source_for: Callable[[str], ToolSource | None] = lambda name: None

    # -- Qt model -------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self._items)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or index.row() >= len(self._items):
            return None
        item = self._items[index.row()]
        if role == ItemRole:
            return item
        # A notice or an error made with ``deferred`` is said in the language of the moment, as
        # the view paints it: its ``str`` is the translation made when it was created.
        if role == Qt.ItemDataRole.DisplayRole:
            return shown(item.text) or item.result or shown(item.error) or item.tool_name
        if role == Qt.ItemDataRole.AccessibleTextRole:
            status = item.status if item.kind is ItemKind.TOOL else ""
            return f"{item.kind}: {shown(item.text) or item.tool_name} {status}".strip()
        return None

    # -- reading ----------------------------------------------------------------------------
    def items(self) -> list[TranscriptItem]:
        return list(self._items)

    def card(self, call_id: str) -> TranscriptItem | None:
        return self._by_call.get(call_id)

    def row_of(self, item: TranscriptItem) -> int:
        for row in range(len(self._items) - 1, -1, -1):
            if self._items[row] is item:
                return row
        return -1

    # -- writing ----------------------------------------------------------------------------
    def _append(self, items: Iterable[TranscriptItem]) -> None:
        batch = list(items)
        if not batch:
            return
        first = len(self._items)
        self.beginInsertRows(QModelIndex(), first, first + len(batch) - 1)
        self._items.extend(batch)
        for item in batch:
            if item.call_id:
                self._by_call[item.call_id] = item
        self.endInsertRows()

    def _changed(self, item: TranscriptItem) -> None:
        item.touch()
        row = self.row_of(item)
        if row >= 0:
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def clear(self) -> None:
        self._timer.stop()
        self.beginResetModel()
        self._items.clear()
        self._by_call.clear()
        self._pending_text = ""
        self._pending_output.clear()
        self._streaming = None
        self.endResetModel()

    def add_user(self, text: str, images: tuple[ImagePart, ...] = (), attachments: tuple[AttachmentRef, ...] = (),
                 node: str = "", branch: BranchPosition | None = None,
                 resources: tuple[ResourcePart, ...] = ()) -> TranscriptItem:
        self.flush()
        self._streaming = None
        item = TranscriptItem(USER, text=text, images=images, attachments=attachments, resources=resources, node=node,
                              branch=_switchable(branch))
        self._append([item])
        return item

    def add_notice(self, text: str, *, error: bool = False) -> TranscriptItem:
        self.flush()
        self._streaming = None
        item = TranscriptItem(ERROR if error else NOTICE, text=text)
        self._append([item])
        return item

    def append_text(self, delta: str) -> None:
        """Streamed assistant text; shown within ``_FLUSH_MS``."""
        self._pending_text += delta
        if not self._timer.isActive():
            self._timer.start()

    def end_assistant(self) -> None:
        self.flush()
        self._streaming = None

    def answer_saved(self, node: str, stats: AnswerStats | None, call_ids: Iterable[str],
                     branch: BranchPosition | None = None) -> None:
        """The assistant message just streamed is stored as ``node``: its text row (or, for calls
        only, its first card) gets the id, the footer figures and the branch switcher."""
        self.flush()
        row = self._streaming if self._streaming is not None and self.row_of(self._streaming) >= 0 else None
        if row is None:
            row = next((c for c in map(self._by_call.get, call_ids) if c is not None), None)
            above = self.row_of(row) - 1 if row is not None else -1
            if above >= 0 and self._items[above].kind is ASSISTANT and not self._items[above].node:
                row = self._items[above]  # its text came before its calls (a call ends the text row)
        if row is not None and not row.node:
            row.node, row.stats, row.branch = node, stats, _switchable(branch)
            self._changed(row)

    def update(self, item: TranscriptItem) -> None:
        """``item``'s fields were changed in place: measure and paint it again."""
        self._changed(item)

    def truncate(self, row: int) -> None:
        """Remove the rows from ``row`` on (the turns of a branch that is no longer shown)."""
        self.flush()
        if not 0 <= row < len(self._items):
            return
        self.beginRemoveRows(QModelIndex(), row, len(self._items) - 1)
        del self._items[row:]
        self._by_call = {i.call_id: i for i in self._items if i.call_id}
        if self._streaming is not None and self.row_of(self._streaming) < 0:
            self._streaming = None
        self.endRemoveRows()

    def add_tool_call(self, call_id: str, name: str, arguments: str,
                      status: ToolStatus = ToolStatus.PENDING) -> TranscriptItem:
        self.flush()
        self._streaming = None  # text after a tool call is a new bubble
        existing = self._by_call.get(call_id)
        if existing is not None:
            existing.arguments = arguments or existing.arguments
            self._changed(existing)
            return existing
        item = TranscriptItem(TOOL, call_id=call_id, tool_name=name, arguments=arguments, status=status)
        self._append([item])
        return item

    def set_tool_status(self, call_id: str, status: ToolStatus) -> None:
        item = self._by_call.get(call_id)
        if item is not None:
            self.flush()
            item.status = status
            self._changed(item)

    def set_changed_before_stop(self, call_id: str, paths: tuple[str, ...]) -> None:
        """A stopped call's card: the files its tool had already changed, to be reverted from it."""
        item = self._by_call.get(call_id)
        if item is not None:
            item.changed_before_stop = paths
            self._changed(item)

    def set_tool_result(self, call_id: str, envelope: Envelope) -> None:
        from echo_desk.ui.chat.card_parse import (
            result_of_envelope,  # the engine's values: after the first frame
        )

        item = self._by_call.get(call_id)
        if item is None:
            return
        self._show_result(item, result_of_envelope(envelope))

    def set_stored_result(self, call_id: str, stored: JsonObject) -> None:
        """A shown call's saved result was brought up to date in the store (its sandbox checked
        after a restart, ``agent.owed_checks``): its card says what the reopened one would."""
        from echo_desk.ui.chat.card_parse import result_of_stored

        item = self._by_call.get(call_id)
        if item is None:
            return
        self._show_result(item, result_of_stored(stored, item.result))

    def _show_result(self, item: TranscriptItem, facts: ResultFacts) -> None:
        self.flush()
        item.show_result(facts)
        self._changed(item)
        if item.file_changes and item.not_recorded is None and any(
                other.not_recorded is not None for other in self._items):
            self.late_records_possible.emit()

    def append_output(self, call_id: str, text: str) -> None:
        """Live output of a stream-capable tool."""
        self._pending_output[call_id] = self._pending_output.get(call_id, "") + text
        if not self._timer.isActive():
            self._timer.start()

    def toggle_expanded(self, row: int) -> None:
        if 0 <= row < len(self._items):
            item = self._items[row]
            item.expanded = not item.expanded
            self._changed(item)

    def flush(self) -> None:
        """Move coalesced text and output into their rows."""
        self._timer.stop()
        if self._pending_text:
            text, self._pending_text = self._pending_text, ""
            if self._streaming is None or self.row_of(self._streaming) < 0:
                self._streaming = TranscriptItem(ASSISTANT, text=text)
                self._append([self._streaming])
            else:
                self._streaming.text += text
                self._changed(self._streaming)
        if self._pending_output:
            pending, self._pending_output = self._pending_output, {}
            for call_id, text in pending.items():
                item = self._by_call.get(call_id)
                if item is not None:
                    item.output = (item.output + text)[-_MAX_OUTPUT_CHARS:]
                    self._changed(item)

    def relabel(self) -> None:
        """The language changed: every row must be measured and painted again."""
        for item in self._items:
            item.touch()
        if self._items:
            self.dataChanged.emit(self.index(0), self.index(len(self._items) - 1))

    # -- history ----------------------------------------------------------------------------
    def load_history(self, stored: Iterable[StoredMessage], branch_of: BranchOf | None = None) -> None:
        """Rebuild from a conversation's stored messages in one reset, so opening a long
        conversation is one layout pass. ``branch_of`` places each message among its branches."""
        from echo_desk.agent.undo.notes import is_engine_note  # the engine: after the first frame
        from echo_desk.ui.chat.card_parse import result_of_stored

        items: list[TranscriptItem] = []
        cards: dict[str, TranscriptItem] = {}
        for entry in stored:
            msg = entry.message
            role = msg.role
            content = msg.content
            branch = _switchable(branch_of(entry.node)) if branch_of is not None and entry.node else None
            if is_engine_note(msg):
                continue  # for the model only, as when it was sent (the Retry card stood for it)
            if role == "user":
                items.append(TranscriptItem(USER, text=content, images=msg.images, attachments=msg.attachments,
                                            resources=msg.resources,
                                            node=entry.node, branch=branch, message_id=entry.id))
            elif role == "assistant":
                first = len(items)
                if content:
                    items.append(TranscriptItem(ASSISTANT, text=content, stats=entry.stats, message_id=entry.id))
                for call in msg.tool_calls:
                    card = TranscriptItem(TOOL, call_id=call.id, tool_name=call.name,
                                          arguments=call.arguments, status=ToolStatus.PENDING,
                                          message_id=entry.id)
                    cards[call.id] = card
                    items.append(card)
                if len(items) > first:  # the message's first row stands for it (see answer_saved)
                    items[first].node, items[first].branch = entry.node, branch
            elif role == "tool":
                answered = cards.get(msg.tool_call_id)
                if answered is None:
                    continue
                answered.message_id = entry.id
                answered.show_result(result_of_stored(entry.envelope, content))
        self._timer.stop()
        self.beginResetModel()
        self._items = items
        self._by_call = {i.call_id: i for i in items if i.call_id}
        self._pending_text = ""
        self._pending_output.clear()
        self._streaming = None
        self.endResetModel()

