"""A call stopped while its handler writes (the person pressed Stop, a client withdrew the call, the
tool's time ran out) must still leave what it changed in the change log, the audit and the result:
otherwise Revert cannot undo a change that happened, and the record says nothing was changed."""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent import dispatcher as dispatcher_module
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import (
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    Tool,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)
from tests.agent.fake_model import ScriptedModel, calls, say

OLD, NEW = b"the person's text\n", b"the tool's text\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class SlowWriter(Tool):
    """Writes its file, then goes on working: blocking its thread (``blocks``) or awaiting."""

    name = "slow_writer"
    description = "Write a file, then keep working."
    parameters = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})
    timeout_seconds = 60.0

    def __init__(self, *, blocks: bool) -> None:
        self.blocks = blocks
        self.wrote = threading.Event()
        self.go_on = threading.Event()
        self.ended = threading.Event()

    def _change(self, path: Path) -> FileChange:
        old = path.read_bytes() if path.exists() else None
        return FileChange(path=str(path), kind=FileChangeKind.MODIFY if old is not None else FileChangeKind.CREATE,
                          before_sha256=_sha(old) if old is not None else None, after_sha256=_sha(NEW),
                          diff="-old\n+new\n")

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        assert ctx.workspace is not None
        path = ctx.workspace / params["path"]
        return ToolPreview(targets=(Target(kind="path", value=str(path)),), file_changes=(self._change(path),))

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        assert ctx.workspace is not None and ctx.preview is not None
        path = ctx.workspace / params["path"]
        try:
            path.write_bytes(NEW)
            self.wrote.set()
            if self.blocks:
                self.go_on.wait(30)  # a long synchronous step: cancelling cannot stop it
            else:
                await asyncio.sleep(30)  # cancelled here; the file is already written
            return ToolResult.ok("written", file_changes=ctx.preview.file_changes)
        finally:
            self.ended.set()


def _runtime(tmp_path: Path, tool: Tool) -> Runtime:
    return Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path / "data",
                          with_plugins=False, extra_tools=[tool])


def _call(cid: str) -> ToolCall:
    return ToolCall(id=cid, name="slow_writer", arguments=json.dumps({"path": "notes.txt"}))


def _changes_of(runtime: Runtime, cid: str) -> list[tuple[str, str | None, str | None]]:
    return [(r.kind, r.before_sha256, r.after_sha256) for r in runtime.undo.changes.for_calls([cid])]


def _revert(runtime: Runtime, cid: str) -> None:
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls([cid]))
    assert report.complete, (report.kept, report.failed)


@pytest.mark.parametrize("allowed", [False, True], ids=["asked", "always-allowed"])  # one worker trip
@pytest.mark.parametrize("blocks", [True, False], ids=["in-a-blocking-step", "at-an-await"])
async def test_a_call_stopped_after_its_write_is_in_the_change_log_the_audit_and_revert(
        tmp_path: Path, workspace: Path, scope: Scope, host: ScriptedHost, blocks: bool, allowed: bool) -> None:
    target = workspace / "notes.txt"
    target.write_bytes(OLD)
    tool = SlowWriter(blocks=blocks)
    runtime = _runtime(tmp_path, tool)
    if allowed:
        runtime.settings.set_tool("slow_writer", policy=ToolPolicy.ALWAYS)
    try:
        task = asyncio.create_task(runtime.dispatcher.execute_tool(_call("w1"), scope, host))
        assert await asyncio.to_thread(tool.wrote.wait, 10)
        task.cancel()
        await asyncio.sleep(0)  # the cancel reaches the call before its handler goes on
        tool.go_on.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert tool.ended.is_set()  # the call ended after its handler did, not before
        assert target.read_bytes() == NEW
        assert _changes_of(runtime, "w1") == [("modify", _sha(OLD), _sha(NEW))]
        runtime.dispatcher.audit.flush()
        (row,) = runtime.dispatcher.audit.query(tool="slow_writer")
        assert (row["ok"], row["error_kind"], row["decision"]) == (False, "cancelled", "auto" if allowed else "allowed")
        assert [(c["path"], c["kind"]) for c in row["file_changes"]] == [(str(target), "modify")]
        _revert(runtime, "w1")
        assert target.read_bytes() == OLD
    finally:
        tool.go_on.set()
        runtime.close()


@pytest.fixture
def out_of_time(tmp_path: Path) -> Iterator[Runtime]:
    """A runtime whose ``slow_writer`` runs out of time (0.5 s) after it wrote."""
    tool = SlowWriter(blocks=False)
    tool.timeout_seconds = 0.5
    runtime = _runtime(tmp_path, tool)
    yield runtime
    runtime.close()


async def test_a_call_that_times_out_after_its_write_says_what_it_changed(
        out_of_time: Runtime, workspace: Path, scope: Scope, host: ScriptedHost) -> None:
    envelope = await out_of_time.dispatcher.execute_tool(_call("t1"), scope, host)
    created = workspace / "notes.txt"
    assert envelope.error_kind is not None and envelope.error_kind.value == "timeout"
    assert [(c.path, c.kind.value) for c in envelope.file_changes] == [(str(created), "create")]
    assert _changes_of(out_of_time, "t1") == [("create", None, _sha(NEW))]
    _revert(out_of_time, "t1")
    assert not created.exists()


async def test_a_call_stopped_before_it_wrote_records_no_change(
        tmp_path: Path, workspace: Path, scope: Scope, host: ScriptedHost) -> None:
    class WaitsThenWrites(SlowWriter):
        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            self.wrote.set()  # (it has not: it is about to)
            await asyncio.sleep(30)
            raise AssertionError("never reached")

    (workspace / "notes.txt").write_bytes(OLD)
    tool = WaitsThenWrites(blocks=False)
    runtime = _runtime(tmp_path, tool)
    try:
        task = asyncio.create_task(runtime.dispatcher.execute_tool(_call("n1"), scope, host))
        assert await asyncio.to_thread(tool.wrote.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert _changes_of(runtime, "n1") == []
        runtime.dispatcher.audit.flush()
        (row,) = runtime.dispatcher.audit.query(tool="slow_writer")
        assert row["error_kind"] == "cancelled" and row["file_changes"] == []
    finally:
        runtime.close()


async def test_an_answer_about_a_change_a_timed_out_call_made_is_not_marked_unbacked(
        out_of_time: Runtime, workspace: Path, scope: Scope, host: ScriptedHost) -> None:
    model = ScriptedModel([calls(("c1", "slow_writer", '{"path": "notes.txt"}')), say("I wrote notes.txt.")])
    outcome = await AgentLoop(model, out_of_time.dispatcher, out_of_time.schema_factory).run(
        [ChatMessage(role="user", content="x")], scope, host)
    assert not outcome.envelopes["c1"].ok and (workspace / "notes.txt").read_bytes() == NEW
    assert outcome.made_changes and not outcome.unbacked_claim


async def test_a_handler_that_does_not_end_in_time_leaves_what_its_files_show(
        tmp_path: Path, workspace: Path, scope: Scope, host: ScriptedHost, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dispatcher_module, "STOPPED_HANDLER_WAIT_SECONDS", 0.3)
    target = workspace / "notes.txt"
    target.write_bytes(OLD)
    tool = SlowWriter(blocks=True)  # stays in its blocking step until the test lets it go
    runtime = _runtime(tmp_path, tool)
    try:
        task = asyncio.create_task(runtime.dispatcher.execute_tool(_call("s1"), scope, host))
        assert await asyncio.to_thread(tool.wrote.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):  # not a TimeoutError of the bounded wait
            await task
        assert not tool.ended.is_set()
        assert _changes_of(runtime, "s1") == [("modify", _sha(OLD), _sha(NEW))]
    finally:
        tool.go_on.set()
        runtime.close()
