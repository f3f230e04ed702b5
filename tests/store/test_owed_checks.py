"""The store of checks owed by sandboxed commands: a row stays owed until settled or checked,
only rows of processes that no longer run are handed to a start, and told ones go."""

from __future__ import annotations

import linecache
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from echo_desk.agent.owed_checks import make_owed_checks
from echo_desk.store.audit import AuditLog
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore, this_process
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of


def _owe(store: OwedChecksStore, call_id: str = "call-1") -> int:
    return store.owe(conversation_id="c", call_id=call_id, tool="run_command", workspace="/ws", snapshot=b"x")


def test_a_check_owed_by_this_running_process_is_not_made_by_a_start(tmp_path: Path) -> None:
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    assert store.owed() == [] and not store.path.exists()  # nothing opened at a start with nothing owed
    _owe(store)
    assert store.owed() == []  # its command may still run
    assert this_process().startswith(f"{os.getpid()}:")


def test_owed_settled_checked_told(tmp_path: Path) -> None:
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    settled = _owe(store, "call-0")
    store.settle(settled)
    owed = _owe(store)
    owed_by_a_gone_process(store)
    [check] = store.owed()
    assert (check.id, check.call_id, check.workspace, check.snapshot) == (owed, "call-1", "/ws", b"x")
    store.checked(owed, [{"path": ".envrc", "change": "created"}])
    assert store.owed() == []
    [told] = store.untold()
    assert (told.call_id, told.planted, told.error) == ("call-1", ({"path": ".envrc", "change": "created"},), "")
    store.mark_told([told.id])
    assert store.untold() == []


def test_a_snapshot_that_does_not_read_back_is_told_as_a_check_not_made(tmp_path: Path) -> None:
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    _owe(store)
    owed_by_a_gone_process(store)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 1
        audit.flush()
        [row] = [r for r in audit.query() if r["event"] == "checked_after_restart"]
    finally:
        audit.close()
    [told] = store.untold()
    assert told.error == "unreadable_row" and told.planted == ()  # a kind, said in the person's words when shown
    assert (row["ok"], row["call_id"], row["error"]) == (False, "call-1", "unreadable_row")


def test_a_hook_planted_after_the_snapshot_is_put_aside_by_the_check_made_at_a_start(tmp_path: Path) -> None:
    """No sandbox needed: the snapshot of a repository, a hook planted after it (as the command
    did before Echo Desk was killed), the check made from the kept snapshot."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    store.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "put-aside"))
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch /tmp/pwned\n")
    owed_by_a_gone_process(store)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 1
        audit.flush()
        [row] = [r for r in audit.query() if r["event"] == "checked_after_restart"]
    finally:
        audit.close()
    assert not hook.exists()
    [told] = store.untold()
    assert [(p["path"], p["change"]) for p in told.planted] == [(".git/hooks/pre-commit", "created")]
    assert "touch /tmp/pwned" in Path(str(told.planted[0]["kept"])).read_text()
    assert row["ok"] is True and row["arguments"]["workspace"] == str(workspace)


#: The table as kept before servers' checks were (s328): no ``server`` column.
_BEFORE_SERVERS = """
CREATE TABLE owed_checks (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, owner TEXT NOT NULL, conversation_id TEXT NOT NULL,
    call_id TEXT NOT NULL, tool TEXT NOT NULL, workspace TEXT NOT NULL, snapshot BLOB,
    state TEXT NOT NULL DEFAULT 'owed', checked_at REAL, planted TEXT NOT NULL DEFAULT '[]',
    error TEXT NOT NULL DEFAULT '');
"""


def test_a_file_kept_before_servers_checks_reads_as_commands_and_takes_a_servers(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / OWED_CHECKS_FILE
    with sqlite3.connect(path) as conn:
        conn.executescript(_BEFORE_SERVERS)
        conn.execute("INSERT INTO owed_checks (at, owner, conversation_id, call_id, tool, workspace, snapshot)"
                     " VALUES (1, 'gone', 'c', 'call-1', 'run_command', '/ws', x'00')")
    conn.close()
    store = OwedChecksStore(path)
    store.owe(conversation_id="", call_id="", tool="notes", workspace="/srv/notes", snapshot=b"x", server="notes")
    owed_by_a_gone_process(store)
    command, server = store.owed()
    assert (command.call_id, command.server) == ("call-1", "")
    assert (server.tool, server.server, server.workspace) == ("notes", "notes", "/srv/notes")
    assert OwedChecksStore(path).owed() == [command, server]  # another store on the same file: added once
    store.checked(server.id, [])
    [told] = store.untold()
    assert (told.server, told.call_id, told.workspace) == ("notes", "", "/srv/notes")


def test_a_servers_check_made_at_a_start_is_recorded_as_the_servers(tmp_path: Path) -> None:
    workspace, home = tmp_path / "folder", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    store.owe(conversation_id="", call_id="", tool="notes", server="notes", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "put-aside"))
    owed_by_a_gone_process(store)
    (workspace / ".envrc").write_text("echo planted\n")
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit, conversations_at=tmp_path / "conversations.sqlite3") == 1
        [row] = [r for r in audit.query() if r["event"] == "checked_after_restart"]
    finally:
        audit.close()
    assert not (workspace / ".envrc").exists()
    assert (row["tool"], row["source"], row["call_id"], row["conversation_id"]) == ("notes", "mcp:notes", "", "")
    assert row["arguments"] == {"workspace": str(workspace), "started": row["arguments"]["started"], "server": "notes"}


def test_a_pass_waits_for_the_one_under_way_in_this_process(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A sandboxed server about to take its snapshot makes the owed checks first: with the app's
    own pass under way (its rows then this process's, not listed as owed), it waits for that pass
    to end rather than start at once, before what the pass puts aside is gone."""
    from echo_desk.agent import owed_checks as agent_owed

    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    _owe(store)
    owed_by_a_gone_process(store)
    inside, release = threading.Event(), threading.Event()

    def slow_check(data: bytes) -> tuple[()]:
        inside.set()
        assert release.wait(30), "the first pass was never released"
        return ()

    monkeypatch.setattr(agent_owed.sandbox_owed, "check_owed", slow_check)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        first = threading.Thread(target=make_owed_checks, args=(store, audit))
        first.start()
        assert inside.wait(30), "the first pass did not begin"
        second_made: list[int] = []
        second = threading.Thread(target=lambda: second_made.append(make_owed_checks(store, audit)))
        second.start()
        deadline = time.monotonic() + 30
        while not (second_made or _waiting_for_the_pass(second)):
            assert time.monotonic() < deadline, "the second pass neither waited nor ended"
            time.sleep(0.005)
        assert not second_made  # waiting for the pass under way (before s328 it returned 0 at once)
        release.set()
        first.join(30)
        second.join(30)
        assert second_made == [0] and not first.is_alive()
        assert [r.call_id for r in store.untold()] == ["call-1"]
    finally:
        release.set()
        audit.close()


def _waiting_for_the_pass(thread: threading.Thread) -> bool:
    """``thread`` is held at the start of ``make_owed_checks`` (acquiring the pass's lock)."""
    frame = sys._current_frames().get(thread.ident or 0)
    return frame is not None and frame.f_code.co_name == "make_owed_checks" and "_one_pass" in (
        linecache.getline(frame.f_code.co_filename, frame.f_lineno))
