"""Fixtures for the database tools: one real PostgreSQL server per test session.

The server and its data are set up once (``pg``); every test gets fresh settings, the
passwords in the (per-test) memory secret store, and a context whose workspace is ``tmp_path``.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from db_pgserver import start_server
from db_support import READER_PASSWORD, SETUP_SQL, WRITER_PASSWORD, PgInfo, make_ctx

from echo_desk.store.settings import DatabaseConnection, Settings, SettingsStore
from echo_desk.tools import ToolExecutionContext
from echo_desk.tools.secrets import secret_store


@pytest.fixture(scope="session")
def pg() -> Iterator[PgInfo]:
    server = start_server()
    try:
        async def setup() -> None:
            conn = await asyncpg.connect(server.dsn(server.admin_user), password=server.admin_password)
            await conn.execute("CREATE DATABASE shop")
            await conn.close()
            conn = await asyncpg.connect(server.dsn(server.admin_user, "shop"), password=server.admin_password)
            await conn.execute(SETUP_SQL)
            await conn.close()

        asyncio.run(setup())
        yield PgInfo(server)
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture
def pg_settings(pg: PgInfo) -> SettingsStore:
    """Connections ``shop`` (reader, read-only), ``shop_rw`` (writer, write mode) and
    ``shop_admin`` (superuser, read-only); passwords in the secret store."""
    store = SettingsStore.in_memory(Settings(databases=[
        DatabaseConnection(name="shop", kind="postgres", dsn=pg.dsn("reader")),
        DatabaseConnection(name="shop_rw", kind="postgres", dsn=pg.dsn("writer"), write_mode=True),
        DatabaseConnection(name="shop_admin", kind="postgres", dsn=pg.dsn(pg.server.admin_user)),
    ]))
    secrets = secret_store()
    secrets.set("database.shop.password", READER_PASSWORD)
    secrets.set("database.shop_rw.password", WRITER_PASSWORD)
    secrets.set("database.shop_admin.password", pg.server.admin_password)
    return store


@pytest.fixture
def ctx(tmp_path: Path) -> ToolExecutionContext:
    return make_ctx(tmp_path)

