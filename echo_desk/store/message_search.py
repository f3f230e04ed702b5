"""Search across the text of every conversation: an SQLite FTS5 index with the trigram tokenizer.

The trigram tokenizer indexes every run of three characters, so text without spaces between
words (Chinese, Japanese) is found by any part of it, not only by whole words. A search term
shorter than three characters (``天气``, ``ok``) has no trigram: it is matched by a scan of the
same text instead. Where this SQLite has no FTS5 or no trigram tokenizer, the index is not built
and every search scans the text (slower, same results for ASCII case).

The searchable text of each message lives in its own table (the FTS table's external content),
kept up to date with ``messages`` by triggers; the migration step ``add_search_index`` creates
both and fills them from the messages already stored.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

SEARCH_TABLE = "message_search"
#: The searchable text of each message (the FTS table's external content, and what a scan reads).
TEXT_TABLE = "message_search_text"
#: Roles whose text is searched: what the person and the agent wrote, and what tools returned.
SEARCHED_ROLES = ("user", "assistant", "tool")
#: A term needs this many characters to be looked up in the trigram index.
TRIGRAM = 3
_SNIPPET_BEFORE = 30
_SNIPPET_LENGTH = 120


def _body(row: str) -> str:
    """SQL for the searchable text of a ``messages`` row (``row`` is ``new``, ``old`` or a table
    alias): a tool message is stored as its JSON envelope; its content and error are what is read."""
    return (f"CASE WHEN {row}.role = 'tool' AND json_valid({row}.content) THEN "
            f"coalesce(json_extract({row}.content, '$.content'), '') || ' ' || "
            f"coalesce(json_extract({row}.content, '$.error'), '') ELSE {row}.content END")


_ROLES_SQL = ", ".join(f"'{role}'" for role in SEARCHED_ROLES)


def trigram_available(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite can build the index (FTS5 with the trigram tokenizer, SQLite ≥ 3.34)."""
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.echo_desk_trigram_probe USING fts5(x, tokenize='trigram')")
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.echo_desk_trigram_probe")
    return True


def add_search_index(conn: sqlite3.Connection) -> None:
    """Migration step: the searchable text table, the FTS index over it, the triggers that keep
    both in step with ``messages``, and the messages stored so far.

    Idempotent, so it can run in any place of the migration list. Without trigram support only
    the text table is kept, and searches scan it."""
    indexed = trigram_available(conn)
    conn.execute(f"CREATE TABLE IF NOT EXISTS {TEXT_TABLE} (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    if indexed:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {SEARCH_TABLE} USING fts5(body, content='{TEXT_TABLE}', "
                     "content_rowid='id', tokenize='trigram case_sensitive 0')")
    # An external-content FTS table is told what leaves it, with the old text.
    unindex = (f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, body) SELECT 'delete', id, body "
               f"FROM {TEXT_TABLE} WHERE id = old.id;" if indexed else "")
    index = (f"INSERT INTO {SEARCH_TABLE}(rowid, body) SELECT id, body FROM {TEXT_TABLE} WHERE id = new.id;"
             if indexed else "")
    conn.execute(f"""
        CREATE TRIGGER IF NOT EXISTS message_search_insert AFTER INSERT ON messages
        WHEN new.role IN ({_ROLES_SQL}) BEGIN
            INSERT INTO {TEXT_TABLE}(id, body) VALUES (new.id, {_body('new')});
            {index}
        END""")
    conn.execute(f"""
        CREATE TRIGGER IF NOT EXISTS message_search_delete AFTER DELETE ON messages BEGIN
            {unindex}
            DELETE FROM {TEXT_TABLE} WHERE id = old.id;
        END""")
    conn.execute(f"""
        CREATE TRIGGER IF NOT EXISTS message_search_update AFTER UPDATE OF content, role ON messages BEGIN
            {unindex}
            DELETE FROM {TEXT_TABLE} WHERE id = old.id;
            INSERT INTO {TEXT_TABLE}(id, body) SELECT new.id, {_body('new')} WHERE new.role IN ({_ROLES_SQL});
            {index}
        END""")
    added = conn.execute(f"INSERT INTO {TEXT_TABLE}(id, body) SELECT m.id, {_body('m')} FROM messages m "
                         f"WHERE m.role IN ({_ROLES_SQL}) AND m.id NOT IN (SELECT id FROM {TEXT_TABLE})").rowcount
    if indexed and added:
        conn.execute(f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}) VALUES ('rebuild')")


def has_index(conn: sqlite3.Connection) -> bool:
    row = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (SEARCH_TABLE,)).fetchone()
    return row is not None


@dataclass(frozen=True)
class Snippet:
    """A one-line excerpt around the first match: ``parts`` are ``(text, is_match)`` in order."""

    parts: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        return "".join(text for text, _match in self.parts)

    @property
    def matches(self) -> tuple[str, ...]:
        return tuple(text for text, match in self.parts if match)


@dataclass(frozen=True)
class SearchHit:
    """One message that matches (``message_id`` 0: the conversation's title matches)."""

    conversation_id: str
    title: str
    message_id: int
    role: str
    snippet: Snippet
    created: float


def search_terms(query: str) -> list[str]:
    """The words of a query (split on any space, full-width ones too), each matched as typed."""
    seen: list[str] = []
    for term in query.split():
        if term.lower() not in (s.lower() for s in seen):
            seen.append(term)
    return seen


def make_snippet(text: str, terms: list[str]) -> Snippet:
    """The excerpt of ``text`` around its first match of any term, matches marked (case-insensitive)."""
    flat = " ".join(text.split())
    if not terms:
        return Snippet(((flat[:_SNIPPET_LENGTH], False),))
    pattern = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    first = pattern.search(flat)
    start = max(0, first.start() - _SNIPPET_BEFORE) if first else 0
    space = flat.find(" ", start, first.start()) if first and start > 0 else -1
    if space >= 0:  # begin at a word, not inside one (text without spaces is cut where it falls)
        start = space + 1
    end = min(len(flat), start + _SNIPPET_LENGTH)
    parts: list[tuple[str, bool]] = [("…", False)] if start > 0 else []
    at = start
    for found in pattern.finditer(flat, start, end):
        if found.start() > at:
            parts.append((flat[at:found.start()], False))
        parts.append((found.group(), True))
        at = found.end()
    if at < end:
        parts.append((flat[at:end], False))
    if end < len(flat):
        parts.append(("…", False))
    return Snippet(tuple(parts))


def _escape_like(term: str) -> str:
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def search(conn: sqlite3.Connection, query: str, limit: int = 100) -> list[SearchHit]:
    """Conversations whose title, and messages whose text, contain every word of ``query``
    (case-insensitive); titles first, then messages newest first. At most ``limit`` messages."""
    terms = search_terms(query)
    if not terms:
        return []
    title_sql = " AND ".join("title LIKE ? ESCAPE '\\'" for _ in terms)
    title_rows = conn.execute(f"SELECT id, title, created FROM conversations WHERE {title_sql} "
                              "ORDER BY updated DESC", [f"%{_escape_like(t)}%" for t in terms]).fetchall()
    hits = [SearchHit(cid, title, 0, "title", make_snippet(title, terms), created)
            for cid, title, created in title_rows]
    long_terms = [t for t in terms if len(t) >= TRIGRAM] if has_index(conn) else []
    # Words long enough for the trigram index are looked up in it; shorter ones (and every word
    # when there is no index) are matched by a scan of the text (LIKE: case-insensitive for ASCII).
    scanned = [t for t in terms if t not in long_terms]
    params: list[object] = [f"%{_escape_like(t)}%" for t in scanned]
    if long_terms:
        # Newest first straight from the index, so the scan stops at ``limit``; "+body" keeps the
        # short words' LIKE out of the FTS table (its own LIKE misses two-character CJK words).
        params.insert(0, " AND ".join('"' + t.replace('"', '""') + '"' for t in long_terms))
        inner = (f"SELECT rowid AS id, body FROM {SEARCH_TABLE} WHERE {SEARCH_TABLE} MATCH ?"
                 + " AND +body LIKE ? ESCAPE '\\'" * len(scanned) + " ORDER BY rowid DESC")
    else:
        inner = (f"SELECT id, body FROM {TEXT_TABLE} WHERE 1" + " AND body LIKE ? ESCAPE '\\'" * len(scanned)
                 + " ORDER BY id DESC")
    rows = conn.execute(
        f"SELECT s.id, s.body, m.role, m.created, c.id, c.title FROM ({inner} LIMIT ?) s "
        "JOIN messages m ON m.id = s.id JOIN conversations c ON c.id = m.conversation_id ORDER BY s.id DESC",
        [*params, limit]).fetchall()
    hits += [SearchHit(cid, title, int(mid), role, make_snippet(body, terms), created)
             for mid, body, role, created, cid, title in rows]
    return hits
