"""Serving an ASGI app on 127.0.0.1 (a random port) in a thread, for the sign-in tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import uvicorn


class Served:
    """``with Served(lambda url: app) as s: s.url`` — uvicorn on its own thread and loop; the app
    is made once the address is known (an issuer names itself)."""

    def __init__(self, make_app: Callable[[str], Any]) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._sock = sock
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = make_app(self.url)
        self._server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning", lifespan="on",
                                                      timeout_graceful_shutdown=2))
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)

    def __enter__(self) -> Served:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)
        self._sock.close()
