"""A sandboxed command's check that Echo Desk owed when it was killed (SIGKILL, a real child
process) or quit before a late check ended is made at the next start: what the command planted
is put aside, the audit log and the call's saved card say so, and the person is told once."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import Jail, process_running, requires_bwrap, wait_for

from echo_desk.agent.owed_checks import make_owed_checks
from echo_desk.runtime import Runtime
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.store.audit import AuditLog
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.tools.planted import Change, planted_of
from echo_desk.ui.chat.card_parse import sandbox_of
from echo_desk.ui.chat.sandbox_card import sandbox_lines

CHILD = Path(__file__).with_name("owed_check_child.py")
ROOT = Path(__file__).resolve().parents[2]


def _child(mode: str, jail: Jail, token: str = "-") -> list[str]:
    return [sys.executable, str(CHILD), mode, str(jail.workspace), str(jail.own_dirs[1]), token]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(CHILD.parent)])}


def _audit_rows(data: Path) -> list[dict[str, object]]:
    log = AuditLog(data / "audit.sqlite3")
    try:
        return [r for r in log.query() if r["event"] == "checked_after_restart"]
    finally:
        log.close()


@requires_bwrap
def test_a_check_owed_by_an_echo_desk_killed_while_its_command_ran_is_made_at_the_next_start(jail: Jail) -> None:
    token = f"owed-{uuid.uuid4().hex}"
    child = subprocess.Popen(_child("kill", jail, token), env=_env())
    try:
        wait_for(lambda: (jail.workspace / "started").exists() or child.poll() is not None, "the command never ran")
        assert child.poll() is None, "the child ended before it was killed"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    wait_for(lambda: not process_running(token), "the sandbox outlived the killed Echo Desk")
    assert (jail.workspace / ".envrc").read_text() == "evil\n"  # nobody checked: it is still there

    data = jail.own_dirs[1]
    runtime = Runtime.create(data_dir=data, with_plugins=False)
    try:
        assert runtime.make_owed_checks() == 1
        assert runtime.make_owed_checks() == 0  # made once
        assert runtime.owed_checks is not None
        told = runtime.owed_checks.untold()
    finally:
        runtime.close()
    assert not (jail.workspace / ".envrc").exists()
    assert len(told) == 1 and (told[0].call_id, told[0].workspace, told[0].error) == (
        "call-1", str(jail.workspace), "")
    [planted] = planted_of(list(told[0].planted))
    assert (planted.path, planted.change) == (".envrc", Change.CREATED)
    assert Path(planted.kept).read_text() == "evil\n"  # put aside, never run
    [row] = _audit_rows(data)
    assert (row["call_id"], row["tool"], row["ok"]) == ("call-1", "run_command", True)
    assert [p.path for p in planted_of(row["planted"])] == [str(jail.workspace / ".envrc")]

    store = OwedChecksStore(data / OWED_CHECKS_FILE)
    store.mark_told([told[0].id])
    assert store.untold() == [] and store.owed() == []


@requires_bwrap
def test_a_late_check_cut_short_by_a_quit_is_made_at_the_next_start_and_its_card_updated(jail: Jail) -> None:
    done = subprocess.run(_child("quit", jail), env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    conversation_id = done.stdout.strip().splitlines()[-1]
    assert (jail.workspace / ".envrc").exists()  # the late check never ended

    data = jail.own_dirs[1]
    conversations = ConversationStore(data / "conversations.sqlite3")
    audit = AuditLog(data / "audit.sqlite3")
    try:
        assert make_owed_checks(OwedChecksStore(data / OWED_CHECKS_FILE), audit, conversations) == 1
        found = conversations.tool_envelope(conversation_id, "call-1")
    finally:
        audit.close()
        conversations.close()
    assert not (jail.workspace / ".envrc").exists()
    assert found is not None
    facts = sandbox_of(found[1])
    assert facts is not None and facts.checked_after_restart and not facts.checked_later
    assert [p.full() for p in facts.planted] == [str(jail.workspace / ".envrc")]
    texts = [text for text, _colour in sandbox_lines(facts)]
    assert any("checked at the next start, and what is said above was found" in t for t in texts), texts
    assert not any("still ran in the sandbox" in t for t in texts)


def test_a_snapshot_that_names_anything_but_the_guards_values_is_not_read(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    hostile = pickle.dumps((sandbox_owed.FORMAT, (os.system,), ()))
    with pytest.raises(sandbox_owed.UnreadableSnapshot):
        sandbox_owed.check_owed(hostile)

    class Runs:
        def __reduce__(self) -> tuple[object, ...]:
            return (os.system, (f"touch {marker}",))

    with pytest.raises(sandbox_owed.UnreadableSnapshot):
        sandbox_owed.check_owed(pickle.dumps(Runs()))
    assert not marker.exists()
    with pytest.raises(sandbox_owed.UnreadableSnapshot):
        sandbox_owed.check_owed(b"not a pickle")
