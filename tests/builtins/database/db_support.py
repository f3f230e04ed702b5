"""Shared by the database tests: the server's test data, a handle on it, a call context."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import asyncpg
from db_pgserver import PgServer

from echo_desk.tools import ToolExecutionContext

READER_PASSWORD = "reader-Pw-1"
WRITER_PASSWORD = "writer-Pw-2"

SETUP_SQL = f"""
CREATE ROLE reader LOGIN PASSWORD '{READER_PASSWORD}';
CREATE ROLE writer LOGIN PASSWORD '{WRITER_PASSWORD}';
CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL UNIQUE, price numeric(10,2), added date);
INSERT INTO items (name, price, added) VALUES
  ('apple', 1.20, '2024-01-02'), ('pear', 2.50, '2024-02-03'), ('plum', 0.99, NULL);
CREATE TABLE big AS SELECT n FROM generate_series(1, 500) AS n;
CREATE VIEW cheap AS SELECT name FROM items WHERE price < 2;
CREATE TABLE odd (
  d date, ts timestamptz, num numeric, b bytea, u uuid, iv interval, arr int[], j jsonb,
  ip inet, f float8, txt text, flag boolean
);
INSERT INTO odd VALUES (
  '2024-03-04', '2024-03-04 05:06:07+00', 12345678901234567890.123456789, '\\x00ff10',
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04', ARRAY[1,2,NULL], '{{"k": [1, "two"]}}',
  '192.168.0.1', 'NaN', E'line1\\nline2 | x', true
);
GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO writer, reader;
"""


@dataclass
class PgInfo:
    server: PgServer

    def dsn(self, user: str) -> str:
        return self.server.dsn(user, "shop")

    async def admin(self) -> asyncpg.Connection:
        return await asyncpg.connect(self.dsn(self.server.admin_user), password=self.server.admin_password)

    async def count(self, table: str) -> int:
        conn = await self.admin()
        try:
            return int(await conn.fetchval(f"SELECT count(*) FROM {table}"))
        finally:
            await conn.close()


def make_ctx(workspace: Path, *, tool: str = "db_query", writable: bool = True) -> ToolExecutionContext:
    return ToolExecutionContext(
        call_id="call-1", tool_name=tool, scope_id="conversation",
        workspace_roots=(workspace,), write_roots=(workspace,) if writable else (),
        read_only=not writable,
    )
