"""What the three database tools share: the live connection list, its schema enum, readiness,
and turning errors into results.

One tool object serves every configured connection, so it reads the settings on each use
through a provider callable (``settings=lambda: store.current``): a connection added in the
settings dialog shows up in the next request's schema without re-registering anything.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from echo_desk.builtins.arguments import Arguments, TakesArguments
from echo_desk.builtins.database import postgres, sqlite
from echo_desk.builtins.database.cancel import run_cancellable
from echo_desk.builtins.database.connections import (
    NO_DATABASE,
    ReadinessCache,
    needs_password,
    password_for,
    password_key,
    sqlite_path,
)
from echo_desk.builtins.database.formatting import QueryResult, TableInfo
from echo_desk.i18n import N_, deferred, for_person, quoted_later
from echo_desk.store.settings import DatabaseConnection, Settings
from echo_desk.tools import ErrorKind, RuleFamily, Tool, ToolError, ToolExecutionContext, ToolResult

SettingsProvider = Callable[[], Settings]

DEFAULT_STATEMENT_TIMEOUT_SECONDS = 30.0


class _LiveParameters:
    """``parameters`` read on the class: the static schema (docs, catalog). Read on a tool
    object: the same schema with ``connection`` limited to the names configured right now."""

    def __get__(self, obj: DatabaseTool[Any] | None, objtype: type[DatabaseTool[Any]] | None = None) -> dict[str, Any]:
        owner = objtype if obj is None else type(obj)
        assert owner is not None
        schema = copy.deepcopy(owner.base_parameters)
        if obj is not None:
            names = [c.name for c in obj.connections()]
            if names:
                schema["properties"]["connection"]["enum"] = names
        return schema


D = TypeVar("D", bound="DatabaseArguments")


class DatabaseArguments(Arguments):
    """What every database tool names first: the connection (its description is the tool's)."""

    connection: str


class DatabaseTool(TakesArguments[D], Tool):
    """Base of ``db_query``, ``db_schema`` and ``db_execute``: ``arguments`` declares what a call
    takes (the schema is made from it, the connection's names added live)."""

    schema_attribute = "base_parameters"
    rule_family = RuleFamily.DATABASE
    base_parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    parameters = _LiveParameters()
    #: Readiness detail when no connection qualifies for this tool.
    none_configured: ClassVar[str] = NO_DATABASE

    def __init__(self, settings: SettingsProvider, *, readiness: ReadinessCache | None = None,
                 statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT_SECONDS) -> None:
        self._settings = settings
        self._readiness = readiness or ReadinessCache()
        self.statement_timeout = statement_timeout

    def eligible(self, conn: DatabaseConnection) -> bool:
        """Whether this tool serves ``conn`` (``db_execute``: write-mode connections only)."""
        return True

    def connections(self) -> list[DatabaseConnection]:
        return [c for c in self._settings().databases if self.eligible(c)]

    def connection(self, name: str) -> DatabaseConnection:
        """The connection a call names, checked again here: the model may hold an old schema."""
        available = self.connections()
        for conn in available:
            if conn.name == name:
                return conn
        names = ", ".join(c.name for c in available) or "none"
        raise ToolError(for_person(f"unknown connection {name!r} for {self.name}; configured: {names}",
                                   N_("There is no connection named {name}."), name=quoted_later(name)),
                        kind=ErrorKind.VALIDATION)

    def is_ready(self) -> bool:
        return not self.readiness_detail()

    def readiness_detail(self) -> str:
        """Empty when at least one connection answers; else what is wrong with each."""
        conns = self.connections()
        if not conns:
            return for_person(self.none_configured, self.none_configured)
        # The model reads the English (``for_person``), the catalog the language of the moment.
        said = ""
        for conn in conns:
            detail = self._readiness.detail(conn)
            if not detail:
                return ""
            problem = for_person(f"{conn.name}: {detail}", N_("{label}: {value}"), label=conn.name,
                                 value=deferred(detail))
            said = for_person(f"{said}; {problem}", N_("{first}; {second}"), first=said, second=problem) \
                if said else problem
        return said

    def sqlite_file(self, conn: DatabaseConnection, ctx: ToolExecutionContext, *, write: bool) -> Path:
        """The SQLite file, which must lie inside the workspace (the write roots for writes)."""
        roots = ctx.write_roots if write else ctx.workspace_roots
        return sqlite.resolve_in_roots(sqlite_path(conn.dsn), roots, ctx.workspace,
                                       "writable workspace" if write else "workspace")

    def password(self, conn: DatabaseConnection) -> str | None:
        password = password_for(conn)
        if password is None and needs_password(conn):
            raise ToolError(for_person(
                f"password missing for connection {conn.name!r}: the person must store it "
                f"in the keyring as {password_key(conn.name)!r} (Settings › Databases)",
                N_("The password of the connection {connection} is missing: store it in Settings › Databases."),
                connection=quoted_later(conn.name)), kind=ErrorKind.BUSINESS)
        return password

    async def run_sql(self, conn: DatabaseConnection, sql: str, ctx: ToolExecutionContext, *,
                      max_rows: int, readonly: bool) -> QueryResult:
        if not sql.strip():
            raise ToolError(for_person("sql is empty", N_("The SQL statement is empty.")), kind=ErrorKind.VALIDATION)
        if conn.kind == "postgres":
            statement = postgres.run_statement(conn, self.password(conn), sql, max_rows=max_rows,
                                               timeout_seconds=self.statement_timeout, readonly=readonly)
            return await run_cancellable(statement, ctx.cancel_event, self.name)
        path = self.sqlite_file(conn, ctx, write=not readonly)
        return await sqlite.run_statement(path, sql, max_rows=max_rows, timeout_seconds=self.statement_timeout,
                                          readonly=readonly, cancel_event=ctx.cancel_event)

    async def tables(self, conn: DatabaseConnection, table: str | None, ctx: ToolExecutionContext) -> list[TableInfo]:
        if conn.kind == "postgres":
            listing = postgres.list_tables(conn, self.password(conn), table, timeout_seconds=self.statement_timeout)
            return await run_cancellable(listing, ctx.cancel_event, self.name)
        path = self.sqlite_file(conn, ctx, write=False)
        return await sqlite.list_tables(path, table, timeout_seconds=self.statement_timeout,
                                        cancel_event=ctx.cancel_event)

    def failed(self, error: ToolError) -> ToolResult:
        if error.kind is ErrorKind.DEPENDENCY:
            self._readiness.invalidate()  # the catalog should re-check instead of trusting the cache
        return ToolResult.fail(error.kind, error.message)

