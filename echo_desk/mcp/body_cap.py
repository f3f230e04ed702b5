"""No answer of an HTTP server is read past ``line_cap.MAX_LINE_BYTES``, as no line of a stdio one.

The SDK's HTTP transports read a JSON answer whole (``response.aread()``: streamable HTTP's answer
to a request, its error bodies, the older SSE transport's answer to each POST), with no limit: a
server that answered with a body that never ends (chunks, or a ``Content-Length`` of a terabyte)
grew Echo Desk's memory until the call's time-out. The HTTP client built here counts each
answer's body as it is read: once it passes the cap, the server is failed with why
(``too_long``) and the read ends with ``AnswerTooLong``; a ``Content-Length`` past the cap is
refused before any of the body is read.

An event stream (``text/event-stream``) may rightly run for hours: it is counted event by event
instead. The SDK's reader holds no event past its own limit (``max_sse_event_size``, 1 MB), but
when an event passes it, the SDK says only that the connection closed (streamable HTTP), or ends
the session (the older SSE transport): the person read "the connection was lost". Counted here
first (``MAX_EVENT_BYTES``, the SDK's limit, with every byte of the event counted, so it is never
reached after the SDK's), the server is failed with why (``event_too_long``) before the SDK sees
the event. Answers are asked for uncompressed (``Accept-Encoding: identity``), and one
compressed all the same is refused (``encoded``): the client inflates it above what is counted
here, and 200 KB of gzip are 200 MB inflated.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE
from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

from echo_desk.mcp.line_cap import MAX_LINE_BYTES
from echo_desk.mcp.standing_stream import Ended, watch_hook

#: The longest event of an event stream read: the SDK's own limit (for both HTTP transports).
MAX_EVENT_BYTES = DEFAULT_MAX_SSE_EVENT_SIZE
#: Where an event ends: a line ending right after a line ending (``\r\n`` holds no other pair).
_EVENT_END = re.compile(rb"\n\n|\r\r|\n\r")


class AnswerTooLong(httpx2.StreamError):
    """The server's answer passed the cap; the rest of it is not read.

    A ``StreamError``: where the SDK reads a JSON answer whole, it answers the request it was for
    with this error at once (the connection then ends: ``too_long``)."""


class _CappedBody(httpx2.AsyncByteStream):
    """``stream`` as it is, until ``limit`` bytes have come: then ``too_long`` and ``AnswerTooLong``."""

    def __init__(self, stream: httpx2.AsyncByteStream, too_long: Callable[[], None], limit: int) -> None:
        self._stream = stream
        self._too_long = too_long
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = 0
        async for chunk in self._stream:
            read += len(chunk)
            if read > self._limit:
                self._too_long()
                raise AnswerTooLong(f"the server's answer is longer than {self._limit} bytes; the rest was not read")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()

    @property
    def elapsed(self) -> Any:
        # ``Response.elapsed`` reads it from the client's own stream.
        return getattr(self._stream, "elapsed", None)


class _CappedEvents(_CappedBody):
    """An event stream as it is, until one event (the bytes since the last blank line, line
    endings and comments counted too) passes ``limit``: then ``too_long`` and ``AnswerTooLong``."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        event = 0  # bytes of the event under way
        last = b""  # the byte before this chunk: a blank line can span two chunks
        async for chunk in self._stream:
            seen = last + chunk
            begun = len(last) - event  # where the event under way began in ``seen``
            longest = 0  # of the events that end in this chunk
            for end in _EVENT_END.finditer(seen):
                longest = max(longest, end.start() - begun)
                begun = end.end()
            event = len(seen) - begun
            if max(longest, event) > self._limit:
                self._too_long()
                raise AnswerTooLong(f"the server sent an event longer than {self._limit} bytes; the rest was not read")
            last = chunk[-1:] or last
            yield chunk


def _hook(too_long: Callable[[], None], encoded: Callable[[], None], event_too_long: Callable[[], None],
          limit: int) -> Callable[[httpx2.Response], Any]:
    async def cap(response: httpx2.Response) -> None:
        # First, event streams too: one 64 KB piece of a compressed stream inflates at once, to
        # 64 MB and more, before the SDK's reader counts any of it.
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            encoded()
            raise AnswerTooLong(f"the server's answer is compressed ({encoding[:40]}); it was not read")
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if content_type == "text/event-stream":
            # Read event by event: each is counted, not the stream (see the module doc).
            response.stream = _CappedEvents(response.stream, event_too_long, MAX_EVENT_BYTES)  # type: ignore[arg-type]
            return
        length = response.headers.get("content-length", "").strip()
        if length.isdigit() and int(length) > limit:
            too_long()
            raise AnswerTooLong(f"the server's answer is {length[:40]} bytes, past {limit}; it was not read")
        response.stream = _CappedBody(response.stream, too_long, limit)  # type: ignore[arg-type]
    return cap


def capped_http_client(too_long: Callable[[], None], encoded: Callable[[], None], event_too_long: Callable[[], None],
                       *, limit: int = MAX_LINE_BYTES, headers: dict[str, str] | None = None,
                       timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None,
                       stream_ended: Ended | None = None) -> httpx2.AsyncClient:
    """``mcp.shared._httpx_utils.create_mcp_http_client`` (same time-outs), whose answers are
    capped: ``too_long`` is told when one passes ``limit``, ``encoded`` when one comes compressed,
    ``event_too_long`` when an event of an event stream passes ``MAX_EVENT_BYTES``;
    ``stream_ended`` when the server ends a standing event stream (``standing_stream``).
    Also the ``httpx_client_factory`` of the SDK's SSE client (with the three bound)."""
    return httpx2.AsyncClient(
        headers={**{k: v for k, v in (headers or {}).items() if k.lower() != "accept-encoding"},
                 "Accept-Encoding": "identity"},
        timeout=timeout or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
        auth=auth,
        # A hook, not a wrapped transport: it sees every answer, through a proxy from the
        # environment too, and those an ``auth`` flow asks for.
        # The watch after the cap: it sees the stream as the cap passes it on.
        event_hooks={"response": [_hook(too_long, encoded, event_too_long, limit),
                                  *([watch_hook(stream_ended)] if stream_ended is not None else [])]})
