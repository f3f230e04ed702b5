"""SQLite files inside the workspace, through the standard library.

Read-only is SQLite's job: the file is opened with ``mode=ro`` (the library refuses every
write), ``PRAGMA query_only`` is on, and ATTACH is disabled (``SQLITE_LIMIT_ATTACHED`` = 0 and
the authorizer) because an attached file could lie outside the workspace — and ``VACUUM INTO``,
which attaches its target, would create a file even on a read-only connection.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

from echo_desk.builtins.database.formatting import Column, QueryResult, TableColumn, TableInfo
from echo_desk.builtins.database.values import json_safe
from echo_desk.i18n import N_, for_person
from echo_desk.tools import CancelledByUser, ErrorKind, ToolError

COUNT_REST_LIMIT = 100_000
#: SQLite calls the progress handler every this many virtual-machine instructions.
PROGRESS_STEPS = 2_000

_DEPENDENCY_CODES = {"SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_CORRUPT",
                     "SQLITE_NOTADB", "SQLITE_FULL", "SQLITE_PROTOCOL"}


def resolve_in_roots(raw: str, roots: tuple[Path, ...], anchor: Path | None, what: str) -> Path:
    """The real file (symlinks resolved) if it lies inside one of ``roots``; else a clear error."""
    if not roots:
        raise ToolError(for_person(f"no {what} folder is open, so no SQLite file may be opened",
                                   N_("No workspace folder is open, so no SQLite file may be opened.")),
                        kind=ErrorKind.BUSINESS)
    path = Path(raw).expanduser()
    if not path.is_absolute():
        path = (anchor or roots[0]) / path
    try:
        real = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError):
        raise ToolError(for_person(f"SQLite file not found: {path}", N_("SQLite file not found: {path}"),
                                   path=str(path)), kind=ErrorKind.BUSINESS) from None
    if not real.is_file():
        raise ToolError(for_person(f"not a file: {real}", N_("{path} is not a file."), path=str(real)),
                        kind=ErrorKind.BUSINESS)
    if not any(real.is_relative_to(root.resolve()) for root in roots):
        raise ToolError(for_person(
            f"{real} is outside the {what} folders ({', '.join(map(str, roots))}); "
            "only SQLite files inside them may be opened",
            N_("{path} is outside the folders this conversation may use ({folders}); only SQLite files inside "
               "them may be opened."), path=str(real), folders=tuple(map(str, roots))), kind=ErrorKind.BUSINESS)
    return real


#: Pragmas that only read, and take an argument (``pragma_table_info('notes')``).
_READING_PRAGMAS = {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo",
                    "foreign_key_list"}


def _authorizer(action: int, arg1: str | None, arg2: str | None, db: str | None, source: str | None) -> int:
    if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_PRAGMA and arg2 is not None and (arg1 or "").lower() not in _READING_PRAGMAS:
        return sqlite3.SQLITE_DENY  # setting a pragma (e.g. query_only = off)
    return sqlite3.SQLITE_OK


class _Run:
    """One call on its own connection, in a worker thread, interruptible by deadline or Stop."""

    def __init__(self, path: Path, readonly: bool, timeout_seconds: float, cancel_event: threading.Event) -> None:
        self.path, self.readonly, self.timeout = path, readonly, timeout_seconds
        self.cancel_event = cancel_event
        self.deadline = 0.0

    def _progress(self) -> int:
        return 1 if self.cancel_event.is_set() or time.monotonic() > self.deadline else 0

    def open(self) -> sqlite3.Connection:
        uri = f"{self.path.as_uri()}?mode={'ro' if self.readonly else 'rw'}"
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=5.0)
        db.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        if self.readonly:
            db.execute("PRAGMA query_only = ON")
            db.set_authorizer(_authorizer)
        self.deadline = time.monotonic() + self.timeout
        db.set_progress_handler(self._progress, PROGRESS_STEPS)
        return db

    def fail(self, exc: sqlite3.Error) -> BaseException:
        name = getattr(exc, "sqlite_errorname", "") or ""
        if name == "SQLITE_INTERRUPT" or "interrupted" in str(exc):
            if self.cancel_event.is_set():
                return CancelledByUser(for_person("the SQLite statement was cancelled", N_("The statement was stopped.")))
            return ToolError(for_person(f"the statement did not finish within {self.timeout:g} s",
                                        N_("The statement did not finish within {seconds} s."),
                                        seconds=f"{self.timeout:g}"), kind=ErrorKind.TIMEOUT)
        if "_".join(name.split("_")[:2]) in _DEPENDENCY_CODES:  # SQLITE_IOERR_READ → SQLITE_IOERR
            return ToolError(for_person(f"database unavailable: {exc}", N_("The database is unavailable: {error}"),
                                        error=str(exc)), kind=ErrorKind.DEPENDENCY)
        return ToolError(str(exc), kind=ErrorKind.BUSINESS)

    def query(self, sql: str, max_rows: int) -> QueryResult:
        started = time.monotonic()
        db = self.open()
        try:
            if not self.readonly:
                db.execute("BEGIN IMMEDIATE")
            try:
                cur = db.execute(sql)
                records = cur.fetchmany(max_rows) if cur.description else []
                more = 0
                if cur.description and len(records) == max_rows:
                    while more < COUNT_REST_LIMIT and (chunk := cur.fetchmany(1000)):
                        more += len(chunk)
                status = "" if cur.description else f"{max(cur.rowcount, 0)} rows affected"
                if not self.readonly:
                    db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            names = [d[0] for d in cur.description or ()]
            columns = [Column(n, _value_type(records, i)) for i, n in enumerate(names)]
            rows = [[json_safe(v) for v in r] for r in records]
            return QueryResult(columns, rows, more, more < COUNT_REST_LIMIT, status,
                               (time.monotonic() - started) * 1000)
        except sqlite3.Error as exc:
            raise self.fail(exc) from exc
        finally:
            db.close()

    def tables(self, table: str | None) -> list[TableInfo]:
        db = self.open()
        try:
            found = db.execute(
                "SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') "
                "AND name NOT LIKE 'sqlite_%' AND (?1 IS NULL OR name = ?1) ORDER BY name", (table,)
            ).fetchall()
            result = []
            for name, kind in found:
                cols = tuple(
                    TableColumn(c_name, c_type or "", nullable=not notnull, primary_key=bool(pk))
                    for _cid, c_name, c_type, notnull, _default, pk in
                    db.execute("SELECT * FROM pragma_table_info(?)", (name,)).fetchall()
                )
                result.append(TableInfo("", name, kind, cols))
            return result
        except sqlite3.Error as exc:
            raise self.fail(exc) from exc
        finally:
            db.close()


def _value_type(records: list[tuple[object, ...]], index: int) -> str:
    """SQLite has no result column types; name the storage class of the first non-NULL value."""
    for record in records:
        value = record[index]
        if value is not None:
            return {int: "integer", float: "real", str: "text", bytes: "blob"}.get(type(value), "text")
    return "null"


async def run_statement(path: Path, sql: str, *, max_rows: int, timeout_seconds: float, readonly: bool,
                        cancel_event: threading.Event) -> QueryResult:
    run = _Run(path, readonly, timeout_seconds, cancel_event)
    return await asyncio.to_thread(run.query, sql, max_rows)


async def list_tables(path: Path, table: str | None, *, timeout_seconds: float,
                      cancel_event: threading.Event) -> list[TableInfo]:
    run = _Run(path, True, timeout_seconds, cancel_event)
    return await asyncio.to_thread(run.tables, table)
