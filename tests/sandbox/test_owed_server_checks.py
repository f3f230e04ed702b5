"""A sandboxed MCP server's check after its end, owed when Echo Desk was killed while the server
ran (SIGKILL, a real child process): the server dies with it and, before s328, what it had
planted in its folder stayed there for good. Now its check is kept as owed from its start and
made at the next start, recorded as the server's; a server starting again in the same folder
makes it first, so that its own snapshot does not take in what was planted (its checks would
take the put-aside for the server's doing)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

from sandbox_helpers import Jail, process_running, requires_bwrap, wait_for
from test_mcp_sandbox import _engine_with_probe, _probe

from echo_desk.runtime import AUDIT_FILE, Runtime
from echo_desk.store.audit import AuditLog, Event
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.planted import Change, planted_of

CHILD = Path(__file__).with_name("owed_server_child.py")
ROOT = Path(__file__).resolve().parents[2]


def _killed_while_the_server_ran(jail: Jail) -> Path:
    """A child Echo Desk whose sandboxed server planted ``.envrc``, killed with it still running."""
    token = f"owed-server-{uuid.uuid4().hex}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(CHILD.parent)])}
    child = subprocess.Popen([sys.executable, str(CHILD), str(jail.workspace), str(jail.own_dirs[1]), token],
                             env=env, stdout=subprocess.PIPE, text=True)
    planted = jail.workspace / ".envrc"
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started", "the child's server did not start"
        wait_for(planted.exists, "the server did not plant")
        assert child.poll() is None, "the child ended before it was killed"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    wait_for(lambda: not process_running(token), "the sandboxed server outlived the killed Echo Desk")
    assert planted.read_text() and planted.exists()  # nobody checked: it is still there
    return planted


def _rows(data: Path) -> list[dict[str, object]]:
    audit = AuditLog(data / AUDIT_FILE)
    try:
        return [r for r in audit.query() if r["event"] == Event.CHECKED_AFTER_RESTART.value]
    finally:
        audit.close()


def _told_as_the_servers(jail: Jail, planted: Path) -> None:
    data = jail.own_dirs[1]
    store = OwedChecksStore(data / OWED_CHECKS_FILE)
    assert store.owed() == []
    [told] = store.untold()
    assert (told.server, told.workspace, told.call_id) == ("probe", str(jail.workspace), "")
    assert [(p["path"], p["change"]) for p in told.planted] == [(".envrc", "created")]
    [row] = _rows(data)
    assert (row["tool"], row["source"], row["call_id"]) == ("probe", "mcp:probe", "")
    assert row["arguments"]["server"] == "probe"  # type: ignore[index]
    [entry] = planted_of(row["planted"])
    assert entry.path == str(planted) and entry.change is Change.CREATED


@requires_bwrap
def test_a_check_owed_by_an_echo_desk_killed_while_its_sandboxed_server_ran_is_made_at_the_next_start(
        jail: Jail) -> None:
    planted = _killed_while_the_server_ran(jail)
    runtime = Runtime.create(data_dir=jail.own_dirs[1], with_builtins=False, with_plugins=False)
    try:
        assert runtime.make_owed_checks() == 1
        assert runtime.make_owed_checks() == 0  # made once, not twice
    finally:
        runtime.close()
    assert not planted.exists()
    _told_as_the_servers(jail, planted)


@requires_bwrap
async def test_a_server_starting_again_in_the_folder_makes_the_owed_check_before_its_snapshot(jail: Jail) -> None:
    """The app's next start starts the server again at once, beside its own pass over the owed
    checks: the server's snapshot must not take in the ``.envrc`` (its call's check then said the
    server had removed it: tried with that order forced)."""
    planted = _killed_while_the_server_ran(jail)
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       data_dir=jail.own_dirs[1])
    try:
        assert not planted.exists()  # made before the server started
        envelope = await _probe(runtime)
        assert envelope.ok and not envelope.metadata.get("sandbox", {}).get("planted")
    finally:
        await runtime.aclose()
    assert not planted.exists()  # not put back by its check, nor at its end
    _told_as_the_servers(jail, planted)
    assert OwedChecksStore(jail.own_dirs[1] / OWED_CHECKS_FILE).owed() == []  # its own row settled at its end


@requires_bwrap
async def test_a_server_stopped_in_order_owes_nothing(jail: Jail) -> None:
    """Its check after its end was made: the row kept while it ran goes."""
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True, data_dir=jail.own_dirs[1])
    try:
        assert OwedChecksStore(jail.own_dirs[1] / OWED_CHECKS_FILE).path.exists()  # kept as owed while it runs
    finally:
        await runtime.aclose()
    store = OwedChecksStore(jail.own_dirs[1] / OWED_CHECKS_FILE)
    assert store.owed() == [] and store.untold() == []
    assert not _rows(jail.own_dirs[1])

