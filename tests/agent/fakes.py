"""Small tools with exact, scriptable behaviour for the engine's tests."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.breaker import BreakerBoard
from echo_desk.agent.dispatcher import Dispatcher
from echo_desk.agent.registry import ToolRegistry
from echo_desk.agent.schema import SchemaFactory
from echo_desk.store.audit import AuditLog
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import (
    BaseTool,
    ErrorKind,
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    Tool,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)

TEXT_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 200}},
    "required": ["text"],
    "additionalProperties": False,
}


class Echo(Tool):
    name = "echo"
    description = "Return the text."
    parameters = TEXT_SCHEMA
    capabilities = frozenset({"basic"})

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        return ToolResult.ok(params["text"])


class Sleeper(Tool):
    """Blocks its worker thread with time.sleep: the worst a handler can do."""

    name = "sleeper"
    description = "Sleep."
    parameters = {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]}
    timeout_seconds = 10.0

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        time.sleep(params["seconds"])  # noqa: ASYNC251 -- the point: a handler that blocks
        return ToolResult.ok("slept")


class Raiser(Tool):
    name = "raiser"
    description = "Raise."

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        raise KeyError("boom")


class Flaky(Tool):
    """Fails with a chosen kind ``failures`` times, then succeeds."""

    name = "flaky"
    description = "Fail, then succeed."
    max_retries = 2

    def __init__(self, failures: int = 2, kind: ErrorKind = ErrorKind.DEPENDENCY,
                 risk: RiskLevel = RiskLevel.READ) -> None:
        self.failures = failures
        self.kind = kind
        self.calls = 0
        self.risk_level = risk  # type: ignore[misc]

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        self.calls += 1
        if self.calls <= self.failures:
            return ToolResult.fail(self.kind, f"failure {self.calls}")
        return ToolResult.ok(f"ok after {self.calls}")


class WriteNote(Tool):
    """Writes a file in the workspace; previews a diff and refuses if the file changed since."""

    name = "write_note"
    description = "Write a note file."
    parameters = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})

    def _target(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> Path:
        assert ctx.workspace is not None
        return ctx.workspace / params["path"]

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        path = self._target(params, ctx)
        old = path.read_bytes() if path.exists() else None
        new = params["content"].encode()
        return ToolPreview(
            targets=(Target(kind="path", value=str(path)),),
            file_changes=(FileChange(
                path=str(path),
                kind=FileChangeKind.MODIFY if old is not None else FileChangeKind.CREATE,
                before_sha256=hashlib.sha256(old).hexdigest() if old is not None else None,
                after_sha256=hashlib.sha256(new).hexdigest(),
                diff=f"+{params['content']}\n",
            ),),
        )

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        path = self._target(params, ctx)
        assert ctx.preview is not None
        change = ctx.preview.file_changes[0]
        current = hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None
        if current != change.before_sha256:
            raise ToolError(f"{path} changed since preview; nothing written")
        path.write_text(params["content"])
        ctx.host.file_mutated(str(path))
        return ToolResult.ok("written", file_changes=(change,))


class WhoAmI(BaseTool):
    name = "whoami"
    description = "Say who the user is."
    input_schema = {"type": "object", "properties": {"greeting": {"type": "string"}}}
    hidden_parameters = ("user_id",)

    async def run(self, greeting: str = "hello", user_id: str = "") -> dict[str, str]:
        if greeting == "fail":
            raise ToolError("no such greeting", kind=ErrorKind.BUSINESS)
        return {"greeting": greeting, "user": user_id}


class Streamer(Tool):
    name = "streamer"
    description = "Emit parts."
    stream_capable = True

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        for part in ("one ", "two ", "three"):
            ctx.emit(part)
        return ToolResult.ok("one two three")


class WaitsForCancel(Tool):
    """Runs until cancelled; records that it saw the cancellation."""

    name = "waits"
    description = "Wait until cancelled."
    timeout_seconds = 30.0

    def __init__(self) -> None:
        self.started = threading.Event()
        self.saw_cancel = threading.Event()

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        self.started.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            self.saw_cancel.set()
            raise
        return ToolResult.ok("never")


def make_engine(tmp_path: Path, *tools: Tool, clock: Any = None) -> tuple[Dispatcher, SchemaFactory, SettingsStore]:
    registry = ToolRegistry()
    for tool in tools:
        assert registry.register(tool).ok
    settings = SettingsStore.in_dir(tmp_path / "config")
    kwargs = {"clock": clock} if clock else {}
    breakers = BreakerBoard(
        threshold=lambda: settings.current.breaker_threshold,
        cooldown=lambda: settings.current.breaker_cooldown_seconds,
        **kwargs,
    )
    audit = AuditLog(tmp_path / "data" / "audit.sqlite3")
    return Dispatcher(registry, settings, audit, breakers), SchemaFactory(registry, settings, breakers), settings


class WatchedDict(dict):  # type: ignore[type-arg]
    """The registry's table, recording every moment a name was missing from it."""

    def __init__(self, watched: str) -> None:
        super().__init__()
        self.watched, self.gone = watched, 0

    def pop(self, key: Any, *default: Any) -> Any:
        self.gone += key == self.watched
        return super().pop(key, *default)

    def __delitem__(self, key: Any) -> None:
        self.gone += key == self.watched
        super().__delitem__(key)
