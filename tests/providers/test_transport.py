"""SSE parsing and retry delays."""

from __future__ import annotations

import httpx

from echo_desk.providers.transport import RetryPolicy, SSEEvent, iter_sse


async def test_sse_multiline_data_comments_crlf_and_unterminated_tail() -> None:
    body = b": keep-alive\r\nevent: a\r\ndata: one\r\ndata: two\r\n\r\ndata:x\n\ndata: tail"
    response = httpx.Response(200, content=body)
    events = [e async for e in iter_sse(response, base_url="http://127.0.0.1:1")]
    assert events == [SSEEvent("a", "one\ntwo"), SSEEvent("message", "x"), SSEEvent("message", "tail")]


def test_retry_delay_honours_server_and_caps() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    assert policy.delay(1, 3.0) == 3.0
    assert policy.delay(1, 999.0) == 5.0
    assert 0.75 <= policy.delay(1, None) <= 1.25
    assert 3.0 <= policy.delay(3, None) <= 5.0
