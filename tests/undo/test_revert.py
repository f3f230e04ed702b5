"""Undo through the real pipeline: write_file/edit_file record what the file held, Revert
restores it only when the file is still what the tool wrote, and never overwrites otherwise."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.journal import turn
from echo_desk.agent.undo.notes import revert_note
from echo_desk.agent.undo.resolution import Resolution
from echo_desk.agent.undo.revert import LeftAlone, RevertIssue
from echo_desk.runtime import Runtime
from echo_desk.store.changes import NotRestorable


async def _run(runtime: Runtime, scope: Scope, host: ScriptedHost, name: str, args: dict[str, Any],
               cid: str) -> None:
    env = await runtime.dispatcher.execute_tool(ToolCall(id=cid, name=name, arguments=json.dumps(args)),
                                                scope, host)
    assert env.ok, env.error


async def test_revert_of_an_edit_restores_bytes_and_mode(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                         workspace: Path) -> None:
    target = workspace / "a.txt"
    target.write_bytes(b"alpha\r\nbeta\r\n")
    os.chmod(target, 0o640)
    await _run(runtime, scope, host, "edit_file", {"path": "a.txt", "edits": [{"old": "beta", "new": "gamma"}]}, "c1")
    assert target.read_bytes() == b"alpha\r\ngamma\r\n"
    assert runtime.reverter is not None
    [record] = runtime.reverter.changes.for_call("c1")
    assert record.kind == "modify" and record.restorable and record.conversation_id == scope.conversation_id
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete and [r.path for r in report.reverted] == [str(target)]
    assert target.read_bytes() == b"alpha\r\nbeta\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert runtime.reverter.changes.for_call("c1")[0].reverted


async def test_revert_of_an_edit_keeps_a_mode_the_person_set_since(runtime: Runtime, scope: Scope,
                                                                   host: ScriptedHost, workspace: Path) -> None:
    script = workspace / "deploy.sh"
    script.write_text("echo one\n")
    os.chmod(script, 0o644)
    await _run(runtime, scope, host, "edit_file", {"path": "deploy.sh", "edits": [{"old": "one", "new": "two"}]}, "c1")
    os.chmod(script, 0o750)  # the person makes it runnable afterwards; the edit never touched the mode
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete, (report.kept, report.failed)
    assert script.read_text() == "echo one\n"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750


async def test_revert_of_a_file_written_into_new_folders_removes_those_folders_too(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    (workspace / "docs").mkdir()
    await _run(runtime, scope, host, "write_file", {"path": "docs/api/v2/index.md", "content": "# API\n"}, "c1")
    assert (workspace / "docs" / "api" / "v2" / "index.md").read_text() == "# API\n"
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete, (report.kept, report.failed)
    # As before the call: the folder that was there stays, the two it made are gone.
    assert os.listdir(workspace) == ["docs"] and os.listdir(workspace / "docs") == []


async def test_revert_of_a_created_file_deletes_it_only_if_unchanged(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    await _run(runtime, scope, host, "write_file", {"path": "new/b.txt", "content": "bee\n"}, "c1")
    created = workspace / "new" / "b.txt"
    assert runtime.reverter is not None
    created.write_text("the person's own words\n")
    plan = runtime.reverter.plan_calls(["c1"])
    assert [s.record.path for s in plan.conflicts] == [str(created)]
    report = runtime.reverter.apply(plan)  # no choice given: nothing happens
    assert created.read_text() == "the person's own words\n"
    assert not report.reverted and report.kept[0][1].reason is LeftAlone.WAITING_FOR_CHOICE
    created.write_text("bee\n")  # back to exactly what the tool wrote
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete and not created.exists()


async def test_conflict_choices_are_honoured_and_checked_again(runtime: Runtime, scope: Scope,
                                                               host: ScriptedHost, workspace: Path) -> None:
    target = workspace / "c.txt"
    target.write_text("one\n")
    await _run(runtime, scope, host, "write_file", {"path": "c.txt", "content": "two\n"}, "c1")
    assert runtime.reverter is not None
    target.write_text("three\n")
    plan = runtime.reverter.plan_calls(["c1"])
    [step] = plan.conflicts
    assert runtime.reverter.contents(step) == (b"one\n", b"two\n", b"three\n")
    record_id = step.record.id
    runtime.reverter.apply(plan, {record_id: Resolution.WHAT_IT_IS_NOW})
    assert target.read_text() == "three\n"
    # The file changes again after the person saw the three versions: their choice is not applied.
    target.write_text("four\n")
    report = runtime.reverter.apply(plan, {record_id: Resolution.WHAT_IT_WAS})
    assert target.read_text() == "four\n" and not report.reverted
    assert [issue.reason for _r, issue in report.failed] == [LeftAlone.CHANGED_AGAIN]
    plan = runtime.reverter.plan_calls(["c1"])
    report = runtime.reverter.apply(plan, {plan.conflicts[0].record.id: Resolution.WHAT_THE_TOOL_WROTE})
    assert target.read_text() == "two\n" and not report.reverted
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert target.read_text() == "one\n" and report.complete


async def test_revert_since_goes_back_through_each_state_newest_first(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    target = workspace / "d.txt"
    target.write_text("v0\n")
    with turn("t1"):
        await _run(runtime, scope, host, "write_file", {"path": "d.txt", "content": "v1\n"}, "c1")
    with turn("t2"):
        await _run(runtime, scope, host, "write_file", {"path": "d.txt", "content": "v2\n"}, "c2")
        await _run(runtime, scope, host, "write_file", {"path": "e.txt", "content": "e\n"}, "c3")
    assert runtime.reverter is not None
    turn_plan = runtime.reverter.plan_turn(scope.conversation_id, "t2")
    assert [s.record.call_id for s in turn_plan.steps] == ["c3", "c2"]
    plan = runtime.reverter.plan_since(scope.conversation_id, ["c1"])
    assert [s.record.call_id for s in plan.steps] == ["c3", "c2", "c1"] and not plan.conflicts
    report = runtime.reverter.apply(plan)
    assert report.complete
    assert target.read_text() == "v0\n" and not (workspace / "e.txt").exists()
    # The model hears of it once, at its next turn.
    told = runtime.reverter.changes.take_untold_reverts(scope.conversation_id)
    note = revert_note(told)
    assert f"reverted your change to {target}" in note and str(workspace / "e.txt") in note
    assert runtime.reverter.changes.take_untold_reverts(scope.conversation_id) == []


async def test_a_file_over_the_cap_is_noted_not_restorable(runtime: Runtime, scope: Scope,
                                                           host: ScriptedHost, workspace: Path) -> None:
    runtime.settings.update(lambda s: setattr(s, "undo_max_file_bytes", 10))
    target = workspace / "big.txt"
    target.write_text("0123456789abcdef\n")
    await _run(runtime, scope, host, "write_file", {"path": "big.txt", "content": "small\n"}, "c1")
    assert runtime.reverter is not None
    [record] = runtime.reverter.changes.for_call("c1")
    assert not record.restorable and record.why_not_restorable is NotRestorable.TOO_LARGE
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert target.read_text() == "small\n" and report.kept[0][1] == RevertIssue(LeftAlone.NOT_RESTORABLE, NotRestorable.TOO_LARGE)


async def test_kept_contents_are_private(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                         workspace: Path, tmp_path: Path) -> None:
    (workspace / "p.txt").write_text("secret\n")
    await _run(runtime, scope, host, "write_file", {"path": "p.txt", "content": "public\n"}, "c1")
    data = tmp_path / "data"
    blobs = data / "undo-blobs"
    assert stat.S_IMODE(blobs.stat().st_mode) == 0o700
    files = [p for p in blobs.rglob("*") if p.is_file()]
    folders = [p for p in blobs.rglob("*") if p.is_dir()]
    assert len(files) == 2  # before and after, once each
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o700 for p in folders)
    assert stat.S_IMODE((data / "changes.sqlite3").stat().st_mode) == 0o600


async def test_denied_call_records_nothing(runtime: Runtime, scope: Scope, workspace: Path) -> None:
    from echo_desk.agent.host import ApprovalChoice

    env = await runtime.dispatcher.execute_tool(
        ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": "x.txt", "content": "x"})),
        scope, ScriptedHost(choice=ApprovalChoice.DENY))
    assert not env.ok
    assert runtime.reverter is not None and runtime.reverter.changes.for_call("c1") == []
