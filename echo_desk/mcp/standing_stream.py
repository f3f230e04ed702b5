"""The end of an HTTP server's standing event stream: the one sign, between calls, that it went away.

Between calls nothing goes to an HTTP server, so one that died while idle stayed "Connected"
until the next call failed. A standing event stream is the exception: the older SSE transport's
``GET`` stream carries every answer of the server's, and streamable HTTP's ``GET`` stream is the
one the server may send on unasked. When the server's process ends, the stream ends under us.
The SDK does not say so: the SSE transport only fails the next request, and the streamable HTTP
transport opens the ``GET`` again twice and gives up without a word.

The hook here wraps the body of each ``GET`` answered with an event stream and calls ``ended``
when the server ended it: read to its end (``None``), or cut off (the ``httpx2.TransportError``).
Not when Echo Desk stops reading it (closing the connection cancels the read), nor when the
cap refuses an event (``body_cap``, which says why itself). What the end means is the
connection's to decide (``ServerConnection._standing_stream_ended``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2

#: Told how a standing stream ended: ``None`` when it was read to its end.
Ended = Callable[[httpx2.TransportError | None], None]


class _Watched(httpx2.AsyncByteStream):
    def __init__(self, stream: httpx2.AsyncByteStream, ended: Ended) -> None:
        self._stream = stream
        self._ended = ended

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._stream:
                yield chunk
        except httpx2.TransportError as exc:
            self._ended(exc)
            raise
        self._ended(None)

    async def aclose(self) -> None:
        await self._stream.aclose()

    @property
    def elapsed(self) -> Any:
        # ``Response.elapsed`` reads it from the client's own stream.
        return getattr(self._stream, "elapsed", None)


def watch_hook(ended: Ended) -> Callable[[httpx2.Response], Any]:
    """A response hook that watches every ``GET`` answered with ``text/event-stream``."""

    async def watch(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if response.request.method == "GET" and response.is_success and content_type == "text/event-stream":
            response.stream = _Watched(response.stream, ended)  # type: ignore[arg-type]

    return watch
