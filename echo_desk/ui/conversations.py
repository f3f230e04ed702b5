"""Where the desktop app keeps its conversations (the SQLite store in the data folder)."""

from __future__ import annotations

from echo_desk.store.conversations import ConversationStore
from echo_desk.store.paths import data_dir

CONVERSATIONS_FILE = "conversations.sqlite3"


def open_store() -> tuple[ConversationStore, bool]:
    """The conversation store and whether it is persistent (always, for the SQLite one)."""
    return ConversationStore(data_dir() / CONVERSATIONS_FILE), True
