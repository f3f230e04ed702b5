"""A previewed call whose approval is automatic takes one worker round trip; an asked one still
previews, asks, then runs exactly what was shown. Counted with an instrumented pool, not timed."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import threading
import time
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.status import ToolStatus
from echo_desk.agent.worker import Deadline, ToolWorkerPool
from echo_desk.store.settings import ToolPolicy
from echo_desk.tools import ErrorKind, RiskLevel, Target, Tool, ToolExecutionContext, ToolPreview, ToolResult
from tests.agent.fakes import TEXT_SCHEMA, WriteNote, make_engine

T = TypeVar("T")


class CountingPool(ToolWorkerPool):
    """A worker pool that counts round trips and keeps their futures (to wait for stragglers)."""

    def __init__(self) -> None:
        super().__init__()
        self.futures: list[concurrent.futures.Future[Any]] = []

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        future = super().submit(coro)
        self.futures.append(future)
        return future

    async def settled(self) -> None:
        """Every worker loop is done with what it was doing, a step still blocked in its thread
        after the caller gave up included (a cancelled future says nothing about that)."""
        for worker in list(self._workers):
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(asyncio.sleep(0), worker.loop))


class Looked(Tool):
    """A read tool with a preview; records where each step ran and what ``execute`` was handed."""

    name = "looked"
    description = "Preview, then echo."
    parameters = TEXT_SCHEMA
    risk_level = RiskLevel.READ
    timeout_seconds = 5.0

    def __init__(self, preview_sleep: float = 0.0, execute_sleep: float = 0.0) -> None:
        self.preview_sleep, self.execute_sleep = preview_sleep, execute_sleep
        self.steps: list[tuple[str, str]] = []
        self.executed_with: ToolPreview | None = None
        self.previewing = threading.Event()

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        self.steps.append(("preview", threading.current_thread().name))
        self.previewing.set()
        time.sleep(self.preview_sleep)  # noqa: ASYNC251 -- blocking on purpose: only the caller's timer ends it
        return ToolPreview(targets=(Target(kind="other", value=params["text"]),), summary="look")

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        self.steps.append(("execute", threading.current_thread().name))
        self.executed_with = ctx.preview
        time.sleep(self.execute_sleep)  # noqa: ASYNC251 -- blocking on purpose
        return ToolResult.ok(params["text"])


def call(name: str, args: object, cid: str = "c1") -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=json.dumps(args))


def engine_with(tmp_path: Path, engines: list, *tools: Tool) -> tuple[Any, CountingPool, Any]:
    dispatcher, _, settings = make_engine(tmp_path, *tools)
    dispatcher.workers.close()
    dispatcher.workers = pool = CountingPool()
    engines.append(dispatcher)
    return dispatcher, pool, settings


async def test_an_automatic_previewed_call_takes_one_worker_round_trip(tmp_path, engines, scope, host) -> None:
    tool = Looked()
    dispatcher, pool, _ = engine_with(tmp_path, engines, tool)
    statuses: list[ToolStatus] = []
    env = await dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host, on_status=statuses.append)
    assert env.ok and env.content == "hi"
    assert len(pool.futures) == 1, "preview and execute should share one round trip"
    assert [step for step, _ in tool.steps] == ["preview", "execute"]
    assert tool.steps[0][1] == tool.steps[1][1] != threading.current_thread().name
    assert tool.executed_with is not None and tool.executed_with.targets[0].value == "hi"  # what was previewed
    assert host.requests == []
    assert statuses == [ToolStatus.RUNNING]  # reported on the caller's loop, before the result


async def test_an_asked_call_previews_asks_then_runs_the_bound_content(tmp_path, engines, scope, workspace) -> None:
    order: list[str] = []

    class Recording(ScriptedHost):
        async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            order.append("ask")
            return await super().request_approval(request)

    class Traced(WriteNote):
        async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
            order.append("preview")
            return await super().preview(params, ctx)

        async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
            order.append("execute")
            self.ran_with = ctx.preview
            return await super().execute(params, ctx)

    tool = Traced()
    dispatcher, pool, _ = engine_with(tmp_path, engines, tool)
    host = Recording(choice=ApprovalChoice.ALLOW_ONCE)
    statuses: list[ToolStatus] = []
    env = await dispatcher.execute_tool(call("write_note", {"path": "n.txt", "content": "v1"}), scope, host,
                                        on_status=statuses.append)
    assert env.ok and (workspace / "n.txt").read_text() == "v1"
    assert order == ["preview", "ask", "execute"]
    assert len(pool.futures) == 2  # the preview's trip came back for the question
    (request,) = host.requests
    assert tool.ran_with is not None and tool.ran_with.file_changes == request.file_changes  # what was shown ran
    assert statuses == [ToolStatus.WAITING_APPROVAL, ToolStatus.RUNNING]
    rows = dispatcher.audit.query(limit=1)
    assert rows[0]["decision"] == "allowed"


async def test_a_call_refused_by_settings_previews_once_and_never_runs(tmp_path, engines, scope, host) -> None:
    tool = Looked()
    dispatcher, pool, settings = engine_with(tmp_path, engines, tool)
    settings.set_tool("looked", policy=ToolPolicy.NEVER)
    env = await dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host)
    assert env.error_kind is ErrorKind.REJECTED
    assert [step for step, _ in tool.steps] == ["preview"] and len(pool.futures) == 1
    assert dispatcher.breakers.try_acquire("looked")  # nothing ran: no probe left taken


async def test_an_always_allowed_write_runs_on_the_same_trip_with_the_previewed_change(
        tmp_path, engines, scope, host, workspace) -> None:
    dispatcher, pool, settings = engine_with(tmp_path, engines, WriteNote())
    settings.set_tool("write_note", policy=ToolPolicy.ALWAYS)
    (workspace / "n.txt").write_text("old")
    env = await dispatcher.execute_tool(call("write_note", {"path": "n.txt", "content": "new"}), scope, host)
    assert env.ok and (workspace / "n.txt").read_text() == "new"
    assert len(pool.futures) == 1 and host.requests == []
    assert dispatcher.audit.query(limit=1)[0]["decision"] == "auto"


async def test_a_preview_past_its_limit_stops_the_call_and_nothing_runs_after(tmp_path, engines, scope, host) -> None:
    tool = Looked(preview_sleep=0.6)
    tool.timeout_seconds = 0.2
    dispatcher, pool, _ = engine_with(tmp_path, engines, tool)
    env = await dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host)
    assert env.error_kind is ErrorKind.TIMEOUT and env.error.startswith("preview failed")
    await pool.settled()  # the blocked preview returned; the worker would have gone on from there
    assert [step for step, _ in tool.steps] == ["preview"]


async def test_preview_and_execute_each_get_their_own_time_limit(tmp_path, engines, scope, host) -> None:
    # Either step fits; both together would not. Each step has 0.8 s to spare: a loaded 2-core
    # machine can start a thread or wake a sleep a few tenths of a second late.
    tool = Looked(preview_sleep=1.2, execute_sleep=1.2)
    tool.timeout_seconds = 2.0
    dispatcher, pool, _ = engine_with(tmp_path, engines, tool)
    env = await dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host)
    assert env.ok, env.error
    assert len(pool.futures) == 1


async def test_an_execute_past_its_limit_times_out_as_the_run(tmp_path, engines, scope, host) -> None:
    tool = Looked(execute_sleep=0.6)
    tool.timeout_seconds = 0.2
    tool.max_retries = 0
    dispatcher, _, _ = engine_with(tmp_path, engines, tool)
    env = await dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host)
    assert env.error_kind is ErrorKind.TIMEOUT and not env.error.startswith("preview failed")
    assert dispatcher.breakers.status("looked").consecutive_failures == 1  # the run counts


async def test_a_step_never_starts_once_the_caller_gave_up() -> None:
    deadline = Deadline(5.0)
    assert deadline.abandon() == 0
    assert deadline.next_step() is False and deadline.step == 0


async def test_a_deadline_moved_by_the_worker_keeps_the_trip_alive() -> None:
    pool = ToolWorkerPool()
    # Each step fits, with 0.8 s to spare for a loaded machine; both together would not.
    deadline = Deadline(2.0)

    async def two_steps() -> int:
        await asyncio.sleep(1.2)
        assert deadline.next_step()
        await asyncio.sleep(1.2)
        return deadline.step

    try:
        assert await pool.run(two_steps(), deadline) == 1
    finally:
        pool.close()


async def test_a_call_cancelled_during_its_preview_never_runs(tmp_path, engines, scope, host) -> None:
    tool = Looked(preview_sleep=0.5)
    dispatcher, pool, _ = engine_with(tmp_path, engines, tool)
    task = asyncio.create_task(dispatcher.execute_tool(call("looked", {"text": "hi"}), scope, host))
    assert await asyncio.to_thread(tool.previewing.wait, 5), "the preview never started"
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await pool.settled()  # the blocked preview returned; nothing may follow it
    assert [step for step, _ in tool.steps] == ["preview"]
    (row,) = dispatcher.audit.query(limit=1)
    assert (row["error_kind"], row["decision"]) == ("cancelled", "not_asked")  # no one was asked yet
