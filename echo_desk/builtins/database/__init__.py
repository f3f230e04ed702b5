"""Database tools: ``db_query`` and ``db_schema`` (read) and ``db_execute`` (exec, write-mode
connections only), for PostgreSQL (asyncpg) and SQLite files inside the workspace."""

from __future__ import annotations

from echo_desk.builtins.database.base import DatabaseTool, SettingsProvider
from echo_desk.builtins.database.connections import ReadinessCache
from echo_desk.builtins.database.execute import DbExecuteTool
from echo_desk.builtins.database.query import DbQueryTool
from echo_desk.builtins.database.schema_tool import DbSchemaTool
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.tools import Tool


def database_tools(settings_store: SettingsStore) -> list[Tool]:
    """The three tools for the runtime to register; they read ``settings_store.current`` on each use."""

    def provider() -> Settings:
        return settings_store.current

    readiness = ReadinessCache()
    # A changed connection list or DSN must not be judged by an old probe.
    settings_store.subscribe(lambda _new: readiness.invalidate())
    return [
        DbQueryTool(provider, readiness=readiness),
        DbSchemaTool(provider, readiness=readiness),
        DbExecuteTool(provider, readiness=readiness),
    ]


__all__ = ["DatabaseTool", "DbExecuteTool", "DbQueryTool", "DbSchemaTool", "ReadinessCache", "SettingsProvider", "database_tools"]
