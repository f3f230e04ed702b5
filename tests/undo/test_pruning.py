"""Pruning of kept contents and the trash by the age limit and the size cap: a real SQLite change
log, real blobs and a real trash on disk, through the real tools."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.pruning import IN_FLIGHT_SECONDS
from echo_desk.runtime import Runtime
from echo_desk.store.changes import NotRestorable


async def _call(runtime: Runtime, scope: Scope, host: ScriptedHost, name: str, args: dict[str, Any],
                cid: str) -> Envelope:
    env = await runtime.dispatcher.execute_tool(ToolCall(id=cid, name=name, arguments=json.dumps(args)), scope, host)
    assert env.ok, env.error
    return env


def _blob_files(data: Path) -> list[Path]:
    return [p for p in (data / "undo-blobs").rglob("*") if p.is_file()]


def _age(paths: list[Path], seconds: float) -> None:
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


async def test_the_size_cap_forgets_the_oldest_changes_first(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                             workspace: Path, tmp_path: Path) -> None:
    assert runtime.undo is not None and runtime.reverter is not None
    runtime.undo.prune_in_background().join(10)  # the start-up run is over before we count
    for index in range(4):
        (workspace / f"f{index}.txt").write_bytes(bytes([65 + index]) * 1000)
    for index in range(4):
        await _call(runtime, scope, host, "write_file", {"path": f"f{index}.txt", "content": "new\n"}, f"c{index}")
    data = tmp_path / "data"
    _age(_blob_files(data), IN_FLIGHT_SECONDS + 60)  # none of them belongs to a running call
    runtime.settings.update(lambda s: setattr(s, "undo_max_total_bytes", 2500))
    report = runtime.undo.prune()
    assert report.forgotten_for_space == 2 and report.blobs_removed >= 2
    kept = sum(p.stat().st_size for p in _blob_files(data))
    assert kept <= 2500
    # The two oldest say why they cannot be undone; the two newest still can.
    for cid in ("c0", "c1"):
        [record] = runtime.reverter.changes.for_call(cid)
        assert record.why_not_restorable is NotRestorable.OVER_SPACE_LIMIT
        plan = runtime.reverter.plan_calls([cid])
        assert not plan.steps and [r.path for r in plan.not_restorable] == [record.path]
        outcome = runtime.reverter.apply(plan)
        assert not outcome.reverted and (workspace / f"f{cid[1]}.txt").read_text() == "new\n"
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c2", "c3"]))
    assert report.complete
    assert (workspace / "f2.txt").read_bytes() == b"C" * 1000 and (workspace / "f3.txt").read_bytes() == b"D" * 1000


async def test_the_age_limit_empties_the_trash_and_forgets_old_changes(runtime: Runtime, scope: Scope,
                                                                       host: ScriptedHost, workspace: Path,
                                                                       tmp_path: Path) -> None:
    assert runtime.undo is not None and runtime.reverter is not None
    runtime.undo.prune_in_background().join(10)
    (workspace / "old.txt").write_text("old\n")
    (workspace / "young.txt").write_text("young\n")
    await _call(runtime, scope, host, "delete_path", {"path": "old.txt"}, "c-old")
    trash = Path(os.environ["ECHO_DESK_DATA_DIR"]) / "trash"
    [old_item] = list(trash.iterdir())
    _age([old_item], 40 * 86_400)
    _age(_blob_files(tmp_path / "data"), 40 * 86_400)
    # The change log row itself is made old the way time would (SQLite, not a fake).
    runtime.reverter.changes._conn.execute("UPDATE changes SET at = ? WHERE call_id = 'c-old'",
                                           (time.time() - 40 * 86_400,))
    await _call(runtime, scope, host, "delete_path", {"path": "young.txt"}, "c-young")
    report = runtime.undo.prune()
    assert report.forgotten_for_age == 1 and report.trash_removed == 1
    assert not old_item.exists() and len(list(trash.iterdir())) == 1
    [record] = runtime.reverter.changes.for_call("c-old")
    assert record.why_not_restorable is NotRestorable.TOO_OLD
    assert not runtime.reverter.apply(runtime.reverter.plan_calls(["c-old"])).reverted
    assert runtime.reverter.apply(runtime.reverter.plan_calls(["c-young"])).complete
    assert (workspace / "young.txt").read_text() == "young\n" and not (workspace / "old.txt").exists()


async def test_writes_start_pruning_off_the_calling_thread(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                           workspace: Path) -> None:
    assert runtime.undo is not None
    runtime.undo.prune_in_background().join(10)
    runtime.settings.update(lambda s: setattr(s, "undo_max_total_bytes", 100))  # each write is over 10 % of it
    (workspace / "a.txt").write_bytes(b"a" * 500)
    before = runtime.undo.last_prune
    await _call(runtime, scope, host, "write_file", {"path": "a.txt", "content": "b\n"}, "c1")
    pruner = runtime.undo.prune_in_background()
    assert pruner.name == "undo-prune"
    pruner.join(10)
    assert runtime.undo.last_prune is not before  # a run happened after the write
