"""Conversations, their messages, and the envelopes of their tool calls, in SQLite.

Each message is committed as soon as it is complete, so a crash mid-turn loses at most the
message being streamed. The schema is versioned with ``PRAGMA user_version`` and migrated
forward on open.
"""

from __future__ import annotations

import builtins
import enum
import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.chat_messages import ChatMessage, ToolCall
from echo_desk.common.json_text import read_json
from echo_desk.common.storable import storable, storable_text
from echo_desk.store import message_attachments, message_search
from echo_desk.store.answer_stats import AnswerStats
from echo_desk.store.blobs import BlobStore
from echo_desk.store.message_search import SearchHit
from echo_desk.store.message_tree import MessageTree, TreeNode
from echo_desk.store.private import connect_private
from echo_desk.store.redact import redact, redact_text

#: The app's conversations in the data folder (``ui.app.conversations``; the owed checks of a
#: start bring a call's saved card up to date there, from whichever process makes them).
CONVERSATIONS_FILE = "conversations.sqlite3"


def _v1(conn: sqlite3.Connection) -> None:
    conn.executescript(
        """
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            workspace TEXT NOT NULL,
            model TEXT NOT NULL,
            created REAL NOT NULL,
            updated REAL NOT NULL
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL,
            content TEXT NOT NULL,
            tool_calls TEXT NOT NULL DEFAULT '[]',
            tool_call_id TEXT NOT NULL DEFAULT '',
            name TEXT NOT NULL DEFAULT '',
            envelope TEXT,
            created REAL NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
        """
    )


def _v2(conn: sqlite3.Connection) -> None:
    # Search by title and text without scanning JSON columns.
    conn.execute("CREATE INDEX IF NOT EXISTS conversations_by_updated ON conversations(updated DESC)")


def _v3(conn: sqlite3.Connection) -> None:
    # An untitled conversation used to be stored under the placeholder of the language of the
    # day; it is now empty in the data (the UI shows the placeholder in its current language).
    conn.execute("UPDATE conversations SET title = '' WHERE title IN (?, ?)", ("New conversation", "新对话"))


def _v4(conn: sqlite3.Connection) -> None:
    # Branches: each message names its parent (``node`` ids, so a writer needs no row id back) and
    # ``chosen`` says which branch was shown last. An old conversation becomes one branch, in order.
    # One transaction with the version bump (not executescript, which commits as it goes): a
    # crash midway leaves the old schema, and the next start migrates again.
    if not conn.in_transaction:
        conn.execute("BEGIN")
    for statement in (
        "ALTER TABLE messages ADD COLUMN node TEXT",
        "ALTER TABLE messages ADD COLUMN parent TEXT",
        "ALTER TABLE messages ADD COLUMN chosen INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE messages ADD COLUMN stats TEXT",
        "UPDATE messages SET node = 'm' || messages.id, chosen = messages.id, parent = previous.node FROM ("
        " SELECT id, 'm' || LAG(id) OVER (PARTITION BY conversation_id ORDER BY id) AS node FROM messages"
        ") AS previous WHERE previous.id = messages.id",
        "CREATE UNIQUE INDEX messages_by_node ON messages(node)",
        "CREATE INDEX messages_by_chosen ON messages(conversation_id, chosen)",
    ):
        conn.execute(statement)


# add_search_index: the full-text index of message text (its own table and triggers).
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2, _v3, _v4, message_search.add_search_index]


class After(enum.Enum):
    """``append``'s default parent: the end of the branch shown last (a value no node id can be)."""

    LAST_CHOSEN = "last chosen"


LAST_CHOSEN = After.LAST_CHOSEN


@dataclass(frozen=True)
class Conversation:
    """A stored conversation; ``title`` is empty until it is named (by its first message)."""

    id: str
    title: str
    workspace: str
    model: str
    created: float
    updated: float


@dataclass(frozen=True)
class StoredMessage:
    id: int
    message: ChatMessage
    envelope: dict[str, Any] | None
    created: float
    #: The message's id in the conversation's tree, and the message it follows (``None``: the first).
    node: str = ""
    parent: str | None = None
    #: Tokens and time of an assistant reply, when measured.
    stats: AnswerStats | None = None


class ConversationStore:
    def __init__(self, path: Path | str) -> None:
        self._lock = threading.RLock()
        self._conn = connect_private(path, check_same_thread=False, timeout=10)  # 0600, 0700 folder
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._images = message_attachments.blob_store_for(path)
        self._migrate()

    def _migrate(self) -> None:
        with self._lock:
            version = int(self._conn.execute("PRAGMA user_version").fetchone()[0])
            if version > len(MIGRATIONS):
                raise RuntimeError(
                    f"the conversation database is from a newer Echo Desk (schema {version}); "
                    "update the app before opening it"
                )
            for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
                with self._conn:
                    migration(self._conn)
                    self._conn.execute(f"PRAGMA user_version = {number}")

    @property
    def schema_version(self) -> int:
        return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def create(self, title: str, workspace: str = "", model: str = "") -> Conversation:
        now = time.time()
        title = redact_text(title)
        conversation = Conversation(uuid.uuid4().hex, title, workspace, model, now, now)
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT INTO conversations VALUES (?,?,?,?,?,?)",
                (conversation.id, title, workspace, model, now, now),
            )
        return conversation

    def get(self, conversation_id: str) -> Conversation | None:
        with self._lock:
            row = self._conn.execute("SELECT * FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        return Conversation(*row) if row else None

    def list(self, search: str = "") -> list[Conversation]:
        """Newest first; ``search`` matches titles and message text (case-insensitive)."""
        with self._lock:
            if not search:
                rows = self._conn.execute("SELECT * FROM conversations ORDER BY updated DESC").fetchall()
            else:
                like = f"%{search}%"
                rows = self._conn.execute(
                    "SELECT * FROM conversations c WHERE c.title LIKE ? OR EXISTS ("
                    " SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.content LIKE ?)"
                    " ORDER BY updated DESC",
                    (like, like),
                ).fetchall()
        return [Conversation(*row) for row in rows]

    def search(self, query: str, limit: int = 100) -> builtins.list[SearchHit]:
        """Titles and message text containing every word of ``query``, with a snippet each
        (see :mod:`echo_desk.store.message_search`)."""
        with self._lock:
            return message_search.search(self._conn, query, limit)

    def update(self, conversation_id: str, **fields: str) -> None:
        allowed = {"title", "workspace", "model"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"cannot update {', '.join(sorted(unknown))}")
        if not fields:
            return
        if "title" in fields:  # titles are often the first message, secrets included
            fields["title"] = redact_text(fields["title"])
        assignments = ", ".join(f"{name} = ?" for name in fields)
        with self._lock, self._conn:
            self._conn.execute(
                f"UPDATE conversations SET {assignments}, updated = ? WHERE id = ?",
                (*fields.values(), time.time(), conversation_id),
            )

    def rename(self, conversation_id: str, title: str) -> None:
        self.update(conversation_id, title=title)

    def delete(self, conversation_id: str) -> None:
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def append(self, conversation_id: str, message: ChatMessage, envelope: dict[str, Any] | None = None, *,
               node: str = "", parent: str | After | None = LAST_CHOSEN, stats: AnswerStats | None = None) -> int:
        """Store one message after ``parent`` (by default the end of the branch shown last); it
        becomes the chosen branch. Secrets are redacted in what is stored (content, call arguments,
        envelope); the caller's ``message`` (the live conversation) is left as it is."""
        calls = [{"id": c.id, "name": c.name, "arguments": _redact_arguments(c.arguments)}
                 for c in message.tool_calls]
        content = storable_text(redact_text(message.content))
        envelope_text = _stored_envelope(envelope) if envelope is not None else None
        if message.role == "user" and (message.images or message.attachments or message.resources):
            envelope_text = json.dumps(message_attachments.record(message, self._images), ensure_ascii=False)
        now = time.time()
        with self._lock, self._conn:
            if parent is LAST_CHOSEN:
                row = self._conn.execute("SELECT node FROM messages WHERE conversation_id = ?"
                                         " ORDER BY chosen DESC, id DESC LIMIT 1", (conversation_id,)).fetchone()
                parent = row[0] if row else None
            cursor = self._conn.execute(
                "INSERT INTO messages (conversation_id, role, content, tool_calls, tool_call_id, name, envelope,"
                " created, node, parent, stats, chosen) VALUES (?,?,?,?,?,?,?,?,?,?,?,"
                " (SELECT COALESCE(MAX(chosen), 0) + 1 FROM messages WHERE conversation_id = ?))",
                (conversation_id, message.role, content, json.dumps(calls), message.tool_call_id,
                 message.name, envelope_text, now,
                 node or uuid.uuid4().hex, parent, json.dumps(stats.to_json()) if stats is not None else None,
                 conversation_id),
            )
            self._conn.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation_id))
        return int(cursor.lastrowid or 0)

    def replace_envelope(self, conversation_id: str, node: str, envelope: dict[str, Any]) -> bool:
        """Store ``envelope`` (redacted as in :meth:`append`) with the saved tool message ``node``,
        whose call learned more after it was saved (its sandbox checked later). What the model was
        told (the content) stays; the conversation keeps its place in the list. ``False``: no such
        tool message here."""
        with self._lock, self._conn:
            cursor = self._conn.execute("UPDATE messages SET envelope = ? WHERE conversation_id = ? AND node = ?"
                                        " AND role = 'tool'", (_stored_envelope(envelope), conversation_id, node))
        return cursor.rowcount > 0

    def tool_envelope(self, conversation_id: str, call_id: str) -> tuple[str, dict[str, Any]] | None:
        """The saved tool message of call ``call_id``: its node and its envelope as stored (the
        newest, should a call have been saved twice); ``None`` when none was saved."""
        with self._lock:
            row = self._conn.execute("SELECT node, envelope FROM messages WHERE conversation_id = ? AND"
                                     " tool_call_id = ? AND role = 'tool' ORDER BY id DESC LIMIT 1",
                                     (conversation_id, call_id)).fetchone()
        if row is None:
            return None
        value = _safe_json(row[1]) if row[1] else {}
        return row[0], value

    def tool_envelope_holding(self, conversation_id: str, call_id: str,
                              held_by: Sequence[str] = ()) -> tuple[str, str, dict[str, Any]] | None:
        """The saved tool message whose sub-agent transcript (a ``delegate`` call's) holds the
        result of call ``call_id``: its node, its own call's id and its envelope as stored (the
        newest); ``None`` when no saved transcript holds it. ``held_by`` names the ``delegate``
        calls holding it, outermost first: the message's own call, then those whose nested
        transcripts lead down to the step (``transcript_within``); () when they are not known
        (then the newest message whose own transcript holds it, maybe another sub-agent's)."""
        holder, inner = (held_by[0], held_by[1:]) if held_by else (None, ())
        with self._lock:
            rows = self._conn.execute("SELECT node, tool_call_id, envelope FROM messages WHERE conversation_id = ?"
                                      " AND role = 'tool' AND instr(envelope, '\"transcript\"') > 0"
                                      " AND (? IS NULL OR tool_call_id = ?) ORDER BY id DESC",
                                      (conversation_id, holder, holder)).fetchall()
        for node, own_call, text in rows:
            value = _safe_json(text)
            transcript = transcript_within(value, inner)
            if transcript is not None and any(
                    isinstance(entry, dict) and entry.get("result") == call_id for entry in transcript):
                return node, own_call or "", value
        return None

    def tree(self, conversation_id: str) -> MessageTree:
        """Every message of the conversation (all branches) as a tree."""
        with self._lock:
            rows = self._conn.execute("SELECT node, parent, chosen, id FROM messages WHERE conversation_id = ?",
                                      (conversation_id,)).fetchall()
        return MessageTree(TreeNode(*row) for row in rows)

    def messages(self, conversation_id: str) -> builtins.list[StoredMessage]:
        """The chosen branch, first message first (what is shown and what the model is told)."""
        return self.branch(conversation_id)[0]

    def branch(self, conversation_id: str) -> tuple[builtins.list[StoredMessage], MessageTree]:
        """The chosen branch (as :meth:`messages`) and the whole tree, read at once."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, role, content, tool_calls, tool_call_id, name, envelope, created, node, parent, stats,"
                " chosen FROM messages WHERE conversation_id = ? ORDER BY id",
                (conversation_id,),
            ).fetchall()
        tree = MessageTree(TreeNode(row[8], row[9], row[11], row[0]) for row in rows)
        by_node = {row[8]: row for row in rows}
        return [_stored(by_node[node], self._images) for node in tree.active_path()], tree

    def choose(self, conversation_id: str, node: str) -> builtins.list[StoredMessage]:
        """Show the branch through ``node`` (and, below it, the branches chosen there last);
        returns that branch. Nothing is deleted. ``KeyError``: no such message here."""
        with self._lock, self._conn:
            tree = self.tree(conversation_id)
            if node not in tree:
                raise KeyError(node)
            path = tree.path_through(node)
            top = int(self._conn.execute("SELECT COALESCE(MAX(chosen), 0) FROM messages WHERE conversation_id = ?",
                                         (conversation_id,)).fetchone()[0])
            # Bumped top-down, so each is its siblings' latest choice and the leaf the latest of all.
            self._conn.executemany("UPDATE messages SET chosen = ? WHERE node = ?",
                                   [(top + i, n) for i, n in enumerate(path, start=1)])
        return self.messages(conversation_id)

    def node_of(self, message_id: int) -> str | None:
        """The tree id of stored message ``message_id`` (``None``: no such message)."""
        with self._lock:
            row = self._conn.execute("SELECT node FROM messages WHERE id = ?", (message_id,)).fetchone()
        return str(row[0]) if row else None

    def history(self, conversation_id: str) -> builtins.list[ChatMessage]:
        return [m.message for m in self.messages(conversation_id)]

    def export_markdown(self, conversation_id: str) -> str:
        conversation = self.get(conversation_id)
        if conversation is None:
            raise KeyError(conversation_id)
        lines = [f"# {conversation.title or 'Untitled conversation'}", ""]
        if conversation.workspace:
            lines += [f"Workspace: `{conversation.workspace}`", ""]
        for stored in self.messages(conversation_id):
            m = stored.message
            if m.role == "tool":
                env = stored.envelope or _safe_json(m.content)
                status = "ok" if env.get("ok") else f"failed ({env.get('error_kind')}): {env.get('error')}"
                lines += [f"**Tool result** `{m.name}` — {status}", "", "```", str(env.get("content", "")), "```", ""]
                continue
            if m.content or m.attachments:
                lines += [f"**{m.role.capitalize()}:**", "", m.content, ""]
                lines += [f"- attached: `{a.mention}`" for a in m.attachments] + ([""] if m.attachments else [])
            for call in m.tool_calls:
                lines += [f"**Tool call** `{call.name}`", "", "```json", call.arguments, "```", ""]
        return "\n".join(lines)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _stored(row: tuple[Any, ...], images: BlobStore | None) -> StoredMessage:
    mid, role, content, calls, call_id, name, envelope, created, node, parent, stats = row[:11]
    attached = read_json(envelope) if envelope and role == "user" else None
    message = ChatMessage(role=role, content=content, tool_call_id=call_id, name=name,
                          tool_calls=tuple(ToolCall(**c) for c in read_json(calls)),
                          images=message_attachments.images(attached, images),
                          attachments=message_attachments.refs(attached),
                          resources=message_attachments.resources(attached))
    return StoredMessage(mid, message, read_json(envelope) if envelope else None, created, node, parent,
                         AnswerStats.from_json(_safe_json(stats)) if stats else None)


def _redact_arguments(arguments: str) -> str:
    """Tool-call arguments (JSON text from the model) with secrets redacted by key and shape."""
    try:
        parsed = read_json(arguments)
    except (json.JSONDecodeError, TypeError):
        return redact_text(arguments)
    return json.dumps(redact(parsed), ensure_ascii=False)


def _safe_json(text: str) -> dict[str, Any]:
    try:
        value = read_json(text)
    except json.JSONDecodeError:
        return {"content": text}
    return value if isinstance(value, dict) else {"content": text}


def _stored_envelope(envelope: dict[str, Any]) -> str:
    """A message's envelope as stored (``append``, ``replace_envelope``): secrets redacted,
    lone surrogates made storable, as JSON text."""
    return json.dumps(storable(redact(envelope)), ensure_ascii=False)


def transcript_within(envelope: Mapping[str, Any], inner: Sequence[str]) -> list[Any] | None:
    """The sub-agent transcript of a saved ``delegate`` envelope, or, along ``inner`` (the ids of
    ``delegate`` calls its sub-agents made, outermost first), the nested transcript of the
    sub-agent the last one started (``agent.delegate`` keeps it with that call's result);
    ``None`` when it is not there."""
    transcript = envelope.get("transcript")
    for call_id in inner:
        if not isinstance(transcript, list):
            return None
        transcript = next((entry["transcript"] for entry in transcript if isinstance(entry, dict)
                           and entry.get("result") == call_id and isinstance(entry.get("transcript"), list)), None)
    return transcript if isinstance(transcript, list) else None
