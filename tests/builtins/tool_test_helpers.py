"""Helpers shared by the built-in tool tests (importable because conftest puts this folder on sys.path)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echo_desk.tools import Answer, NullToolHost, Question, TodoItem, Tool, ToolExecutionContext, ToolResult


@dataclass
class RecordingHost(NullToolHost):
    """Records every host call; answers questions from ``answers`` and editor requests from ``release``."""

    answers: list[Answer] = field(default_factory=list)
    release: bool = True
    questions: list[Question] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    mutated: list[str] = field(default_factory=list)
    acquired: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    activity: list[str | None] = field(default_factory=list)
    todos: list[tuple[str, tuple[TodoItem, ...]]] = field(default_factory=list)

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        return self.answers.pop(0) if self.answers else Answer(action="cancel")

    async def acquire_editor(self, path: str) -> bool:
        self.acquired.append(path)
        return self.release

    def release_editor(self, path: str) -> None:
        self.released.append(path)

    def file_mutated(self, path: str) -> None:
        self.mutated.append(path)

    def set_activity(self, text: str | None) -> None:
        self.activity.append(text)

    def tool_output(self, call_id: str, text: str) -> None:
        self.outputs.append(text)

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        self.todos.append((scope_id, todos))


async def run_tool(tool: Tool, params: dict[str, Any], ctx: ToolExecutionContext, *,
                   with_preview: bool = True) -> ToolResult:
    """What the dispatcher does for an approved call: preview, then execute with that preview."""
    if with_preview and tool.has_preview:
        try:
            ctx.preview = await tool.preview(params, ctx)
        except Exception as exc:  # preview refusal = the call fails the same way
            from echo_desk.tools import ErrorKind, ToolError

            if isinstance(exc, ToolError):
                return ToolResult.fail(exc.kind, exc.message)
            return ToolResult.fail(ErrorKind.INTERNAL, repr(exc))
    return await tool.execute(params, ctx)


def tree_hash(root: Path) -> str:
    """Hash of names, types, sizes, modes, link targets and contents below ``root``."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            digest.update(f"{os.path.relpath(full, root)}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}|".encode())
            if os.path.islink(full):
                digest.update(os.readlink(full).encode())
            elif os.path.isfile(full):
                with open(full, "rb") as fh:
                    digest.update(fh.read())
    return digest.hexdigest()


MakeCtx = Callable[..., ToolExecutionContext]


Route = tuple[int, dict[str, str], bytes]


class LoopbackServer:
    """A tiny HTTP server on 127.0.0.1 serving fixed routes; ``hold`` keeps /slow waiting."""

    def __init__(self, routes: dict[str, Route | Callable[[str], Route]]) -> None:
        import http.server
        import threading

        self.routes = routes
        self.hold = threading.Event()
        self.requests: list[str] = []
        #: Each request as it arrived: its request line and its Host header.
        self.received: list[tuple[str, str]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                outer.received.append((self.requestline, self.headers.get("Host", "")))
                if self.path.startswith("/slow"):
                    outer.hold.wait(10)
                key = self.path.split("?")[0]
                route = outer.routes.get(key) or outer.routes.get("*")
                if route is None:
                    status, headers, body = 404, {"Content-Type": "text/plain"}, b"not here"
                else:
                    status, headers, body = route(self.path) if callable(route) else route
                try:
                    self.send_response(status)
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args: object) -> None:
                return None

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> LoopbackServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.hold.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
