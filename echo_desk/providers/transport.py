"""HTTP plumbing shared by the providers: bounded retries with backoff, and SSE parsing.

``open_stream`` sends one streaming request, retrying busy answers (429/5xx) a bounded
number of times; ``iter_sse`` turns the body into server-sent events. The sleep is injectable
so tests never wait.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from echo_desk.agent.model import ModelErrorKind
from echo_desk.providers.errors import RETRYABLE_STATUSES, error_for_status, error_for_transport

Sleep = Callable[[float], Awaitable[None]]

#: CPU models can think for a long time before the first token; connecting should be quick.
DEFAULT_TIMEOUT = httpx.Timeout(300.0, connect=10.0)


@dataclass
class RetryPolicy:
    """How often and how patiently to retry a busy server. ``attempts`` counts the first try."""

    attempts: int = 3
    base_delay: float = 1.0
    max_delay: float = 20.0
    sleep: Sleep = field(default=asyncio.sleep)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed ``attempt`` (1-based): the server's wish, else jittered backoff."""
        if retry_after is not None:
            return float(min(max(retry_after, 0.0), self.max_delay))
        backoff = self.base_delay * (2 ** (attempt - 1))
        return float(min(backoff * (0.75 + random.random() / 2), self.max_delay))


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    url: str,
    *,
    body: Mapping[str, Any],
    headers: Mapping[str, str],
    policy: RetryPolicy,
    base_url: str,
    model: str,
) -> AsyncIterator[httpx.Response]:
    """POST ``body`` as JSON and yield the streaming response once it answered 2xx.

    Raises ``ModelError`` for refused connections (at once: retrying a closed port only makes
    the person wait), for error statuses after the retries are spent, and for timeouts.
    """
    attempt = 0
    while True:
        attempt += 1
        request = client.build_request("POST", url, json=dict(body), headers=dict(headers))
        try:
            response = await client.send(request, stream=True)
        except httpx.ConnectError as exc:
            raise error_for_transport(exc, base_url=base_url) from None
        except httpx.TransportError as exc:
            if attempt < policy.attempts:
                await policy.sleep(policy.delay(attempt, None))
                continue
            raise error_for_transport(exc, base_url=base_url) from None
        if response.status_code >= 400:
            try:
                raw = await response.aread()
            except httpx.TransportError:
                raw = b""
            finally:
                await response.aclose()
            error = error_for_status(response.status_code, raw, base_url=base_url, model=model)
            retryable = response.status_code in RETRYABLE_STATUSES and error.kind != ModelErrorKind.MODEL_OUTPUT
            if retryable and attempt < policy.attempts:
                await policy.sleep(policy.delay(attempt, _retry_after(response)))
                continue
            raise error
        try:
            yield response
        finally:
            await response.aclose()
        return


@dataclass(frozen=True)
class SSEEvent:
    event: str
    data: str


async def iter_sse(response: httpx.Response, *, base_url: str) -> AsyncIterator[SSEEvent]:
    """Server-sent events from ``response``; a connection cut mid-stream becomes a ``ModelError``."""
    event = ""
    data: list[str] = []
    try:
        async for line in response.aiter_lines():
            if line == "":
                if data:
                    yield SSEEvent(event or "message", "\n".join(data))
                event, data = "", []
                continue
            if line.startswith(":"):
                continue  # comment / keep-alive
            name, _sep, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
        if data:
            yield SSEEvent(event or "message", "\n".join(data))
    except httpx.TransportError as exc:
        raise error_for_transport(exc, base_url=base_url) from None


def make_client(transport: httpx.AsyncBaseTransport | None = None) -> httpx.AsyncClient:
    """The client a provider owns. ``transport`` lets tests plug in ``httpx.MockTransport``."""
    return httpx.AsyncClient(timeout=DEFAULT_TIMEOUT, transport=transport)

