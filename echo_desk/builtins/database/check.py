""""Test connection" for the settings page: one cheap real round trip to a connection.

Blocking (it runs its own event loop for asyncpg), so callers run it off the UI thread. The
outcome is a kind plus the database's own message; the UI words it in the person's language.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from echo_desk.builtins.database import postgres, sqlite
from echo_desk.builtins.database.connections import needs_password, sqlite_path
from echo_desk.store.settings import DatabaseConnection
from echo_desk.tools import ToolError

#: A test should answer quickly; a real query gets the tool's full statement timeout.
CHECK_TIMEOUT_SECONDS = 8.0


class CheckKind(StrEnum):
    OK = "ok"
    #: SQLite file exists and opens, but no workspace is open, so the tools cannot use it yet.
    OK_NO_WORKSPACE = "ok_no_workspace"
    PASSWORD_MISSING = "password_missing"
    FILE_NOT_FOUND = "file_not_found"
    OUTSIDE_WORKSPACE = "outside_workspace"
    NO_WORKSPACE = "no_workspace"
    FAILED = "failed"


@dataclass(frozen=True)
class CheckResult:
    kind: CheckKind
    #: The path checked or the database's message (untranslated: it comes from the database).
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.kind in (CheckKind.OK, CheckKind.OK_NO_WORKSPACE)


def check_connection(conn: DatabaseConnection, password: str | None, workspace: Path | None) -> CheckResult:
    """Connect and run a trivial read-only statement, exactly as ``db_query`` would."""
    if conn.kind == "sqlite":
        return _check_sqlite(conn, workspace)
    if needs_password(conn) and not password:
        return CheckResult(CheckKind.PASSWORD_MISSING)
    try:
        asyncio.run(postgres.run_statement(conn, password or None, "SELECT 1", max_rows=1,
                                           timeout_seconds=CHECK_TIMEOUT_SECONDS, readonly=True))
    except ToolError as error:
        return CheckResult(CheckKind.FAILED, error.message)
    except Exception as error:  # an odd DSN asyncpg cannot parse: say what it said  # noqa: BLE001
        return CheckResult(CheckKind.FAILED, str(error) or type(error).__name__)
    return CheckResult(CheckKind.OK)


def _check_sqlite(conn: DatabaseConnection, workspace: Path | None) -> CheckResult:
    raw = Path(sqlite_path(conn.dsn)).expanduser()
    if workspace is None and not raw.is_absolute():
        return CheckResult(CheckKind.NO_WORKSPACE, str(raw))
    path = raw if raw.is_absolute() else workspace / raw  # type: ignore[operator]
    if not path.is_file():
        return CheckResult(CheckKind.FILE_NOT_FOUND, str(path))
    if workspace is not None and not path.resolve().is_relative_to(workspace.resolve()):
        return CheckResult(CheckKind.OUTSIDE_WORKSPACE, str(path.resolve()))
    try:
        real = sqlite.resolve_in_roots(str(path), (path.resolve().parent,), None, "workspace")
        asyncio.run(sqlite.run_statement(real, "SELECT count(*) FROM sqlite_schema", max_rows=1,
                                         timeout_seconds=CHECK_TIMEOUT_SECONDS, readonly=True,
                                         cancel_event=threading.Event()))
    except ToolError as error:
        return CheckResult(CheckKind.FAILED, error.message)
    return CheckResult(CheckKind.OK if workspace is not None else CheckKind.OK_NO_WORKSPACE, str(path))
