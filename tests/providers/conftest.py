"""Provider tests: make ``providers_kit`` importable, and a loopback HTTP server fixture."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

# --import-mode=importlib puts no test folder on sys.path; the shared helpers live beside us.
sys.path.insert(0, str(Path(__file__).parent))


@dataclass
class LoopbackServer:
    url: str
    requests: list[dict[str, str]]
    handle: Callable[[BaseHTTPRequestHandler], None]


@pytest.fixture
def loopback() -> Iterator[Callable[[Callable[[BaseHTTPRequestHandler], None]], LoopbackServer]]:
    """Start a real HTTP server on 127.0.0.1 whose GET/POST are answered by the given function."""
    servers: list[ThreadingHTTPServer] = []

    def start(handle: Callable[[BaseHTTPRequestHandler], None]) -> LoopbackServer:
        seen: list[dict[str, str]] = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _any(self) -> None:
                seen.append({"method": self.command, "path": self.path, **{k.lower(): v for k, v in self.headers.items()}})
                handle(self)

            do_GET = do_POST = _any

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return LoopbackServer(f"http://127.0.0.1:{server.server_address[1]}", seen, handle)

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
