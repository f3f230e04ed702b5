"""The audit log: every tool call, appended to SQLite (WAL) in the data folder, and the one event
that is no call (``Event``): a connected app's session handed back to it when the app quit.

Each record is put together and redacted on the caller's thread, appended as one line to the
audit journal (``audit_journal.py``: a private file beside the database, one ``os.write``), and
queued to one writer thread that folds the records into SQLite in batches. A record whose
redaction would hold the caller up (long texts: ``append_deferred``) is put together on the writer
thread instead, and not journaled. ``query`` flushes first, so readers see every call made.

A call's answer (to a gateway's client, or to the person and the model in Echo Desk's own chat:
``Dispatcher.recorded``) goes only once its record is safe from a crash of this process (killed
the moment the answer left, the app still has it: s179 lost 5 of 5 before answers waited). In
the journal it is (``safe``); a record the journal could not take (a full disk, or another
process owns the journal) is waited for as before: ``written`` cuts the writer's batch window
short and calls back once it was tried. The next start folds what the journal holds and the
database does not, each record once.

A call's record is begun while its tool runs (``RowStart``, ``append_started``), and a journaled
one may be handed to the writer after the call's answer went (``later``, ``queue_later``): what
keeps it from then on is its journal line, exactly as for any record the writer had not folded.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echo_desk.common.json_encoder import encoder
from echo_desk.common.json_text import read_json
from echo_desk.common.storable import storable
from echo_desk.store import held_back
from echo_desk.store.audit_journal import Journal, journal_path, row_text
from echo_desk.store.not_saved import storage_failure_text
from echo_desk.store.private import connect_private
from echo_desk.store.redact import redact, redact_for_storing, redact_text
from echo_desk.tools.planted import Planted, more_entry
from echo_desk.tools.planted_told import most_telling_first

log = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    conversation_id TEXT NOT NULL,
    scope_chain TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    source TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    provenance TEXT NOT NULL,
    ok INTEGER NOT NULL,
    error_kind TEXT,
    error TEXT,
    duration_ms REAL NOT NULL,
    file_changes TEXT NOT NULL,
    rule_source TEXT NOT NULL DEFAULT '',
    grant_id TEXT NOT NULL DEFAULT '',
    client TEXT NOT NULL DEFAULT '',
    event TEXT NOT NULL DEFAULT 'call',
    planted TEXT NOT NULL DEFAULT '[]',
    folders_checked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS audit_conversation ON audit(conversation_id);
CREATE INDEX IF NOT EXISTS audit_tool ON audit(tool);
-- The last journal record folded into ``audit`` (``audit_journal.py``), in the same commit.
CREATE TABLE IF NOT EXISTS audit_journal (id INTEGER PRIMARY KEY CHECK (id = 1), folded INTEGER NOT NULL);
"""
#: Columns of a stored row (a journal line with fewer or more is not one), and of one a journal
#: written before ``folders_checked`` holds (every folder checked), before ``planted`` (nothing
#: planted), or before ``event`` (a call's: it is replayed as one).
_COLUMNS = 20
_COLUMNS_BEFORE_FOLDERS_CHECKED = 19
_COLUMNS_BEFORE_PLANTED = 18
_COLUMNS_BEFORE_EVENTS = 17


class Event(enum.StrEnum):
    """What a row of the audit records (its ``event`` column)."""

    CALL = "call"  # a tool call, with its verdict (every row written before events were)
    #: The app quit and handed a connected app's session back to that app's own ``echo-desk
    #: gateway``, which goes on serving it without the app's windows (``gateway/handed.py``).
    SESSION_HANDED_BACK = "session_handed_back"
    #: The app quit and could not hand such a session back (why: ``error_kind``, a
    #: ``gateway.hand_back_failure.HandBackFailure`` value; ``error`` in English): it closed it.
    SESSION_NOT_HANDED_BACK = "session_not_handed_back"
    #: A connected app's list of its tools was answered while some of its MCP servers were still
    #: starting, without their tools (which: ``arguments["servers"]``); it is told to list them
    #: again once they have started (``gateway/fallback.py``).
    TOOLS_LISTED_WITHOUT = "tools_listed_without"
    #: A sandboxed MCP server (``tool``: its name) left in its folder, outside any call that said
    #: it (at its start, between calls, at its end), what would run code later: what the check at
    #: its end put aside as it stopped while Echo Desk ran, or as Echo Desk quit (``planted``, full
    #: paths; ``arguments["folder"]``). Each entry is in one row: a later call's row leaves it out.
    SERVER_LEFT = "server_left"
    #: A sandboxed command's check that Echo Desk owed when it was killed or quit (before the
    #: command ended, or before a late check did), made at its next start (``store.owed_checks``):
    #: ``call_id``/``tool`` the call's, ``planted`` what was put aside or back, ``arguments``: the
    #: ``workspace`` and when the command ``started``; ``ok`` false (``error``) when the check
    #: could not be made. A sandboxed MCP server's (s328): ``tool`` its name, no call, and
    #: ``arguments["server"]`` its name (``workspace``: the folder it worked in).
    CHECKED_AFTER_RESTART = "checked_after_restart"


@dataclass(frozen=True, kw_only=True)
class AuditRecord:
    at: float
    conversation_id: str
    scope_chain: tuple[str, ...]
    call_id: str
    tool: str
    source: str
    #: Redacted in its row (``row``, ``start``): by key (secret names and ``hidden``) and by shape.
    arguments: dict[str, Any]
    decision: str  # auto | allowed | denied | not_asked | withdrawn (pipeline.call.Decision values)
    provenance: str  # which rule decided, e.g. "risk default: read", "settings: always allow"
    ok: bool
    error_kind: str | None
    error: str
    duration_ms: float
    file_changes: Sequence[dict[str, Any]] = field(default_factory=tuple)
    #: The deciding permission rule's file and line ("<path> line 4"), or the deciding grant's id.
    rule_source: str = ""
    grant_id: str = ""
    #: The MCP client that made the call through the gateway (its key); '' for Echo Desk's own.
    client: str = ""
    event: Event = Event.CALL
    #: The tool's hidden parameters: masked in the row as secret-named ones are.
    hidden: tuple[str, ...] = ()
    #: What the call tried to plant that would run code later, put aside or back by the sandbox,
    #: and the workspace its paths are relative to ('' : they stay relative).
    planted: Sequence[Planted] = ()
    planted_in: str = ""
    #: The sandbox's search for planted files stopped at its bound: only the first this many
    #: folders of the workspace were checked (0: every folder was, or no sandbox ran).
    folders_checked: int = 0

    def row(self) -> tuple[Any, ...]:
        """The stored row; every text column is redacted by secret shape (before it reaches the
        journal) and storable: arguments a model or a client sent may hold lone surrogates (a JSON
        ``"\\udcff"``), which SQLite refuses — once, that ended the writer thread."""
        return self.start().row(self.at, self.ok, self.error_kind, self.error, self.duration_ms, self.file_changes,
                                self.planted, self.planted_in, self.folders_checked)

    def start(self) -> RowStart:
        """The columns of its row known before its call ran (``RowStart``)."""
        return RowStart.of(conversation_id=self.conversation_id, scope_chain=self.scope_chain, call_id=self.call_id,
                           tool=self.tool, source=self.source, arguments=self.arguments, decision=self.decision,
                           provenance=self.provenance, rule_source=self.rule_source, grant_id=self.grant_id,
                           client=self.client, event=self.event, hidden=self.hidden)


@dataclass(frozen=True, slots=True)
class RowStart:
    """The columns of a call's row known before its tool runs (who, what, with which arguments, why
    allowed), in stored form. A call's record is begun with them while its tool runs
    (``agent/pipeline/audit_record.py``: a server takes longer to answer than this takes), so that
    when the call ends only the columns its end decides are left to put together before its answer
    may go (``AuditLog.append_started``)."""

    #: ``conversation_id`` … ``provenance`` (columns 1-8), and ``rule_source`` … ``event`` (14-17).
    head: tuple[Any, ...]
    tail: tuple[Any, ...]

    @classmethod
    def of(cls, *, conversation_id: str, scope_chain: Sequence[str], call_id: str, tool: str, source: str,
           arguments: Any, decision: str, provenance: str, rule_source: str = "", grant_id: str = "",
           client: str = "", event: Event = Event.CALL, hidden: Sequence[str] = ()) -> RowStart:
        """``arguments`` as the call had them: redacted here by key (secret names and ``hidden``)
        and by shape, made storable, in one walk."""
        head = (conversation_id, _chain_text(tuple(scope_chain)), call_id, tool, source,
                _encode_text(redact_for_storing(arguments, hidden)), decision, redact_text(provenance))
        tail = (rule_source, grant_id, client, event.value)
        try:  # one look at every text at once: nearly always valid UTF-8
            "".join((*head, *tail)).encode("utf-8")
        except (UnicodeEncodeError, TypeError):
            return cls(storable(head), storable(tail))
        return cls(head, tail)

    def row(self, at: float, ok: bool, error_kind: str | None, error: str, duration_ms: float,
            file_changes: Sequence[dict[str, Any]], planted: Sequence[Planted] = (),
            planted_in: str = "", folders_checked: int = 0) -> tuple[Any, ...]:
        """The whole stored row, once the call ended."""
        return (at, *self.head, *_storable_ending(ok, error_kind, error, duration_ms, file_changes), *self.tail,
                _planted_column(planted, planted_in), folders_checked)


def _storable_ending(ok: bool, error_kind: str | None, error: str, duration_ms: float,
                     file_changes: Sequence[dict[str, Any]]) -> tuple[Any, ...]:
    """Columns 9-13 of a row: what the call's end decided, made storable (its texts looked at once)."""
    error_text = redact_text(error)
    changes = _encode_plain(redact(list(file_changes))) if file_changes else "[]"
    ending = (int(ok), error_kind, error_text, duration_ms, changes)
    try:
        (error_text + changes + (error_kind or "")).encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        made: tuple[Any, ...] = storable(ending)
        return made
    return ending


@functools.lru_cache(maxsize=64)
def _chain_text(chain: tuple[str, ...]) -> str:
    """The ``scope_chain`` column: the same few chains come again on every call of a scope."""
    text: str = _encode_plain(list(chain))
    return text


#: Planted entries one row keeps, and the characters their paths (full and kept) may take: a
#: command that plants 50,000 files must not make a row (and its journal line) of megabytes. Past
#: either, the most telling are kept (``tools.planted_told.most_telling_first``) and the rest are
#: counted in a last entry (``tools.planted.more_entry``), which readers of the entries skip.
MOST_AUDITED = 500
AUDITED_CHARS = 200_000


def _planted_column(planted: Sequence[Planted], planted_in: str) -> str:
    """The last column of a row: each planted entry as ``Planted.to_json`` with its full path
    (in the workspace it names, else in ``planted_in``), redacted by shape as the file changes are;
    bounded (``MOST_AUDITED``), with how many were left out and the total."""
    if not planted:
        return "[]"
    kept = _audited(planted, planted_in)
    entries: list[dict[str, object]] = [{**p.to_json(), "path": p.full(planted_in)} for p in kept]
    if len(kept) < len(planted):
        entries.append(more_entry(len(planted) - len(kept), len(planted)))
    column: str = storable(_encode_plain(redact(entries)))
    return column


def _audited(planted: Sequence[Planted], planted_in: str) -> Sequence[Planted]:
    """The entries a row keeps: all of them, in the guard's order, when they fit; else the most
    telling that fit (one at least, whatever its length)."""
    def size(p: Planted) -> int:
        return len(p.full(planted_in)) + len(p.kept)

    if len(planted) <= MOST_AUDITED and sum(size(p) for p in planted) <= AUDITED_CHARS:
        return planted
    kept: list[Planted] = []
    chars = 0
    for p in most_telling_first(planted)[:MOST_AUDITED]:
        chars += size(p)
        if kept and chars > AUDITED_CHARS:
            break
        kept.append(p)
    return kept


#: A row as queued and held: (its sequence number, the stored row).
_Row = tuple[int, tuple[Any, ...]]

# Made once: ``json.dumps`` with options builds a new encoder on every call (~1.5 µs a column).
_encode_plain = encoder()
_encode_text = encoder(ensure_ascii=False, default=str)


@dataclass(frozen=True, slots=True)
class _Deferred:
    """A record put together on the writer thread (from values the caller already fixed)."""

    seq: int
    build: Callable[[], AuditRecord]

    def row(self) -> _Row | None:
        try:
            return self.seq, self.build().row()
        except Exception:  # a bug in building one record must not stop the writer
            log.exception("an audit record could not be put together")
            return None


@dataclass(frozen=True, slots=True)
class _Written:
    """Called by the writer once everything queued before it has been tried (``written``)."""

    done: Callable[[], object]

    def tell(self) -> None:
        try:
            self.done()
        except Exception:  # a waiter gone (its loop closed) must not stop the writer
            log.debug("an audit waiter could not be told", exc_info=True)


def _as_stored_now(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A journaled row as stored now: one journaled before events were is a call's, one journaled
    before planted entries were recorded planted nothing, and one before ``folders_checked`` was
    had every folder checked."""
    if len(row) == _COLUMNS_BEFORE_EVENTS:
        row = (*row, Event.CALL.value)
    if len(row) == _COLUMNS_BEFORE_PLANTED:
        row = (*row, "[]")
    return row if len(row) == _COLUMNS else (*row, 0)


@dataclass(frozen=True, slots=True)
class _PlantedLater:
    """What a call's sandbox left, found after its row was appended (``planted_later``): the
    writer puts it in the ``planted`` column of that row, the newest row of that call."""

    conversation_id: str
    call_id: str
    tool: str
    column: str


_PLANTED_LATER = (
    "UPDATE audit SET planted = ? WHERE id = (SELECT max(id) FROM audit"
    " WHERE conversation_id = ? AND call_id = ? AND tool = ? AND event = 'call')"
)


_STOP = object()
#: The writer gathers records for this long before one commit: fewer wake-ups of the
#: writer thread, so recording a call costs the dispatcher only a journal line and a queue put.
_BATCH_WINDOW_SECONDS = 0.02
#: Records the disk refused (full, read-only) are kept in memory and written with the next batch
#: that fits; beyond this many the oldest are given up (and counted in the log).
MOST_HELD_BACK = held_back.MOST_HELD_BACK
_INSERT = (
    "INSERT INTO audit (at, conversation_id, scope_chain, call_id, tool, source,"
    " arguments, decision, provenance, ok, error_kind, error, duration_ms,"
    " file_changes, rule_source, grant_id, client, event, planted, folders_checked)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)


def session_handed_back(client: str, at: float) -> AuditRecord:
    """The record that the app, quitting, handed ``client``'s session back to its own gateway: no
    call, so no tool, verdict or arguments. (The calls it serves from then on are recorded by that
    gateway's engine, in this same log.)"""
    return AuditRecord(at=at, conversation_id="", scope_chain=(), call_id="", tool="", source="gateway",
                       arguments={}, decision="", provenance="", ok=True, error_kind=None, error="",
                       duration_ms=0.0, client=client, event=Event.SESSION_HANDED_BACK)


def session_not_handed_back(client: str, at: float, why: str, said: str) -> AuditRecord:
    """The record that the app, quitting, could not hand ``client``'s session back to its gateway
    and closed it: ``why`` is the reason's code, ``said`` its English words."""
    return AuditRecord(at=at, conversation_id="", scope_chain=(), call_id="", tool="", source="gateway",
                       arguments={}, decision="", provenance="", ok=False, error_kind=why, error=said,
                       duration_ms=0.0, client=client, event=Event.SESSION_NOT_HANDED_BACK)


def tools_listed_without(client: str, at: float, servers: list[str]) -> AuditRecord:
    """The record that ``client`` was given its tools without those of ``servers`` (their first
    start was still under way when the list could wait no longer)."""
    return AuditRecord(at=at, conversation_id="", scope_chain=(), call_id="", tool="", source="gateway",
                       arguments={"servers": list(servers)}, decision="", provenance="", ok=True, error_kind=None,
                       error="", duration_ms=0.0, client=client, event=Event.TOOLS_LISTED_WITHOUT)


def server_left(server: str, source: str, folder: str, planted: Sequence[Planted], at: float,
                client: str = "") -> AuditRecord:
    """The record that the sandboxed server ``server`` (``source``: its tools' source) had left in
    ``folder`` what was put aside when it stopped (in Settings, on its own, or as Echo Desk
    quit), which no call's record says. ``client``: the connected app whose gateway engine ran
    the server (``Runtime.client``); '' for the app's and the CLI's servers, which serve everyone."""
    return AuditRecord(at=at, conversation_id="", scope_chain=(), call_id="", tool=server, source=source,
                       arguments={"folder": folder}, decision="", provenance="", ok=True, error_kind=None, error="",
                       duration_ms=0.0, client=client, event=Event.SERVER_LEFT, planted=tuple(planted),
                       planted_in=folder)


def checked_after_restart(*, conversation_id: str, call_id: str, tool: str, workspace: str, started: float,
                          planted: Sequence[Planted], error: str, at: float, server: str = "",
                          source: str = "builtin", client: str = "") -> AuditRecord:
    """The record of a command's check made at a start (``at``), which the process that ran the
    command (from ``started``) owed; ``error``: why it could not be made (``sandbox.owed_failure.OwedFailure``).
    ``server``: the check was a sandboxed MCP server's (``source`` its tools' source; ``tool`` its
    name, no call), kept in ``arguments["server"]``; ``client``: the connected app whose gateway
    engine started it (as ``server_left`` names it)."""
    arguments: dict[str, Any] = {"workspace": workspace, "started": started}
    if server:
        arguments["server"] = server
    return AuditRecord(at=at, conversation_id=conversation_id, scope_chain=(), call_id=call_id, tool=tool,
                       source=source, arguments=arguments, decision="",
                       provenance="",
                       ok=not error, error_kind="check_failed" if error else None, error=error, duration_ms=0.0,
                       client=client, event=Event.CHECKED_AFTER_RESTART, planted=tuple(planted), planted_in=workspace)


class AuditLog:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()  # a C put: no lock, no notify in Python
        self._read_lock = threading.Lock()
        self._reader = self._connect(check_same_thread=False)
        self._writer_error: BaseException | None = None
        #: Rows the disk refused, written again with the next batch.
        self._held: list[_Row] = []
        #: Why the last write failed, in the person's words; "" once one succeeded.
        self._failing = ""
        self._failure_watchers: list[Callable[[str], None]] = []
        #: Set when someone waits for the batch being gathered (``written``): it is written at once.
        self._urgent = threading.Event()
        #: Numbers records in the order they are journaled and queued (the writer folds them in
        #: that order, so "folded up to n" in the database means every record up to n).
        self._append_lock = threading.Lock()
        #: The last record numbered; the last one the journal did not take; the last one the
        #: writer tried to write. Answers need not wait while ``_unjournaled <= _tried``.
        self._seq = self._unjournaled = self._tried = 0
        #: Journaled records not yet queued (``append_started(later=True)``, ``queue_later``).
        self._later: list[_Row] = []
        self._journal = None if self.path == ":memory:" else Journal.open(journal_path(self.path))
        if self._journal is not None:
            self._replay(self._journal)
        self._thread = threading.Thread(target=self._write_loop, name="echo-desk-audit", daemon=True)
        self._thread.start()

    def _connect(self, **kwargs: Any) -> sqlite3.Connection:
        conn = connect_private(self.path, timeout=10, **kwargs)  # 0600, in a 0700 folder
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.executescript(_SCHEMA)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(audit)")}
        for column in ("rule_source", "grant_id", "client"):  # logs written before rules / the gateway
            if column not in columns:
                conn.execute(f"ALTER TABLE audit ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
        if "event" not in columns:  # every row of a log written before events is a call's
            conn.execute("ALTER TABLE audit ADD COLUMN event TEXT NOT NULL DEFAULT 'call'")
        if "planted" not in columns:  # a log written before plants were recorded: none in its rows
            conn.execute("ALTER TABLE audit ADD COLUMN planted TEXT NOT NULL DEFAULT '[]'")
        if "folders_checked" not in columns:  # a log written before the bound was recorded: every folder
            conn.execute("ALTER TABLE audit ADD COLUMN folders_checked INTEGER NOT NULL DEFAULT 0")
        return conn

    def _replay(self, journal: Journal) -> None:
        """Fold what the journal holds beyond what the database says it folded (a crash came
        before the writer did), then empty it. A disk that refuses them keeps them held (and in
        the journal), as any record it refuses."""
        with self._read_lock:
            folded = self._reader.execute("SELECT folded FROM audit_journal WHERE id = 1").fetchone()
        self._seq = self._tried = folded[0] if folded else 0
        missing = [(seq, _as_stored_now(row)) for seq, row in journal.read()
                   if seq > self._tried and len(row) in (_COLUMNS, _COLUMNS_BEFORE_FOLDERS_CHECKED,
                                                         _COLUMNS_BEFORE_PLANTED, _COLUMNS_BEFORE_EVENTS)]
        if missing:
            log.warning("%d audit record(s) left in the journal by a crash are put in the log", len(missing))
            conn = self._connect()
            try:
                self._write(conn, missing)
            finally:
                conn.close()
            self._seq = self._tried = max(self._seq, *(seq for seq, _ in missing))
        if not self._held:
            journal.clear()

    @property
    def failing(self) -> str:
        """Why records cannot be written now (a full disk…), in the person's language; ``""``
        while they are. Records meanwhile are held in memory, not lost (up to ``MOST_HELD_BACK``)."""
        return self._failing

    def watch_failure(self, changed: Callable[[str], None]) -> Callable[[], None]:
        """Call ``changed`` (on the writer thread) when writing starts failing (the reason) or
        works again (``""``); returns the unsubscribe function."""
        self._failure_watchers.append(changed)
        return lambda: self._failure_watchers.remove(changed) if changed in self._failure_watchers else None

    def _set_failing(self, reason: str) -> None:
        if reason == self._failing:
            return
        self._failing = reason
        for watcher in list(self._failure_watchers):
            try:
                watcher(reason)
            except Exception:  # a watcher's bug must not stop the writer
                log.exception("an audit failure watcher failed")

    def append(self, record: AuditRecord) -> None:
        """Redact ``record`` here (the journal never holds what the database would not), journal
        it and queue it for the writer."""
        self.append_started(record.start(), at=record.at, ok=record.ok, error_kind=record.error_kind,
                            error=record.error, duration_ms=record.duration_ms, file_changes=record.file_changes,
                            planted=record.planted, planted_in=record.planted_in,
                            folders_checked=record.folders_checked)

    def append_started(self, start: RowStart, *, at: float, ok: bool, error_kind: str | None, error: str,
                       duration_ms: float, file_changes: Sequence[dict[str, Any]] = (),
                       planted: Sequence[Planted] = (), planted_in: str = "", folders_checked: int = 0,
                       later: bool = False) -> None:
        """``append`` for a record whose first columns were put together before (``RowStart``):
        only its ending is redacted here, and the row encoded once for its journal line (before
        the lock is taken: another thread's record need not wait for it).
        ``later``: once journaled, the record is handed to the writer only by ``queue_later`` (or
        whatever is queued next), so that waking the writer (a thread switch, up to a millisecond
        on a busy machine) comes after the call's answer; the journal line is what keeps it."""
        row = start.row(at, ok, error_kind, error, duration_ms, file_changes, planted, planted_in, folders_checked)
        text = row_text(row) if self._journal is not None else ""
        with self._append_lock:
            self._seq += 1
            journaled = self._journal is not None and self._journal.write_text(self._seq, text)
            if not journaled:
                self._unjournaled = self._seq  # its answer waits for the database (``safe``)
            if later and journaled:
                self._later.append((self._seq, row))
            else:
                self._put((self._seq, row))

    def planted_later(self, *, conversation_id: str, call_id: str, tool: str, planted: Sequence[Planted],
                      planted_in: str = "") -> None:
        """Put what the call's sandbox left, checked once it ended (after the call's row was
        appended), in that row's ``planted`` column (redacted as any). Not journaled: a crash
        before the writer folds it loses only this (what was put aside stays where it was kept)."""
        change = _PlantedLater(conversation_id, call_id, tool, _planted_column(planted, planted_in))
        with self._append_lock:
            self._put(change)

    def queue_later(self) -> None:
        """Hand the writer the records appended ``later`` (in order, before anything else)."""
        if self._later:
            with self._append_lock:
                self._put(None)

    def _put(self, item: object) -> None:
        """Queue ``item`` for the writer (``None``: nothing) after the records waiting ``later``,
        so that it folds every record in the order numbered. Called with ``_append_lock`` held."""
        if self._later:
            for row in self._later:
                self._queue.put(row)
            self._later.clear()
        if item is not None:
            self._queue.put(item)

    def append_deferred(self, build: Callable[[], AuditRecord]) -> None:
        """Queue the record ``build`` returns, put together and redacted on the writer thread in
        the order queued (``build`` must only read values that no longer change): for a record
        whose redaction would hold up the caller (long texts cost ms; the chat's loop is the
        window's). It is not journaled: an answer waits for the database to have it (``safe``)."""
        with self._append_lock:
            self._seq += 1
            self._unjournaled = self._seq
            self._put(_Deferred(self._seq, build))

    def safe(self) -> bool:
        """Every record appended so far is safe from a crash of this process: in the journal, or
        tried by the writer (in the database, or held if the disk refused it: ``failing``)."""
        return self._unjournaled <= self._tried

    def written(self, done: Callable[[], object]) -> None:
        """Call ``done`` once every record appended so far is ``safe``: here, at once, when it
        already is (or the writer has stopped); else on the writer thread, which then does not
        wait out its batch window. (A callback, not a future: a gateway call may wait for this,
        and a future's locks and hops cost it more than the write.)"""
        if self.safe() or not self._thread.is_alive():
            _Written(done).tell()
            return
        with self._append_lock:
            self._put(_Written(done))
        self._urgent.set()  # after the put: the writer, woken, drains the marker with its batch

    def _write_loop(self) -> None:
        conn = self._connect()
        try:
            while True:
                item = self._queue.get()
                batch: list[Any] = [item]
                if type(item) is tuple or type(item) is _Deferred:
                    self._urgent.wait(_BATCH_WINDOW_SECONDS)  # cut short by ``written``
                self._urgent.clear()  # a marker put before this is drained below; one after, next time
                while True:  # drain what is already waiting: one commit per batch
                    try:
                        batch.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                numbered: list[_Row | _Deferred] = [r for r in batch if type(r) is tuple or type(r) is _Deferred]
                rows = self._held + self._rows(numbered)
                if rows:
                    try:
                        self._write(conn, rows)
                    except Exception:  # not the disk (held, in _write): a bug; the writer must go on
                        log.exception("%d audit records could not be written and were given up", len(rows))
                        self._held = []
                self._write_planted_later(conn, [r for r in batch if type(r) is _PlantedLater])
                if numbered:  # (a record that could not be put together counts as tried: it is given up)
                    last = numbered[-1].seq if isinstance(numbered[-1], _Deferred) else numbered[-1][0]
                    self._tried = last
                    self._clear_journal(last)
                for r in batch:
                    if isinstance(r, threading.Event):
                        r.set()
                    elif isinstance(r, _Written):
                        r.tell()
                if any(r is _STOP for r in batch):
                    return
        finally:
            conn.close()

    def _write_planted_later(self, conn: sqlite3.Connection, changes: list[_PlantedLater]) -> None:
        # After the batch's rows: the row a change is for was queued before it.
        if not changes:
            return
        try:
            for change in changes:
                updated = conn.execute(_PLANTED_LATER, (change.column, change.conversation_id, change.call_id,
                                                        change.tool)).rowcount
                if not updated:
                    log.warning("what the sandbox of %s (%s) left was found after its audit row, which is not "
                                "in the log (held back?): it is not in the row", change.tool, change.call_id)
            conn.commit()
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            log.error("what %d late-checked sandbox(es) left could not be put in their audit rows: %s",
                      len(changes), exc)

    @staticmethod
    def _rows(numbered: list[_Row | _Deferred]) -> list[_Row]:
        rows = []
        for item in numbered:
            row = item.row() if isinstance(item, _Deferred) else item
            if row is not None:
                rows.append(row)
        return rows

    def _clear_journal(self, last: int) -> None:
        """Empty the journal once everything numbered is in the database (checked with appends
        held off, so no line goes in between)."""
        if self._journal is None or self._held:
            return
        with self._append_lock:
            if self._seq == last:
                self._journal.clear()

    def _write(self, conn: sqlite3.Connection, rows: list[_Row]) -> None:
        try:
            conn.executemany(_INSERT, [row for _, row in rows])
            if self._journal is not None:  # only the journal's owner numbers what is folded
                conn.execute("INSERT INTO audit_journal (id, folded) VALUES (1, ?)"
                             " ON CONFLICT(id) DO UPDATE SET folded = max(folded, excluded.folded)",
                             (rows[-1][0],))
            conn.commit()
        except sqlite3.Error as exc:  # e.g. disk full: keep running, hold the rows, say so
            with contextlib.suppress(sqlite3.Error):
                conn.rollback()
            self._writer_error = exc
            self._held, given_up = held_back.hold(rows, MOST_HELD_BACK)
            if given_up:
                log.error("%d audit records were given up: the log could not be written for too long", given_up)
            if not self._failing:
                log.error("audit records cannot be written (%s): %d held until they can", exc, len(self._held))
            self._set_failing(storage_failure_text(exc))
            return
        self._held, self._writer_error = [], None  # what was held is written now: nothing is missing
        self._set_failing("")

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything appended so far is committed; ``OSError`` when the disk refused
        some (they are held, see ``failing``)."""
        self.wait_tried(timeout)
        if self._writer_error is not None:
            error, self._writer_error = self._writer_error, None
            raise OSError(f"audit records could not be written: {error}")

    def wait_tried(self, timeout: float = 10.0) -> None:
        """Wait until the writer has tried to write everything appended so far, and what the
        disk refused before again (``failing`` then says how that went)."""
        done = threading.Event()
        with self._append_lock:
            self._put(done)
        if not done.wait(timeout):
            raise TimeoutError("the audit log did not flush in time")

    @property
    def held(self) -> int:
        """How many records wait in memory for the disk (see ``failing``)."""
        return len(self._held)

    def query(
        self,
        *,
        tool: str | None = None,
        conversation_id: str | None = None,
        client: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, Any]]:
        """Newest first. Filters are exact matches. Records the disk refused are not among them
        until they are written (``held``, ``failing``)."""
        self.wait_tried(10.0)
        where, args = [], []
        if tool is not None:
            where.append("tool = ?")
            args.append(tool)
        if conversation_id is not None:
            where.append("conversation_id = ?")
            args.append(conversation_id)
        if client is not None:
            where.append("client = ?")
            args.append(client)
        sql = "SELECT * FROM audit" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(str(limit))
        with self._read_lock:
            cursor = self._reader.execute(sql, args)
            names = [d[0] for d in cursor.description]
            rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
        for row in rows:
            row["scope_chain"] = read_json(row["scope_chain"])
            row["arguments"] = read_json(row["arguments"])
            row["file_changes"] = read_json(row["file_changes"])
            row["planted"] = read_json(row["planted"])
            row["ok"] = bool(row["ok"])
        return rows

    def close(self) -> None:
        if self._thread.is_alive():
            with self._append_lock:
                self._put(_STOP)
            self._thread.join(timeout=10)
        while not self._thread.is_alive():  # whoever waits for a write after the stop is not kept waiting
            try:
                left = self._queue.get_nowait()
            except queue.Empty:
                break
            if isinstance(left, _Written):
                left.tell()
        if self._journal is not None:  # what the writer did not fold stays in it for the next start
            with self._append_lock:
                journal, self._journal = self._journal, None
            journal.close()
        with self._read_lock:
            self._reader.close()
