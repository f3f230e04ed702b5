"""``body_cap`` counts an event stream event by event: events of any number pass, whatever the
stream's length, its line endings or where its pieces split; one event past the limit ends it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2
import pytest

from echo_desk.mcp.body_cap import MAX_EVENT_BYTES, AnswerTooLong, _CappedEvents


class _Pieces(httpx2.AsyncByteStream):
    def __init__(self, data: bytes, size: int) -> None:
        self._pieces = [data[i:i + size] for i in range(0, len(data), size)]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            yield piece


async def _read(data: bytes, size: int) -> tuple[bytes, int]:
    told: list[int] = []
    out = b"".join([chunk async for chunk in _CappedEvents(_Pieces(data, size), lambda: told.append(1), MAX_EVENT_BYTES)])
    return out, len(told)


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("size", [1, 2, 3, 65536])
async def test_many_events_pass_however_they_are_split(ending: bytes, size: int) -> None:
    event = b"event: message" + ending + b"data: " + b"x" * 900 + ending + b": ping" + ending + ending
    data = event * (3 * MAX_EVENT_BYTES // len(event) if size > 3 else 3)
    assert await _read(data, size) == (data, 0)


async def test_an_event_just_under_the_limit_passes_and_one_past_it_is_refused() -> None:
    under = b"data: " + b"x" * (MAX_EVENT_BYTES - 8) + b"\n\n"
    assert await _read(under * 3, 65536) == (under * 3, 0)
    past = b"data: x\n\n" + b"data: " + b"x" * MAX_EVENT_BYTES + b"\n\n"
    told: list[int] = []
    with pytest.raises(AnswerTooLong, match="event longer than"):
        async for _chunk in _CappedEvents(_Pieces(past, 65536), lambda: told.append(1), MAX_EVENT_BYTES):
            pass
    assert told == [1]


def test_the_limit_is_the_sdks_for_both_transports() -> None:
    # Counted here first only while it is not above the SDK's own (each byte counts here, not
    # every byte there): the SDK would cut the event first, saying only "connection closed".
    import inspect

    from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE
    from mcp.shared._httpx_utils import sse_within_origin

    assert MAX_EVENT_BYTES == DEFAULT_MAX_SSE_EVENT_SIZE
    assert inspect.signature(sse_within_origin).parameters["max_event_size"].default == MAX_EVENT_BYTES
