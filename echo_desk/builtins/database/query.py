"""``db_query``: one read-only SQL statement on a configured connection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from echo_desk.builtins.database.base import DatabaseArguments, DatabaseTool
from echo_desk.builtins.database.formatting import result_metadata, text_table
from echo_desk.i18n import N_
from echo_desk.tools import RiskLevel, ToolError, ToolExecutionContext, ToolResult, ToolRole

DEFAULT_MAX_ROWS = 100
MAX_ROWS_LIMIT = 1000


class QueryArguments(DatabaseArguments):
    connection: Annotated[str, Field(description="Name of the configured database connection.")]
    sql: Annotated[str, Field(description="Exactly one SQL statement, in the database's dialect.")]
    max_rows: Annotated[int | None, Field(ge=1, le=MAX_ROWS_LIMIT, description=f"Row cap (default {DEFAULT_MAX_ROWS}).")] = None


class DbQueryTool(DatabaseTool[QueryArguments]):
    name = "db_query"
    role = ToolRole.LOOK
    description = (
        "Run ONE read-only SQL statement (SELECT, WITH, EXPLAIN, SHOW...) on a configured database "
        "connection and get a table of the rows. The database enforces read-only: writes fail. "
        "PostgreSQL runs it in a read-only transaction with a statement timeout; SQLite files are "
        "opened read-only. Use db_schema first to learn table and column names. Results are capped "
        "at max_rows; the output says how many more rows there are."
    )
    arguments = QueryArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 60.0
    capabilities = frozenset({"database.read"})
    title = N_("Query a database")
    catalog_description = N_(
        "Runs one read-only SQL statement on a database you configured (PostgreSQL, or a SQLite file in "
        "the workspace). The database itself refuses writes; results are capped and shown as a table."
    )

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        try:
            args = self.parse(params)
            conn = self.connection(args.connection)
            result = await self.run_sql(conn, args.sql, ctx, max_rows=args.max_rows or DEFAULT_MAX_ROWS, readonly=True)
        except ToolError as error:
            return self.failed(error)
        metadata = result_metadata(result, conn.name)
        metadata["sql"] = args.sql
        return ToolResult.ok(text_table(result), metadata=metadata)
