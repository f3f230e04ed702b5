"""The per-call context's cancel event: made on first read, one per context, shared by threads."""

from __future__ import annotations

import dataclasses
import threading

from echo_desk.tools import ToolExecutionContext


def _ctx(**kwargs: object) -> ToolExecutionContext:
    return ToolExecutionContext(call_id="c", tool_name="t", scope_id="s", **kwargs)  # type: ignore[arg-type]


def test_each_context_has_its_own_event_and_the_same_one_on_every_read() -> None:
    a, b = _ctx(), _ctx()
    assert isinstance(a.cancel_event, threading.Event)
    assert a.cancel_event is a.cancel_event
    assert a.cancel_event is not b.cancel_event
    a.cancel_event.set()
    assert a.cancelled and not b.cancelled


def test_a_given_event_is_the_one_used_and_replace_keeps_it() -> None:
    given = threading.Event()
    ctx = _ctx(cancel_event=given)
    assert ctx.cancel_event is given
    copy = dataclasses.replace(ctx, call_id="other")
    given.set()
    assert copy.cancelled and ctx.cancelled


def _first_reads_at_once(ctx: ToolExecutionContext, threads: int) -> list[threading.Event]:
    seen: list[threading.Event] = []
    start = threading.Barrier(threads)

    def read() -> None:
        start.wait()
        seen.append(ctx.cancel_event)

    running = [threading.Thread(target=read) for _ in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join()
    return seen


def test_threads_reading_it_first_at_once_all_get_the_same_event() -> None:
    for _ in range(50):
        ctx = _ctx()
        seen = _first_reads_at_once(ctx, 8)
        assert len(seen) == 8 and len({id(e) for e in seen}) == 1
        seen[0].set()
        assert ctx.cancelled  # the event every thread holds is the context's own
