"""Where the desktop app keeps its conversations (the SQLite store in the data folder)."""

from __future__ import annotations

from echo_desk.store.conversations import CONVERSATIONS_FILE, ConversationStore
from echo_desk.store.paths import data_dir

__all__ = ["CONVERSATIONS_FILE", "open_store"]


def open_store() -> ConversationStore:
    """The conversation store in the data folder (created on first use)."""
    return ConversationStore(data_dir() / CONVERSATIONS_FILE)
