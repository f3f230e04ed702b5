"""What a sandboxed server left that was put aside as Echo Desk quit reaches the person: kept in
the store the app reads at its next start, and printed by the CLI when it is the one quitting.
Before, only the log said it."""

from __future__ import annotations

import asyncio
import io
import os
import time

import pytest
from sandbox_helpers import Jail, requires_bwrap
from test_mcp_sandbox import _engine_with_probe, _probe
from test_mcp_server_endings import _manager, _until_not_connected

from echo_desk.cli.left_at_quit import close_and_tell
from echo_desk.store.audit import AuditLog
from echo_desk.store.left_at_quit import LeftAtQuitStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.planted import Change, planted_of


def _store(runtime_store: LeftAtQuitStore | None) -> LeftAtQuitStore:
    assert runtime_store is not None
    return runtime_store


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@requires_bwrap
async def test_what_a_running_server_planted_is_kept_untold_when_the_app_quits(jail: Jail) -> None:
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    store = _store(runtime.left_at_quit)
    try:
        assert (await _probe(runtime)).ok
        planted.write_text("echo planted")  # (after the call's check: as the running server could)
    finally:
        await runtime.aclose()
    assert not planted.exists()
    [record] = store.untold()
    assert (record.server, record.folder) == ("probe", str(jail.workspace))
    [entry] = record.planted
    assert entry["path"] == ".envrc" and entry["change"] == "created"
    assert os.path.basename(str(entry["kept"])) == ".envrc" and not entry["still_there"]
    store.mark_told([record.id])
    assert store.untold() == []


@requires_bwrap
async def test_what_a_server_planted_before_exiting_on_its_own_is_kept_when_no_call_came_after(jail: Jail) -> None:
    """Its end's check put it aside, for the next call to say: none came before the quit."""
    flag, planted = jail.base / "plant-now", jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    store = _store(runtime.left_at_quit)
    try:
        assert (await _probe(runtime, then_exit=[str(flag), str(planted)])).ok
        flag.touch()
        await _until_not_connected(_manager(runtime))
    finally:
        flag.touch()
        await runtime.aclose()
    assert [[p["path"] for p in r.planted] for r in store.untold()] == [[".envrc"]]


@requires_bwrap
async def test_what_a_server_wrote_as_it_started_with_no_call_after_is_in_the_audit_log(jail: Jail) -> None:
    """No call's row says it: the audit log gets a row of the server's own as Echo Desk quits, with
    every entry's full path (and the row is shown as the server's in Settings › Permissions › Activity)."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"})
    try:
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(planted.exists):
            assert time.monotonic() < deadline, "the server did not start"
            await asyncio.sleep(0.02)
    finally:
        await runtime.aclose()
    assert not planted.exists()
    audit = AuditLog(runtime.audit.path)
    try:
        [row] = audit.query()
    finally:
        audit.close()
    assert (row["event"], row["tool"], row["source"]) == ("server_left", "probe", "mcp:probe")
    assert row["arguments"] == {"folder": str(jail.workspace)}
    [entry] = planted_of(row["planted"])
    assert entry.path == str(planted) and entry.change is Change.CREATED and entry.kept.endswith("/.envrc")
    assert [r.server for r in _store(runtime.left_at_quit).untold()] == ["probe"]  # and the person is told


@requires_bwrap
async def test_nothing_is_kept_when_nothing_was_planted(jail: Jail) -> None:
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True)
    store = _store(runtime.left_at_quit)
    try:
        assert (await _probe(runtime)).ok
    finally:
        await runtime.aclose()
    assert store.untold() == []
    assert not store.path.exists()  # (most quits: no database made)


@requires_bwrap
@pytest.mark.parametrize("terminal", [True, False])
async def test_the_cli_quitting_prints_it_with_full_paths(jail: Jail, terminal: bool) -> None:
    """On a terminal it is told there; printed where nobody may read it, the app still shows it."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=False)
    store = _store(runtime.left_at_quit)
    out = _Terminal() if terminal else io.StringIO()
    try:
        assert (await _probe(runtime)).ok
        planted.write_text("echo planted")
        await close_and_tell(runtime, out)
    finally:
        await runtime.aclose()
    printed = out.getvalue()
    assert f"the sandboxed MCP server “probe” had left in {jail.workspace} what would run code later" in printed
    assert f"{planted} (new: put aside)" in printed
    assert "kept, never run, at " in printed and "put-aside" in printed
    assert [r.server for r in store.untold()] == ([] if terminal else ["probe"])


def _server_left_rows(runtime_audit: AuditLog) -> list[dict[str, object]]:
    return [r for r in runtime_audit.query() if r["event"] == "server_left"]


async def _until_recorded(runtime_audit: AuditLog) -> list[dict[str, object]]:
    deadline = time.monotonic() + 30
    while not (rows := await asyncio.to_thread(_server_left_rows, runtime_audit)):
        assert time.monotonic() < deadline, "no server_left row while Echo Desk runs"
        await asyncio.sleep(0.05)
    return rows


@requires_bwrap
@pytest.mark.parametrize("ended", ["stopped", "exited"])
async def test_what_a_server_left_is_in_the_audit_log_as_it_ends_and_not_again_at_quit(
        jail: Jail, ended: str) -> None:
    """Stopped (in Settings) or ended on its own, and never called again: its row is written when
    the check at its end finds what it left, while Echo Desk still runs; the quit writes no second
    one, and still keeps it for the person (who has not been told)."""
    flag, planted = jail.base / "plant-now", jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"} if ended == "stopped" else None)
    try:
        if ended == "stopped":
            deadline = time.monotonic() + 30
            while not await asyncio.to_thread(planted.exists):
                assert time.monotonic() < deadline, "the server did not start"
                await asyncio.sleep(0.02)
            await _manager(runtime).set_enabled("probe", False)  # Settings › MCP servers: switched off
        else:
            assert (await _probe(runtime, then_exit=[str(flag), str(planted)])).ok
            flag.touch()
            await _until_not_connected(_manager(runtime))
        [row] = await _until_recorded(runtime.audit)
        assert not planted.exists()
    finally:
        flag.touch()
        await runtime.aclose()
    assert (row["tool"], row["arguments"]) == ("probe", {"folder": str(jail.workspace)})
    [entry] = planted_of(row["planted"])
    assert entry.path == str(planted) and entry.change is Change.CREATED
    audit = AuditLog(runtime.audit.path)
    try:
        assert len(_server_left_rows(audit)) == 1  # not again as Echo Desk quit
    finally:
        audit.close()
    assert [[p["path"] for p in r.planted] for r in _store(runtime.left_at_quit).untold()] == [[".envrc"]]


@requires_bwrap
async def test_a_call_after_the_stop_says_it_on_its_card_but_its_row_does_not_repeat_it(jail: Jail) -> None:
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"})
    try:
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(planted.exists):
            assert time.monotonic() < deadline, "the server did not start"
            await asyncio.sleep(0.02)
        # Restarted (its tools stay): it writes it again as it starts, which the call's check finds.
        await _manager(runtime).restart("probe")
        [stopped_row] = await _until_recorded(runtime.audit)
        envelope = await _probe(runtime)
        rows = await asyncio.to_thread(runtime.audit.query)
    finally:
        await runtime.aclose()
    # The card says both (what its stop put aside, and what it wrote again as it started)...
    assert envelope.ok and [p["path"] for p in envelope.metadata["sandbox"]["planted"]] == [".envrc", ".envrc"]
    first, again = planted_of(envelope.metadata["sandbox"]["planted"])
    # ...the call's row only what its own check found: the stop's is in the server's own row.
    [call_row] = [r for r in rows if r["event"] == "call"]
    assert [p.kept for p in planted_of(call_row["planted"])] == [again.kept]
    assert [p.kept for p in planted_of(stopped_row["planted"])] == [first.kept]
    assert [r["event"] for r in rows].count("server_left") == 1


@requires_bwrap
@pytest.mark.parametrize("how", ["switched off", "removed"])
async def test_what_a_server_switched_off_or_removed_left_is_still_told_at_quit(jail: Jail, how: str) -> None:
    """Its record is replaced (switched off) or dropped (removed) as Settings apply it: what its
    end put aside goes with it to the notice, where before it was lost (only the log said it)."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"})
    try:
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(planted.exists):
            assert time.monotonic() < deadline, "the server did not start"
            await asyncio.sleep(0.02)
        manager = _manager(runtime)
        if how == "removed":
            await manager.apply_config({})
        else:
            await manager.set_enabled("probe", False)
    finally:
        await runtime.aclose()
    assert not planted.exists()
    [record] = _store(runtime.left_at_quit).untold()
    assert record.folder == str(jail.workspace) and [p["path"] for p in record.planted] == [".envrc"]


@requires_bwrap
@pytest.mark.parametrize("ended", ["stopped", "at quit"])
async def test_a_gateway_engines_server_left_row_names_the_connected_app(jail: Jail, ended: str) -> None:
    """The gateway's own engine serves one connected app (the app not running): the row of what its
    server left, written as the server stopped or as the engine closed, names that app, so Activity
    says "From … (through MCP)". Before, the row named no one."""
    planted = jail.workspace / ".envrc"
    runtime = await _engine_with_probe(jail, SettingsStore.in_memory(), own_thread=True,
                                       env={"PROBE_PLANT_AT_START": ".envrc"}, client="cursor")
    try:
        deadline = time.monotonic() + 30
        while not await asyncio.to_thread(planted.exists):
            assert time.monotonic() < deadline, "the server did not start"
            await asyncio.sleep(0.02)
        if ended == "stopped":
            await _manager(runtime).set_enabled("probe", False)
            await _until_recorded(runtime.audit)
    finally:
        await runtime.aclose()
    audit = AuditLog(runtime.audit.path)
    try:
        [row] = _server_left_rows(audit)
    finally:
        audit.close()
    assert (row["tool"], row["client"]) == ("probe", "cursor")
