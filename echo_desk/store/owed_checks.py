"""Checks of sandboxed commands and MCP servers that Echo Desk owes: written before each command
or server starts, removed once its check was made, so that one a kill or a quit cut short is made
at the next start.

A check is owed from just before a sandboxed command starts until what it left has been compared
with the snapshot taken before it (``sandbox.owed``); a sandboxed MCP server working in a folder
the person chose owes one from its start until the check after its end (``server``: its name).
Echo Desk killed meanwhile (SIGKILL, a power cut), or quitting while a late check still waits for
its sandbox, leaves the row ``owed``: the next start (the app, the CLI, the gateway's own engine)
claims the row (``claim``: they may start at once), makes the check
from the kept snapshot, keeps what it found here (``checked``)
and tells the person; once told, the row goes (the audit log keeps what was found). The row names the process that owed it
(its id and start time), so that a start never makes the check of a command still running in
another Echo Desk process (the CLI).

SQLite, private, in the data folder; each row is written with ``synchronous=FULL``, so that a
power cut right after the command started does not lose it, and a removed row's pages are
overwritten (``secure_delete``: its snapshot holds copies of workspace files). Plain values: the found entries are
``tools.planted.Planted.to_json()``'s.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from echo_desk.common.storable import storable
from echo_desk.store.planted_rows import planted_entries, planted_text
from echo_desk.store.private import one_use_private

log = logging.getLogger(__name__)

OWED_CHECKS_FILE = "owed_checks.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS owed_checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    owner TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    workspace TEXT NOT NULL,
    snapshot BLOB,
    state TEXT NOT NULL DEFAULT 'owed',
    checked_at REAL,
    planted TEXT NOT NULL DEFAULT '[]',
    error TEXT NOT NULL DEFAULT '',
    server TEXT NOT NULL DEFAULT '',
    client TEXT NOT NULL DEFAULT '',
    held_by TEXT NOT NULL DEFAULT ''
);
"""
#: Columns added since the first rows were kept, each '' in an older row: ``server`` (a command's
#: row has none), ``client`` (a row kept before the gateway's engine named its app), ``held_by``
#: (a row kept before it said which ``delegate`` calls hold the call: see ``OwedCheck.held_by``).
_ADDED_COLUMNS = ("server", "client", "held_by")


@dataclass(frozen=True)
class OwedCheck:
    """One command's check still owed: which call, in which workspace, and its snapshot."""

    id: int
    at: float
    conversation_id: str
    call_id: str
    tool: str
    #: The workspace (or the first of several) the command ran in.
    workspace: str
    snapshot: bytes
    #: The gone process that owed it (or that was making it), for ``claim``.
    owner: str = ""
    #: The sandboxed MCP server's name when the check is a server's ('' : a command's); then
    #: ``workspace`` is the folder it worked in, and ``conversation_id``/``call_id`` are ''.
    server: str = ""
    #: The connected app whose gateway engine started the server ('' : the app's or the CLI's,
    #: which serve every caller), named by the check's record as a server_left row names it.
    client: str = ""
    #: The ``delegate`` calls, outermost first, whose saved sub-agent transcripts hold the call's
    #: step (``ToolExecutionContext.held_by``: () for a conversation's own call); ``None`` for a
    #: row kept before this was kept, whose call is looked for (``agent.owed_checks``).
    held_by: tuple[str, ...] | None = None


@dataclass(frozen=True)
class CheckedAfterRestart:
    """An owed check made at a start: when the command started, which call, what was found."""

    id: int
    at: float
    checked_at: float
    conversation_id: str
    call_id: str
    tool: str
    workspace: str
    planted: tuple[Mapping[str, Any], ...]
    #: Why no check could be made ('' when it was made).
    error: str
    #: The sandboxed MCP server's name when the check was a server's ('' : a command's).
    server: str = ""


def this_process() -> str:
    """This process as a row's owner: its id and start time (an id alone is reused)."""
    return f"{os.getpid()}:{_start_time(os.getpid())}"


def _start_time(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return ""
    fields = data[data.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else ""


def _still_running(owner: str) -> bool:
    """The process that owes the check still runs (this one included: its commands are under way)."""
    pid_text, _, started = owner.partition(":")
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    return bool(started) and _start_time(pid) == started


class OwedChecksStore:
    """Opened for each use (a row per sandboxed command, read once at a start)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: The columns added since are there (added to a file kept before them, once per store).
        self._current = False

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        # A snapshot holds copies of workspace files (a ``.git/config`` may name a token): the
        # pages of a removed row are overwritten, not left in the file.
        with one_use_private(self.path, _SCHEMA, "PRAGMA synchronous=FULL", "PRAGMA secure_delete=ON") as conn:
            if not self._current:
                _add_columns(conn)
                self._current = True
            yield conn

    def owe(self, *, conversation_id: str, call_id: str, tool: str, workspace: str, snapshot: bytes,
            server: str = "", client: str = "", held_by: Sequence[str] | None = None) -> int:
        """Keep one command's check (``server``: a sandboxed MCP server's, started by ``client``'s
        engine; ``held_by``: the ``delegate`` calls holding a sub-agent's call, as
        ``OwedCheck.held_by``) as owed, before it starts; its row's id."""
        held = "" if held_by is None else json.dumps([storable(call) for call in held_by])
        with self._connection() as conn:
            cursor = conn.execute(
                "INSERT INTO owed_checks (at, owner, conversation_id, call_id, tool, workspace, snapshot, server,"
                " client, held_by) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (time.time(), this_process(), storable(conversation_id), storable(call_id), storable(tool),
                 storable(workspace), snapshot, storable(server), storable(client), held))
        return int(cursor.lastrowid or 0)

    def settle(self, check_id: int) -> None:
        """The check was made while the command's process still ran: nothing is owed."""
        with self._connection() as conn:
            conn.execute("DELETE FROM owed_checks WHERE id = ? AND state = 'owed'", (check_id,))

    def owed(self) -> list[OwedCheck]:
        """The checks owed by processes that no longer run, oldest first (none, without opening a
        database that is not there); one a gone process had begun to make is owed again."""
        if not self.path.exists():
            return []
        with self._connection() as conn:
            rows = conn.execute("SELECT id, at, owner, conversation_id, call_id, tool, workspace, snapshot, server,"
                                " client, held_by FROM owed_checks WHERE state IN ('owed', 'checking')"
                                " ORDER BY id").fetchall()
        return [OwedCheck(id, at, conversation, call, tool, workspace, bytes(snapshot or b""), owner, server, client,
                          _held_by(held))
                for id, at, owner, conversation, call, tool, workspace, snapshot, server, client, held in rows
                if not _still_running(owner)]

    def being_made_elsewhere(self) -> int:
        """How many checks another process still running (a CLI or a gateway started with this one)
        has claimed and not yet made: a snapshot taken meanwhile could hold what they put aside.
        One whose process is gone is not counted: ``owed`` lists it again, to be taken over."""
        if not self.path.exists():
            return 0
        here = this_process()
        with self._connection() as conn:
            owners = [owner for (owner,) in conn.execute("SELECT owner FROM owed_checks WHERE state = 'checking'")]
        return sum(1 for owner in owners if owner != here and _still_running(owner))

    def claim(self, check: OwedCheck) -> bool:
        """This process makes ``check`` (``owed``'s): ``False`` when another one claimed it first.
        The app and the CLI may start at once: each check is made once, not twice (the second
        would find nothing where the first had put aside what it found, and say so)."""
        with self._connection() as conn:
            cursor = conn.execute("UPDATE owed_checks SET state = 'checking', owner = ? WHERE id = ? AND owner = ?"
                                  " AND state IN ('owed', 'checking')", (this_process(), check.id, check.owner))
        return cursor.rowcount == 1

    def checked(self, check_id: int, planted: Sequence[Mapping[str, Any]], error: str = "") -> None:
        """The owed check was made (``error``: it could not be): kept until told; its snapshot goes."""
        text = planted_text(planted)
        with self._connection() as conn:
            conn.execute("UPDATE owed_checks SET state = 'checked', checked_at = ?, planted = ?, error = ?,"
                         " snapshot = NULL WHERE id = ?", (time.time(), text, storable(error), check_id))

    def untold(self) -> list[CheckedAfterRestart]:
        """The checks made after a restart that the person has not been shown yet, oldest first."""
        if not self.path.exists():
            return []
        try:
            with self._connection() as conn:
                rows = conn.execute("SELECT id, at, checked_at, conversation_id, call_id, tool, workspace, planted,"
                                    " error, server FROM owed_checks WHERE state = 'checked' ORDER BY id").fetchall()
        except sqlite3.Error:
            log.exception("the checks made after a restart could not be read")
            return []
        return [CheckedAfterRestart(id, at, checked_at or at, conversation, call, tool, workspace, planted_entries(planted),
                                    error, server)
                for id, at, checked_at, conversation, call, tool, workspace, planted, error, server in rows]

    def mark_told(self, ids: Iterable[int]) -> None:
        """The person has been shown these (the audit log keeps them): their rows go."""
        wanted = [(i,) for i in ids]
        if wanted:
            with self._connection() as conn:
                conn.executemany("DELETE FROM owed_checks WHERE id = ? AND state = 'checked'", wanted)

def _held_by(text: str) -> tuple[str, ...] | None:
    """A row's ``held_by`` read back: ``None`` when it does not say (an older row, or a value that
    does not read as the list ``owe`` wrote: its call is then looked for, as an older row's)."""
    if not text:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, list) or not all(isinstance(call, str) for call in value):
        return None
    return tuple(value)


def _add_columns(conn: sqlite3.Connection) -> None:
    """A file kept before a column was added gets it (another process may add it first)."""
    present = {row[1] for row in conn.execute("PRAGMA table_info(owed_checks)")}
    for column in _ADDED_COLUMNS:
        if column in present:
            continue
        try:
            conn.execute(f"ALTER TABLE owed_checks ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
        except sqlite3.OperationalError as exc:
            if "duplicate column" not in str(exc):
                raise
