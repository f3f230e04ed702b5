"""Fixtures for the Qt tests: a qasync loop, a real engine runtime, and small tools.

The coroutine-driven tests run with ``qloop.run_until_complete(...)`` and wait on signals
turned into futures (never ``qtbot.waitUntil`` inside a coroutine on the qasync loop).
"""

from __future__ import annotations

import asyncio
import difflib
import gc
import hashlib
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("PySide6")

import qasync
from PySide6.QtWidgets import QApplication

from echo_desk import i18n
from echo_desk.agent.scope import Scope
from echo_desk.i18n_build import compile_catalogs
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import (
    FileChange,
    FileChangeKind,
    RiskLevel,
    Target,
    Tool,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
    counted,
)
from echo_desk.tools.base import N_
from echo_desk.ui.app.services import Services
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.core import i18n_qt, marshal
from echo_desk.ui.core.backend import CatalogBackend

T = TypeVar("T")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WriteNote(Tool):
    """A small write tool with a preview (stands in for ``edit_file`` in these tests)."""

    name = "write_note"
    description = "Replace the text of a file in the workspace."
    parameters = {"type": "object", "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
                  "required": ["path", "text"]}
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})
    title = N_("Write note")
    catalog_description = N_("Replace the text of a file in the workspace.")

    def _target(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> Path:
        assert ctx.workspace is not None
        return (ctx.workspace / str(params["path"])).resolve()

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        path = self._target(params, ctx)
        before = path.read_bytes() if path.exists() else b""
        after = str(params["text"]).encode()
        diff = "".join(difflib.unified_diff(before.decode().splitlines(True), after.decode().splitlines(True),
                                            f"a/{path.name}", f"b/{path.name}"))
        change = FileChange(path=str(path), kind=FileChangeKind.MODIFY if path.exists() else FileChangeKind.CREATE,
                            before_sha256=_sha(before) if path.exists() else None, after_sha256=_sha(after), diff=diff)
        return ToolPreview(targets=(Target(kind="path", value=str(path)),), file_changes=(change,),
                           summary=f"Write {len(after)} bytes")

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        path = self._target(params, ctx)
        path.write_text(str(params["text"]))
        ctx.host.file_mutated(str(path))
        return ToolResult.ok(f"wrote {path}", file_changes=ctx.preview.file_changes if ctx.preview else ())


class ReadNote(Tool):
    name = "read_note"
    description = "Read a file of the workspace."
    parameters = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    risk_level = RiskLevel.READ
    capabilities = frozenset({"files.read"})
    title = N_("Read note")
    catalog_description = N_("Read a file of the workspace.")

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        assert ctx.workspace is not None
        text = (ctx.workspace / str(params["path"])).read_text()
        return ToolResult.ok(text, metadata=counted(lines=len(text.splitlines())))


@pytest.fixture(scope="session", autouse=True)
def _catalogs() -> None:
    compile_catalogs()  # the set-up does this too; tests must not depend on a stale .mo


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    marshal.install()
    # A dialog closing must not end the loop as "the last window" (the app sets this too).
    qapp.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    try:
        with marshal.asyncgen_hooks(loop):
            yield loop
            loop.run_until_complete(marshal.shutdown())
    finally:
        loop.close()
        asyncio.set_event_loop(None)


@pytest.fixture(autouse=True)
def _english(qapp: QApplication) -> Iterator[None]:
    i18n_qt.apply_language("en")
    yield
    i18n_qt.apply_language("en")
    # Collect this test's Qt wrappers now, on the GUI thread. Left to chance, the cyclic GC may
    # run on a tool-worker thread in a later test and delete QObjects there, which crashed the
    # run of tests/ui + tests/agent in one process (a segfault in pytest-qt's processEvents).
    gc.collect()


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "config"
    folder.mkdir()
    return folder


@pytest.fixture
def settings_store(config_dir: Path) -> SettingsStore:
    return SettingsStore.in_dir(config_dir)


@pytest.fixture
def runtime(settings_store: SettingsStore, tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=settings_store, data_dir=tmp_path, with_builtins=False,
                        with_plugins=False, extra_tools=[WriteNote(), ReadNote()])
    yield rt
    rt.close()


@pytest.fixture
def builtin_runtime(settings_store: SettingsStore, tmp_path: Path) -> Iterator[Runtime]:
    """The engine with the real built-in tools (edit_file, run_command, update_todos...)."""
    rt = Runtime.create(settings_store=settings_store, data_dir=tmp_path, with_plugins=False)
    yield rt
    rt.close()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def scope(workspace: Path) -> Scope:
    return Scope(label="Test chat", workspace_roots=(workspace,))


def next_emission(signal: Any) -> asyncio.Future[Any]:
    """A future resolved with the next value ``signal`` emits (for coroutine-driven tests)."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def resolve(*args: Any) -> None:
        if not future.done():
            future.set_result(args[0] if len(args) == 1 else args)
        signal.disconnect(resolve)

    signal.connect(resolve)
    return future


async def within(awaitable: Awaitable[T], seconds: float = 10.0) -> T:
    return await asyncio.wait_for(awaitable, seconds)


async def until(condition: Callable[[], object], seconds: float = 10.0) -> None:
    """Wait on the running (qasync) loop until ``condition()`` holds, failing after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)  # polling a condition with a deadline


def attached_window(qtbot: Any, runtime: Runtime, store: ConversationStore) -> MainWindow:
    """A main window on ``runtime``'s engine, attached to services over ``store`` (not shown)."""
    services = Services(settings=runtime.settings, backend=CatalogBackend(runtime.settings, runtime),
                        runtime=runtime, conversations=store, providers_available=True)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach(services)
    return win


@pytest.fixture
def window(qtbot: Any, qloop: qasync.QEventLoop, runtime: Runtime, tmp_path: Path,
           workspace: Path) -> Iterator[MainWindow]:
    """A main window on the real engine with a conversation store and the workspace chosen
    (a test module may define its own ``window``: that one wins)."""
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    win.set_workspace(str(workspace))
    yield win
    win.session.stop()
    store.close()


def tr(message: str) -> str:
    return i18n._(message)


Drive = Callable[..., Awaitable[Any]]


@pytest.fixture
def chinese() -> Iterator[None]:
    """The whole app in Simplified Chinese (Qt's own texts too), English again after."""
    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language("zh_CN")
    try:
        yield
    finally:
        i18n_qt.apply_language("en")
