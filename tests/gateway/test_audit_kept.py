"""A call's audit record is on disk before its answer leaves: the app killed (SIGKILL, as a crash
ends it) the moment a client has its answer still has the record of that call when it starts
again, through the handoff and through the relay. (The record is in the audit journal before the
answer goes; the writer folds it into SQLite in batches, and the next start folds what it had not.)"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Any

import pytest

from echo_desk.runtime import AUDIT_FILE
from echo_desk.store.audit import AuditLog
from echo_desk.store.paths import config_dir, data_dir
from echo_desk.store.settings import SettingsStore, ToolPolicy

from .conftest import AUTO, ROOT, approve_servers, needs_time, stop_process, write_servers
from .test_handoff import call, receive, send, start

pytestmark = [needs_time]

CALLS = 5


async def start_app(env: dict[str, str]) -> asyncio.subprocess.Process:
    app = await asyncio.create_subprocess_exec(sys.executable, "-m", "tests.gateway.app_process", cwd=ROOT,
                                               stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, env=env)
    assert app.stdout is not None
    assert (await asyncio.wait_for(app.stdout.readline(), 120)).strip() == b"ready"
    return app


def recorded(client: str) -> list[tuple[Any, ...]]:
    """The calls as the app started again finds them (it folds its audit journal in)."""
    audit = AuditLog(data_dir() / AUDIT_FILE)
    try:
        return [(row["call_id"], row["ok"]) for row in audit.query(tool=AUTO, client=client)]
    finally:
        audit.close()


@pytest.mark.parametrize("handoff", ["1", "0"])
async def test_a_call_answered_is_in_the_audit_when_the_app_is_killed_at_once(gateway_env: dict[str, str],
                                                                              handoff: str) -> None:
    servers = write_servers(everything=False)
    store = SettingsStore.in_dir(config_dir())
    approve_servers(store, servers)
    store.set_tool(AUTO, policy=ToolPolicy.ALWAYS)
    app = await start_app(gateway_env)
    client = await start("cursor", {**gateway_env, "ECHO_DESK_GATEWAY_HANDOFF": handoff})
    try:
        for request_id in range(2, 2 + CALLS):
            await send(client, call(request_id, AUTO, {"timezone": "UTC"}))
            answer = await receive(client)
            assert answer["id"] == request_id and not answer["result"].get("isError"), answer
        os.kill(app.pid, signal.SIGKILL)  # the moment the last answer is in: nothing after it runs
        await app.wait()
    finally:
        if app.returncode is None:
            app.kill()
            await app.wait()
        await stop_process(client)
    rows = recorded("cursor")
    assert len(rows) == CALLS and all(ok for _, ok in rows), rows
