"""The loopback redirect listener: 127.0.0.1, a random port, one ``/callback`` answer.

The browser brings the authorization response here (RFC 8252 §7.3). The first request to
``/callback`` is the answer; anything else gets a 404. Requests are small and bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
from urllib.parse import parse_qsl, urlsplit

from echo_desk.i18n import N_, _

CALLBACK_PATH = "/callback"
_MAX_REQUEST_BYTES = 16 * 1024
_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Echo Desk</title></head>
<body style="font-family:sans-serif;margin:3em"><p>{text}</p></body></html>"""
DONE_TEXT = N_("Echo Desk received the answer. You can close this tab and go back to Echo Desk.")


class LoopbackReceiver:
    """``async with LoopbackReceiver() as rx: … await rx.answer()`` → the query parameters."""

    def __init__(self, port: int = 0) -> None:
        self._port = port
        self._server: asyncio.Server | None = None
        self._answer: asyncio.Future[dict[str, str]] | None = None

    async def __aenter__(self) -> LoopbackReceiver:
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
        self._port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2.0)
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()

    @property
    def port(self) -> int:
        return self._port

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self._port}{CALLBACK_PATH}"

    async def answer(self) -> dict[str, str]:
        assert self._answer is not None
        return await asyncio.shield(self._answer)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10.0)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ConnectionError):
            writer.close()
            return
        line = head[:_MAX_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        target = urlsplit(parts[1]) if len(parts) == 3 and parts[0] == "GET" else None
        if target is None or target.path != CALLBACK_PATH or self._answer is None or self._answer.done():
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        else:
            self._answer.set_result(dict(parse_qsl(target.query, keep_blank_values=True)))
            body = _PAGE.format(text=html.escape(_(DONE_TEXT))).encode("utf-8")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\n"
                         b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
