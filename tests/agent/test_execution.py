"""Handlers on worker threads: blocking, timeouts, retries, crashes, cancellation, breaker."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest

from echo_desk.agent.breaker import BreakerState
from echo_desk.agent.host import ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.registry import ToolRegistry
from echo_desk.tools import ErrorKind, RiskLevel
from tests.agent.fakes import Echo, Flaky, Raiser, Sleeper, WaitsForCancel, WriteNote, make_engine


def call(name: str, args: object = None, cid: str = "c1") -> ToolCall:
    return ToolCall(id=cid, name=name, arguments=json.dumps(args or {}))


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_blocking_handler_stalls_neither_the_loop_nor_other_tools(tmp_path, engines, scope, host) -> None:
    dispatcher, _, _ = make_engine(tmp_path, Sleeper(), Echo())
    engines.append(dispatcher)
    gaps: list[float] = []
    stop = asyncio.Event()

    async def heartbeat() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    beat = asyncio.create_task(heartbeat())
    slow = asyncio.create_task(dispatcher.execute_tool(call("sleeper", {"seconds": 1.5}), scope, host))
    await asyncio.sleep(0.05)
    started = time.perf_counter()
    quick = await dispatcher.execute_tool(call("echo", {"text": "fast"}, cid="c2"), scope, host)
    quick_took = time.perf_counter() - started
    assert quick.ok and not slow.done()
    assert quick_took < 0.5, f"the echo call waited {quick_took:.2f}s behind a blocked handler"
    assert (await slow).ok
    stop.set()
    await beat
    assert max(gaps) < 0.25, f"the caller's loop stalled for {max(gaps):.3f}s"


async def test_timeout_returns_on_time_even_when_the_handler_blocks(tmp_path, engines, scope, host) -> None:
    sleeper = Sleeper()
    sleeper.timeout_seconds = 0.3  # type: ignore[misc]
    dispatcher, _, _ = make_engine(tmp_path, sleeper)
    engines.append(dispatcher)
    started = time.perf_counter()
    env = await dispatcher.execute_tool(call("sleeper", {"seconds": 3}), scope, host)
    took = time.perf_counter() - started
    assert env.error_kind is ErrorKind.TIMEOUT and "0.3" in env.error
    assert took < 1.5


async def test_raising_handler_is_internal_with_type_and_message(tmp_path, engines, scope, host) -> None:
    dispatcher, _, _ = make_engine(tmp_path, Raiser())
    engines.append(dispatcher)
    env = await dispatcher.execute_tool(call("raiser"), scope, host)
    assert env.error_kind is ErrorKind.INTERNAL
    assert env.error == "KeyError: 'boom'"


async def test_read_tool_is_retried_for_infrastructure_failures(tmp_path, engines, scope, host) -> None:
    flaky = Flaky(failures=2)
    dispatcher, _, _ = make_engine(tmp_path, flaky)
    engines.append(dispatcher)
    env = await dispatcher.execute_tool(call("flaky"), scope, host)
    assert env.ok and flaky.calls == 3


async def test_business_errors_are_not_retried(tmp_path, engines, scope, host) -> None:
    flaky = Flaky(failures=1, kind=ErrorKind.BUSINESS)
    dispatcher, _, _ = make_engine(tmp_path, flaky)
    engines.append(dispatcher)
    env = await dispatcher.execute_tool(call("flaky"), scope, host)
    assert env.error_kind is ErrorKind.BUSINESS and flaky.calls == 1


async def test_write_tools_are_not_retried_unless_idempotent(tmp_path, engines, scope, host) -> None:
    flaky = Flaky(failures=1, risk=RiskLevel.WRITE)
    dispatcher, _, _ = make_engine(tmp_path, flaky)
    engines.append(dispatcher)
    env = await dispatcher.execute_tool(call("flaky"), scope, host)
    assert env.error_kind is ErrorKind.DEPENDENCY and flaky.calls == 1
    flaky.idempotent = True  # type: ignore[misc]
    flaky.calls, flaky.failures = 0, 1
    assert (await dispatcher.execute_tool(call("flaky"), scope, host)).ok and flaky.calls == 2


async def test_cancellation_propagates_reaches_the_handler_and_is_recorded(tmp_path, engines, scope, host) -> None:
    waits = WaitsForCancel()
    dispatcher, _, _ = make_engine(tmp_path, waits)
    engines.append(dispatcher)
    task = asyncio.create_task(dispatcher.execute_tool(call("waits", cid="w1"), scope, host))
    assert await asyncio.to_thread(waits.started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(waits.saw_cancel.wait, 5)
    (row,) = dispatcher.audit.query(tool="waits")
    assert (row["ok"], row["error_kind"]) == (False, "cancelled")


class AsksAndNeverAnswers(ScriptedHost):
    """A person who is shown the dialog and has not answered when the call is withdrawn."""

    def __init__(self) -> None:
        super().__init__()
        self.shown = asyncio.Event()

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        self.shown.set()
        await asyncio.Event().wait()
        raise AssertionError("never answered")


async def test_a_call_withdrawn_while_its_dialog_is_open_is_audited_as_withdrawn_not_unasked(
        tmp_path, engines, scope) -> None:
    dispatcher, _, _ = make_engine(tmp_path, WriteNote())
    engines.append(dispatcher)
    person = AsksAndNeverAnswers()
    task = asyncio.create_task(dispatcher.execute_tool(
        call("write_note", {"path": "n.txt", "content": "x"}), scope, person))
    await asyncio.wait_for(person.shown.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (row,) = dispatcher.audit.query(tool="write_note")
    assert (row["decision"], row["error_kind"], row["ok"]) == ("withdrawn", "cancelled", False)
    assert not (scope.workspace_roots[0] / "n.txt").exists()


async def test_breaker_opens_fails_fast_hides_probes_and_closes(tmp_path, engines, scope, host) -> None:
    clock = FakeClock()
    flaky = Flaky(failures=100, kind=ErrorKind.INTERNAL)
    dispatcher, factory, settings = make_engine(tmp_path, flaky, clock=clock)
    engines.append(dispatcher)
    for _ in range(3):
        assert (await dispatcher.execute_tool(call("flaky"), scope, host)).error_kind is ErrorKind.INTERNAL
    assert dispatcher.breakers.status("flaky").state is BreakerState.OPEN
    assert "flaky" not in {d.name for d in factory.definitions(scope)}
    reason = next(a.reason for a in factory.availability(scope) if a.name == "flaky")
    assert "paused after 3 failures" in reason

    calls_before = flaky.calls
    started = time.perf_counter()
    fast = await dispatcher.execute_tool(call("flaky"), scope, host)
    assert time.perf_counter() - started < 0.01
    assert fast.error_kind is ErrorKind.DEPENDENCY and "paused" in fast.error
    assert flaky.calls == calls_before

    clock.now += settings.current.breaker_cooldown_seconds + 1
    assert dispatcher.breakers.status("flaky").state is BreakerState.HALF_OPEN
    await dispatcher.execute_tool(call("flaky"), scope, host)  # the probe fails → open again
    assert dispatcher.breakers.status("flaky").state is BreakerState.OPEN

    clock.now += settings.current.breaker_cooldown_seconds + 1
    flaky.failures = 0
    assert (await dispatcher.execute_tool(call("flaky"), scope, host)).ok
    assert dispatcher.breakers.status("flaky").state is BreakerState.CLOSED
    assert "flaky" in {d.name for d in factory.definitions(scope)}


async def test_validation_failures_do_not_trip_the_breaker(tmp_path, engines, scope, host) -> None:
    dispatcher, _, _ = make_engine(tmp_path, Echo())
    engines.append(dispatcher)
    for _ in range(5):
        await dispatcher.execute_tool(call("echo", {"text": 1}), scope, host)
    assert dispatcher.breakers.status("echo").state is BreakerState.CLOSED


def test_audit_survives_restart(tmp_path: Path) -> None:
    from echo_desk.store.audit import AuditLog, AuditRecord

    log = AuditLog(tmp_path / "a.sqlite3")
    log.append(AuditRecord(at=1.0, conversation_id="c", scope_chain=("c",), call_id="x", tool="t", source="builtin",
                           arguments={}, decision="auto", provenance="p", ok=True, error_kind=None, error="",
                           duration_ms=1.0))
    log.close()
    again = AuditLog(tmp_path / "a.sqlite3")
    assert [r["call_id"] for r in again.query()] == ["x"]
    again.close()


class _ThreadReporter(Echo):
    """Echo that records which thread its preview and execute ran on."""

    name = "thread_reporter"

    def __init__(self) -> None:
        self.threads: dict[str, str] = {}

    async def preview(self, params, ctx):  # type: ignore[no-untyped-def]
        self.threads["preview"] = threading.current_thread().name
        return None

    async def execute(self, params, ctx):  # type: ignore[no-untyped-def]
        self.threads["execute"] = threading.current_thread().name
        return await super().execute(params, ctx)


@pytest.mark.parametrize("offloaded", [False, True])
async def test_only_engine_offloaded_adapters_run_on_the_callers_loop(
    tmp_path, engines, scope, host, offloaded
) -> None:
    dispatcher, _, _ = make_engine(tmp_path)
    engines.append(dispatcher)
    reporter = _ThreadReporter()
    assert dispatcher.registry.register(reporter, offloaded=offloaded).ok
    env = await dispatcher.execute_tool(call("thread_reporter", {"text": "hi"}), scope, host)
    assert env.ok, env.error
    here = threading.current_thread().name
    if offloaded:
        assert reporter.threads == {"preview": here, "execute": here}
    else:
        assert all(name.startswith("echo-desk-tool-worker-") for name in reporter.threads.values()), (
            reporter.threads
        )
        assert set(reporter.threads) == {"preview", "execute"}


def test_plugins_cannot_ask_to_run_on_the_callers_loop() -> None:
    registry = ToolRegistry()
    registry.load_plugins()  # the weather example is installed in the test venv
    assert registry.entries() and not any(entry.offloaded for entry in registry.entries())


async def test_an_offloaded_handler_still_times_out_and_cancels(tmp_path, engines, scope, host) -> None:
    waits = WaitsForCancel()
    waits.timeout_seconds = 0.2  # type: ignore[misc]
    dispatcher, _, _ = make_engine(tmp_path)
    engines.append(dispatcher)
    assert dispatcher.registry.register(waits, offloaded=True).ok
    started = time.perf_counter()
    env = await dispatcher.execute_tool(call("waits"), scope, host)
    assert env.error_kind is ErrorKind.TIMEOUT and time.perf_counter() - started < 2
    assert waits.saw_cancel.is_set()
    waits.saw_cancel.clear()
    waits.timeout_seconds = 30  # type: ignore[misc]
    task = asyncio.create_task(dispatcher.execute_tool(call("waits", cid="w2"), scope, host))
    await asyncio.to_thread(waits.started.wait, 5)
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert waits.saw_cancel.is_set()


def test_deferred_audit_records_keep_their_order_and_a_failing_one_stops_nothing(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from echo_desk.store.audit import AuditLog, AuditRecord

    def record(call_id: str) -> AuditRecord:
        return AuditRecord(at=1.0, conversation_id="c", scope_chain=("c",), call_id=call_id, tool="t",
                           source="builtin", arguments={"token": "sk-abcdefghijklmnopqrstuvwx"}, decision="auto",
                           provenance="p", ok=True, error_kind=None, error="", duration_ms=1.0)

    def broken() -> AuditRecord:
        raise RuntimeError("boom")

    log = AuditLog(tmp_path / "a.sqlite3")
    log.append(record("first"))
    log.append_deferred(lambda: record("second"))
    log.append_deferred(broken)
    log.append(record("third"))
    rows = log.query()
    log.close()
    assert [r["call_id"] for r in rows] == ["third", "second", "first"]
    assert rows[1]["arguments"] == {"token": "«redacted»"}  # redacted as any row
    assert "could not be put together" in caplog.text
