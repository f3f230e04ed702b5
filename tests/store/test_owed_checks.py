"""The store of checks owed by sandboxed commands: a row stays owed until settled or checked,
only rows of processes that no longer run are handed to a start, and told ones go."""

from __future__ import annotations

import os
import subprocess
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
