"""Conversation storage as the UI sees it.

The real store is ``echo_desk.store.conversations.ConversationStore`` (SQLite). When a build
does not have it, ``MemoryConversations`` keeps the same API for the session only, and the
window says that nothing is saved.
"""

from __future__ import annotations

import builtins
import itertools
import time
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class MemoryConversation:
    id: str
    title: str
    workspace: str
    model: str
    created: float
    updated: float


@dataclass(frozen=True)
class MemoryStoredMessage:
    message: Any
    envelope_json: str | None = None


@dataclass
class MemoryConversations:
    persistent = False
    _items: dict[str, MemoryConversation] = field(default_factory=dict)
    _messages: dict[str, list[MemoryStoredMessage]] = field(default_factory=dict)
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))  # type: ignore[type-arg]

    def create(self, title: str, workspace: str = "", model: str = "") -> MemoryConversation:
        now = time.time()
        conv = MemoryConversation(str(next(self._ids)), title, workspace, model, now, now)
        self._items[conv.id] = conv
        self._messages[conv.id] = []
        return conv

    def list(self, search: str = "") -> builtins.list[MemoryConversation]:
        needle = search.lower()
        found = [c for c in self._items.values() if needle in c.title.lower()]
        return sorted(found, key=lambda c: c.updated, reverse=True)

    def get(self, conversation_id: str) -> MemoryConversation | None:
        return self._items.get(conversation_id)

    def rename(self, conversation_id: str, title: str) -> None:
        self._items[conversation_id] = replace(self._items[conversation_id], title=title)

    def delete(self, conversation_id: str) -> None:
        self._items.pop(conversation_id, None)
        self._messages.pop(conversation_id, None)

    def messages(self, conversation_id: str) -> builtins.list[MemoryStoredMessage]:
        return builtins.list(self._messages.get(conversation_id, []))

    def append(self, conversation_id: str, message: Any, envelope_json: str | None = None) -> None:
        self._messages.setdefault(conversation_id, []).append(MemoryStoredMessage(message, envelope_json))
        conv = self._items.get(conversation_id)
        if conv is not None:
            self._items[conversation_id] = replace(conv, updated=time.time())

    def export_markdown(self, conversation_id: str) -> str:
        conv = self._items[conversation_id]
        lines = [f"# {conv.title}", ""]
        for stored in self._messages.get(conversation_id, []):
            msg = stored.message
            lines += [f"**{msg.role}**", "", msg.content or "", ""]
        return "\n".join(lines)


def open_store() -> tuple[Any, bool]:
    """The SQLite store in the data folder when available; otherwise the in-memory one.

    Returns ``(store, persistent)``.
    """
    try:
        from echo_desk.store.conversations import ConversationStore
        from echo_desk.store.paths import data_dir
    except ImportError:
        return MemoryConversations(), False
    folder = data_dir()
    try:
        return ConversationStore(folder / "conversations.sqlite3"), True
    except TypeError:
        return ConversationStore(folder), True
