"""Bounded HTTP for the sign-in: no redirects followed, answers capped, JSON objects only.

Every document an authorization server sends is untrusted: a huge or malformed one is refused
with the step that asked for it, and a redirect is never followed (it could lead anywhere,
an address on this machine included).
"""

from __future__ import annotations

from typing import Any

import httpx2

from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_
from echo_desk.mcp.oauth.errors import SignInError, SignInStep, cannot_reach
from echo_desk.mcp.oauth.origins import acceptable_origin

#: Metadata, registrations and token answers are a few KB; 256 KiB is far beyond any real one.
MAX_ANSWER_BYTES = 256 * 1024
TIMEOUT_SECONDS = 20.0


def new_client() -> httpx2.AsyncClient:
    return httpx2.AsyncClient(follow_redirects=False, timeout=httpx2.Timeout(TIMEOUT_SECONDS), trust_env=False)


def require_origin(url: str, step: SignInStep) -> None:
    if not acceptable_origin(url):
        raise SignInError(step, N_("{url} is not an https:// address; sign-in documents must use HTTPS"), url=url)


async def send(
    client: httpx2.AsyncClient, step: SignInStep, method: str, url: str, **kwargs: Any
) -> tuple[int, dict[str, Any] | None, httpx2.Headers]:
    """The status, the JSON object (``None`` when the body is not one) and the headers.

    A body over ``MAX_ANSWER_BYTES`` and a redirect are errors of ``step``."""
    require_origin(url, step)
    try:
        async with client.stream(method, url, **kwargs) as response:
            if 300 <= response.status_code < 400:
                raise SignInError(step, N_("{url} redirects to {location}; redirects are not followed"),
                                  url=url, location=response.headers.get("location", "?"))
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > MAX_ANSWER_BYTES:
                    raise SignInError(step, N_("the answer from {url} is larger than {limit} KiB"),
                                      url=url, limit=MAX_ANSWER_BYTES // 1024)
            status, headers = response.status_code, response.headers
    except httpx2.HTTPError as exc:
        raise cannot_reach(step, url, exc) from exc
    try:
        value = read_json(bytes(body))
    except (ValueError, RecursionError):
        value = None
    return status, value if isinstance(value, dict) else None, headers
