"""A sandboxed MCP server about to take its snapshot of a folder waits for the owed checks another
Echo Desk process still running has claimed (a CLI or a gateway started at the same moment as
the app, a real child process here): a snapshot taken before they end holds what they put aside.
A claim whose process dies meanwhile is taken over and made here; past the deadline the server
starts all the same and the log says so. The row of a server the gateway's engine started names
the connected app, and so does its record when its check is made after a restart."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from echo_desk.agent.owed_checks import make_owed_checks
from echo_desk.mcp.owed_server_checks import OwedServerChecks
from echo_desk.sandbox import inventory
from echo_desk.sandbox.guard import Guard
from echo_desk.sandbox.launch import Launch
from echo_desk.store.audit import AuditLog, Event
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of

ROOT = Path(__file__).resolve().parents[2]

#: Claims the one owed check, says so, then makes it (finding nothing) when told "make".
_CLAIMING = """
import sys
from pathlib import Path
from echo_desk.store.owed_checks import OwedChecksStore
store = OwedChecksStore(Path(sys.argv[1]))
[check] = store.owed()
assert store.claim(check)
print("claimed", flush=True)
if sys.stdin.readline().strip() == "make":
    store.checked(check.id, [])
"""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[OwedChecksStore, AuditLog, Path]]:
    """A check owed by a gone process whose command planted a git hook, and the audit log."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(tmp_path / "data" / OWED_CHECKS_FILE)
    store.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(store)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    audit = AuditLog(tmp_path / "data" / "audit.sqlite3")
    yield store, audit, hook
    audit.close()


def _claimed_by_a_child(store: OwedChecksStore) -> subprocess.Popen[str]:
    child = subprocess.Popen([sys.executable, "-c", _CLAIMING, str(store.path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "claimed", "the child did not claim the check"
    assert store.owed() == [] and store.being_made_elsewhere() == 1
    return child


def _checks(store: OwedChecksStore, audit: AuditLog, pause: Callable[[], None], wait: float = 30.0) -> OwedServerChecks:
    def make_earlier() -> None:
        make_owed_checks(store, audit)

    return OwedServerChecks(store, make_earlier, claimed_wait=wait, pause=pause)


def _records(audit: AuditLog) -> list[dict[str, object]]:
    audit.flush()
    return [r for r in audit.query() if r["event"] == Event.CHECKED_AFTER_RESTART.value]


def _end(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        os.kill(child.pid, signal.SIGKILL)
    child.wait()
    for stream in (child.stdin, child.stdout):
        if stream is not None:
            stream.close()


def test_a_check_claimed_by_a_process_that_dies_is_taken_over_before_the_snapshot(world) -> None:  # type: ignore[no-untyped-def]
    store, audit, hook = world
    child = _claimed_by_a_child(store)
    pauses: list[None] = []

    def killed() -> None:  # the claiming process dies while the server's start waits
        pauses.append(None)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()

    try:
        assert _checks(store, audit, killed).before_snapshot("probe")
    finally:
        _end(child)
    assert pauses == [None]  # it waited (before s331 it went on at once, the hook still there)
    assert not hook.exists()  # taken over and made here, before the server's snapshot
    [told] = store.untold()
    assert told.call_id == "call-1" and [p["path"] for p in told.planted] == [".git/hooks/pre-commit"]
    assert [r["call_id"] for r in _records(audit)] == ["call-1"]


def test_a_check_a_live_process_claimed_is_waited_for_until_it_made_it(world) -> None:  # type: ignore[no-untyped-def]
    store, audit, _hook = world
    child = _claimed_by_a_child(store)

    def made_there() -> None:  # the other process ends its check while the server's start waits
        assert child.stdin is not None
        child.stdin.write("make\n")
        child.stdin.flush()
        child.wait()

    try:
        assert _checks(store, audit, made_there).before_snapshot("probe")
    finally:
        _end(child)
    assert child.returncode == 0
    [told] = store.untold()  # made by the child, once: not made here too
    assert told.call_id == "call-1" and store.being_made_elsewhere() == 0
    assert _records(audit) == []


def test_past_the_deadline_the_server_starts_and_the_log_says_so(world, caplog) -> None:  # type: ignore[no-untyped-def]
    store, audit, hook = world
    child = _claimed_by_a_child(store)
    pauses: list[None] = []
    try:
        with caplog.at_level(logging.WARNING, logger="echo_desk.mcp.owed_server_checks"):
            assert not _checks(store, audit, lambda: pauses.append(None), wait=0.0).before_snapshot("probe")
    finally:
        _end(child)
    assert pauses == [] and hook.exists()  # no wait left: started all the same
    assert "MCP server probe starts before 1 check(s) another Echo Desk process is making ended" in caplog.text


def test_a_servers_row_names_the_app_whose_gateway_engine_started_it(tmp_path: Path) -> None:
    """Its check made after a restart is recorded as the server's, from that app (Activity's From),
    as its ``server_left`` rows are."""
    workspace, home = tmp_path / "folder", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    guard = Guard.before(inventory.take(workspace, home=home), home=home, put_aside=tmp_path / "put-aside")
    launch = Launch(argv=[], pass_fds=(), hidden=(), read_only=(), guards=(guard,))
    owed = OwedServerChecks(store, lambda: None, client="cursor")
    assert owed.owe("probe", launch) is not None
    owed_by_a_gone_process(store)
    [check] = store.owed()
    assert (check.server, check.client) == ("probe", "cursor")
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 1
        [record] = _records(audit)
    finally:
        audit.close()
    assert (record["client"], record["source"], record["tool"]) == ("cursor", "mcp:probe", "probe")


def test_a_file_kept_before_the_client_column_gets_it(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / OWED_CHECKS_FILE
    with sqlite3.connect(path) as conn:  # the table as s328 kept it
        conn.execute("CREATE TABLE owed_checks (id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, owner TEXT NOT"
                     " NULL, conversation_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, workspace TEXT"
                     " NOT NULL, snapshot BLOB, state TEXT NOT NULL DEFAULT 'owed', checked_at REAL, planted TEXT NOT"
                     " NULL DEFAULT '[]', error TEXT NOT NULL DEFAULT '', server TEXT NOT NULL DEFAULT '')")
        conn.execute("INSERT INTO owed_checks (at, owner, conversation_id, call_id, tool, workspace, snapshot, server)"
                     " VALUES (1, 'gone', '', '', 'probe', '/ws', x'00', 'probe')")
    conn.close()
    [check] = OwedChecksStore(path).owed()
    assert (check.server, check.client) == ("probe", "")
