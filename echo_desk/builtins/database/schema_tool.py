"""``db_schema``: the tables and columns of a connection, so the model writes correct SQL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field

from echo_desk.builtins.database.base import DatabaseArguments, DatabaseTool
from echo_desk.builtins.database.formatting import schema_metadata, schema_text
from echo_desk.i18n import N_, for_person, quoted_later
from echo_desk.tools import RiskLevel, ToolError, ToolExecutionContext, ToolResult, ToolRole

#: Tables listed in one answer when no ``table`` is given (the rest are counted).
MAX_TABLES = 150


class SchemaArguments(DatabaseArguments):
    connection: Annotated[str, Field(description="Name of the configured database connection.")]
    table: Annotated[str | None, Field(description="Only this table or view (name or schema.name).")] = None


class DbSchemaTool(DatabaseTool[SchemaArguments]):
    name = "db_schema"
    role = ToolRole.LIST
    description = (
        "List the tables and views of a configured database connection with their columns, types, "
        "NOT NULL and primary keys (pk). Pass table (name or schema.name) to see just one. "
        "Call this before writing SQL for db_query."
    )
    arguments = SchemaArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 60.0
    capabilities = frozenset({"database.read"})
    title = N_("Database tables")
    catalog_description = N_("Lists the tables and columns of a database you configured, read-only.")

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        try:
            args = self.parse(params)
            table = args.table or None
            conn = self.connection(args.connection)
            tables = await self.tables(conn, table, ctx)
        except ToolError as error:
            return self.failed(error)
        if table and not tables:
            return self.failed(ToolError(for_person(f"no table or view named {table!r} on {conn.name!r}",
                                                    N_("There is no table or view named {table} on {connection}."),
                                                    table=quoted_later(table), connection=quoted_later(conn.name))))
        return ToolResult.ok(schema_text(tables, MAX_TABLES), metadata=schema_metadata(tables, conn.name))
