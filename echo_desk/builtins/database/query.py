"""``db_query``: one read-only SQL statement on a configured connection."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from echo_desk.builtins.database.base import DatabaseTool, connection_property
from echo_desk.builtins.database.formatting import result_metadata, text_table
from echo_desk.i18n import N_
from echo_desk.tools import RiskLevel, ToolError, ToolExecutionContext, ToolResult

DEFAULT_MAX_ROWS = 100
MAX_ROWS_LIMIT = 1000


class DbQueryTool(DatabaseTool):
    name = "db_query"
    description = (
        "Run ONE read-only SQL statement (SELECT, WITH, EXPLAIN, SHOW...) on a configured database "
        "connection and get a table of the rows. The database enforces read-only: writes fail. "
        "PostgreSQL runs it in a read-only transaction with a statement timeout; SQLite files are "
        "opened read-only. Use db_schema first to learn table and column names. Results are capped "
        "at max_rows; the output says how many more rows there are."
    )
    base_parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "connection": connection_property("Name of the configured database connection."),
            "sql": {"type": "string", "description": "Exactly one SQL statement, in the database's dialect."},
            "max_rows": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS_LIMIT,
                         "description": f"Row cap (default {DEFAULT_MAX_ROWS})."},
        },
        "required": ["connection", "sql"],
        "additionalProperties": False,
    }
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
            conn = self.connection(params)
            max_rows = max(1, min(int(params.get("max_rows") or DEFAULT_MAX_ROWS), MAX_ROWS_LIMIT))
            result = await self.run_sql(conn, str(params.get("sql", "")), ctx, max_rows=max_rows, readonly=True)
        except ToolError as error:
            return self.failed(error)
        metadata = result_metadata(result, conn.name)
        metadata["sql"] = params.get("sql", "")
        return ToolResult.ok(text_table(result), metadata=metadata)
