"""``db_execute``: one statement that may change data, only on write-mode connections.

A separate tool rather than a flag on ``db_query``: the risk level is a class attribute the
dispatcher's approval policy reads, so "read" and "exec" calls need different tools. Every call
is ``exec`` risk; its preview shows the target database and the full SQL text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from echo_desk.builtins.database.base import DatabaseArguments, DatabaseTool
from echo_desk.builtins.database.connections import NO_WRITE_CONNECTION, redact_dsn
from echo_desk.builtins.database.formatting import result_metadata, text_table
from echo_desk.i18n import N_, deferred, for_person, quoted_later
from echo_desk.store.settings import DatabaseConnection
from echo_desk.tools import (
    ErrorKind,
    RiskLevel,
    Target,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    ToolRole,
)

MAX_RETURNED_ROWS = 100

# Shown in the approval dialog.
SUMMARY = N_("Run SQL on {connection} ({kind}, write mode)")
TARGET_DETAIL = N_("connection {connection}; {kind}, write mode")
#: The connection's kind by its product's name (the setting's value is an id).
KIND_NAMES = {"sqlite": "SQLite", "postgres": "PostgreSQL"}


class ExecuteArguments(DatabaseArguments):
    connection: Annotated[str, Field(description="Name of a write-mode database connection.")]
    sql: Annotated[str, Field(description="Exactly one SQL statement, in the database's dialect.")]


class DbExecuteTool(DatabaseTool[ExecuteArguments]):
    name = "db_execute"
    role = ToolRole.CHANGE
    description = (
        "Run ONE SQL statement that may change data or schema (INSERT, UPDATE, DELETE, CREATE...) on a "
        "database connection the person put in write mode. The person approves every call after seeing "
        "the full SQL. It runs in one transaction, committed only if it succeeds. Use db_query for reads."
    )
    arguments = ExecuteArguments
    risk_level = RiskLevel.EXEC
    timeout_seconds = 60.0
    capabilities = frozenset({"database.write"})
    none_configured = NO_WRITE_CONNECTION
    title = N_("Change a database")
    catalog_description = N_(
        "Runs one SQL statement that may change data, only on connections you put in write mode. "
        "You approve each call after seeing the database and the full SQL."
    )

    def eligible(self, conn: DatabaseConnection) -> bool:
        return conn.write_mode

    def target(self, conn: DatabaseConnection, ctx: ToolExecutionContext) -> Target:
        if conn.kind == "sqlite":
            try:
                where = str(self.sqlite_file(conn, ctx, write=True))
            except ToolError as error:
                where = f"{conn.dsn} ({error.message})"
        else:
            where = redact_dsn(conn.dsn)
        # The connection's name goes in the detail: "shop: /ws/shop.db" read as one glued label.
        return Target(kind="database", value=where,
                      detail=deferred(TARGET_DETAIL, connection=conn.name, kind=KIND_NAMES.get(conn.kind, conn.kind)))

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview | None:
        args = self.parse(params)  # a call that does not parse is no call to show
        try:
            conn = self.connection(args.connection)
        except ToolError:
            return None  # execute reports the unknown connection
        return ToolPreview(targets=(self.target(conn, ctx), Target(kind="other", value=args.sql, detail="SQL")),
                           summary=deferred(SUMMARY, connection=conn.name, kind=KIND_NAMES.get(conn.kind, conn.kind)))

    def _as_shown(self, shown: ToolPreview, conn: DatabaseConnection, sql: str, ctx: ToolExecutionContext) -> None:
        """Run only on the database the dialog named: a connection edited since, or a SQLite
        file that is a link leading elsewhere by now, is not what the person approved."""
        now = (self.target(conn, ctx), Target(kind="other", value=sql, detail="SQL"))
        if [(t.kind, t.value) for t in shown.targets] != [(t.kind, t.value) for t in now]:
            raise ToolError(for_person(
                f"the database of connection {conn.name!r} is {now[0].value} now, not the one shown "
                "when the change was approved (it changed since); nothing was run",
                N_("The database of the connection {connection} is {database} now, not the one shown when you "
                   "approved the change; nothing was run."),
                connection=quoted_later(conn.name), database=now[0].value), kind=ErrorKind.BUSINESS)

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        try:
            if ctx.read_only:
                raise ToolError(for_person("this scope is read-only; db_execute is not available",
                                           N_("This conversation may only read: {tool} is not allowed here."),
                                           tool="db_execute"), kind=ErrorKind.BUSINESS)
            args = self.parse(params)
            conn = self.connection(args.connection)
            if ctx.preview is not None:
                self._as_shown(ctx.preview, conn, args.sql, ctx)
            result = await self.run_sql(conn, args.sql, ctx, max_rows=MAX_RETURNED_ROWS, readonly=False)
        except ToolError as error:
            return self.failed(error)
        metadata = result_metadata(result, conn.name)
        metadata["sql"] = args.sql
        return ToolResult.ok(text_table(result), metadata=metadata)
