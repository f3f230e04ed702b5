"""The transcript as a Qt list model: messages and tool cards are rows, not widgets.

Streaming text and live tool output are coalesced on a short timer so 200 tokens/s cost a
handful of repaints per second, not one per token.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt, QTimer

from echo_desk.agent.status import ToolStatus

if TYPE_CHECKING:
    from echo_desk.agent.envelope import Envelope
    from echo_desk.agent.sources import ToolSource
    from echo_desk.chat_messages import AttachmentRef, ImagePart, ResourcePart
    from echo_desk.store.answer_stats import AnswerStats
    from echo_desk.store.conversations import StoredMessage
    from echo_desk.store.message_tree import BranchPosition
    from echo_desk.tools.results import JsonObject

    #: Where a stored message stands among its branches (``None``: unknown).
    BranchOf = Callable[[str], BranchPosition | None]

ItemRole = Qt.ItemDataRole.UserRole + 1
_FLUSH_MS = 50
_ROOT = QModelIndex()
_MAX_OUTPUT_CHARS = 20_000

class ItemKind(enum.StrEnum):
    """What a transcript row is."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    NOTICE = "notice"
    ERROR = "error"


USER, ASSISTANT, TOOL, NOTICE, ERROR = ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL, ItemKind.NOTICE, ItemKind.ERROR


@dataclass(eq=False)
class TranscriptItem:
    kind: ItemKind
    text: str = ""
    call_id: str = ""
    tool_name: str = ""
    arguments: str = ""
    #: A tool card's status (other rows keep the default).
    status: ToolStatus = ToolStatus.PENDING
    result: str = ""
    error: str = ""
    error_kind: str = ""
    #: The person denied this call: their note to the agent ("" for none); ``None`` otherwise.
    denied_note: str | None = None
    file_changes: list[JsonObject] = field(default_factory=list)
    output: str = ""
    #: A ``delegate`` card's sub-agent transcript (the envelope's ``metadata["transcript"]``).
    subtranscript: list[JsonObject] = field(default_factory=list)
    #: Images the person attached to a user message (shown as thumbnails).
    images: tuple[ImagePart, ...] = ()
    #: Paths attached to a user message, listed under its text.
    attachments: tuple[AttachmentRef, ...] = ()
    #: MCP resources attached to a user message (their URIs listed under its text).
    resources: tuple[ResourcePart, ...] = ()
    #: A database result table for the card (see ``result_grid.grid_of``), or ``None``.
    grid: JsonObject | None = None
    #: Where a command ran and what the sandbox refused (see ``sandbox_card.sandbox_of``), or ``None``.
    sandbox: JsonObject | None = None
    expanded: bool = False
    #: The person reverted this call's file changes (the card says so instead of offering Revert).
    reverted: bool = False
    #: The stored message this row shows (its id in the conversation's tree), when known.
    node: str = ""
    #: Its place among branches, when it has siblings (the "‹ 2/3 ›" switcher).
    branch: BranchPosition | None = None
    #: Tokens and time of the answer (the footer), when measured.
    stats: AnswerStats | None = None
    #: The last answer of the conversation: it offers Regenerate.
    last_answer: bool = False
    #: The stored message the row shows (a card: its result's), 0 when not loaded from the store.
    message_id: int = 0
    #: Bumped on every change; the delegate's layout cache is keyed on it.
    version: int = 0

    def touch(self) -> None:
        self.version += 1


def _switchable(branch: BranchPosition | None) -> BranchPosition | None:
    """A position worth a switcher: the message has other versions."""
    return branch if branch is not None and branch.count > 1 else None


def subtranscript_of(metadata: object) -> list[JsonObject]:
    """The sub-agent transcript in an envelope's metadata (``[]`` when there is none)."""
    entries = metadata.get("transcript") if isinstance(metadata, dict) else None
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []




class TranscriptModel(QAbstractListModel):
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
        if role == Qt.ItemDataRole.DisplayRole:
            return item.text or item.result or item.error or item.tool_name
        if role == Qt.ItemDataRole.AccessibleTextRole:
            status = item.status if item.kind is ItemKind.TOOL else ""
            return f"{item.kind}: {item.text or item.tool_name} {status}".strip()
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

    def set_tool_result(self, call_id: str, envelope: Envelope) -> None:
        from echo_desk.ui.chat.result_grid import grid_of  # the cards' parsers: after the first frame
        from echo_desk.ui.chat.sandbox_card import sandbox_of

        item = self._by_call.get(call_id)
        if item is None:
            return
        self.flush()
        item.error_kind = envelope.error_kind.value if envelope.error_kind else ""
        item.result = envelope.content
        item.error = envelope.error
        item.file_changes = [c.to_json() for c in envelope.file_changes]
        item.subtranscript = subtranscript_of(envelope.metadata)
        item.grid = grid_of(envelope.metadata)
        item.sandbox = sandbox_of(envelope.metadata)
        item.denied_note = denial_of(envelope.metadata)
        item.status = ToolStatus.of_result(envelope.ok, envelope.error_kind)
        self._changed(item)

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
        from echo_desk.ui.chat.result_grid import grid_of
        from echo_desk.ui.chat.sandbox_card import sandbox_of

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
                found = cards.get(msg.tool_call_id)
                env: JsonObject = entry.envelope or {}
                if found is None:
                    continue
                card = found
                card.message_id = entry.id
                card.result = str(env.get("content", content) or "")
                card.error = str(env.get("error", "") or "")
                card.error_kind = str(env.get("error_kind", "") or "")
                card.file_changes = list(env.get("file_changes", []) or [])
                card.subtranscript = subtranscript_of(env)
                card.grid = grid_of(env.get("grid"))
                card.sandbox = sandbox_of(env.get("sandbox"))
                card.denied_note = denial_of(env)
                card.status = ToolStatus.of_result(bool(env.get("ok", not card.error)), card.error_kind)
        self._timer.stop()
        self.beginResetModel()
        self._items = items
        self._by_call = {i.call_id: i for i in items if i.call_id}
        self._pending_text = ""
        self._pending_output.clear()
        self._streaming = None
        self.endResetModel()


def denial_of(metadata: object) -> str | None:
    """The person's note when they denied the call (``""``: none), from an envelope's metadata or
    a stored envelope; ``None`` when the call was not denied by the person."""
    from echo_desk.agent.envelope import DENIED_KEY

    denied = metadata.get(DENIED_KEY) if isinstance(metadata, dict) else None
    if not isinstance(denied, dict):
        return None
    note = denied.get("message", "")
    return note if isinstance(note, str) else ""
