"""Another program's agent asks through the gateway: Echo Desk's real approval dialog answers.

A real MCP client (the official Python SDK's) starts ``echo-desk gateway --client cursor`` and
calls; the app side is the gateway service on the real engine with the Qt host, so the request
opens the real ``ApprovalDialog`` (offscreen), headed with the client's name. Allowed, the file is
written; withdrawn by the client, the dialog stays and says so, and the audit says cancelled.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Coroutine, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
import qasync
from mcp import Client, StdioServerParameters
from PySide6.QtCore import Qt

from echo_desk.gateway.service import GatewayService
from echo_desk.runtime import Runtime
from echo_desk.store.settings import GatewayClient
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from tests.ui.conftest import next_emission, until, within

ROOT = Path(__file__).resolve().parents[3]
T = TypeVar("T")


class ClientThread:
    """An MCP client on a loop of its own thread (the Qt loop stays free for the dialog)."""

    def __init__(self, env: dict[str, str], cwd: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.stack = contextlib.AsyncExitStack()
        command = [sys.executable, "-m", "echo_desk", "gateway", "--client", "cursor"]
        self.params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=cwd)
        self.client: Client | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    async def _open(self) -> None:
        self.client = await self.stack.enter_async_context(Client(self.params))

    def open(self) -> None:
        self.run(self._open()).result(120)

    def call(self, name: str, arguments: dict[str, Any]) -> concurrent.futures.Future[Any]:
        assert self.client is not None
        return self.run(self.client.call_tool(name, arguments))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.run(self.stack.aclose()).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def gateway(runtime: Runtime, workspace: Path, monkeypatch: pytest.MonkeyPatch, qloop: qasync.QEventLoop
            ) -> Iterator[tuple[QtHost, ClientThread]]:
    short = Path(tempfile.mkdtemp(prefix="edq-", dir="/tmp"))
    monkeypatch.setenv("ECHO_DESK_GATEWAY_SOCKET", str(short / "gw.sock"))
    monkeypatch.setenv("ECHO_DESK_GATEWAY_START", "0")
    # The test runtime's own tools (write_note) count as Echo Desk's: switched on for this client.
    runtime.settings.update(lambda s: setattr(s.gateway, "clients", {"cursor": GatewayClient(builtins=True)}))
    host = QtHost()
    service = GatewayService(runtime, host, keepalive=0.2)
    service.start_in_thread()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    client = ClientThread(env, workspace)
    client.open()
    try:
        yield host, client
    finally:
        client.close()
        service.close()
        shutil.rmtree(short, ignore_errors=True)


def test_an_approval_is_headed_with_the_client_and_allowing_writes(qloop, runtime, workspace, gateway) -> None:
    host, client = gateway

    async def run() -> tuple[ApprovalDialog, Any]:
        opened = next_emission(host.dialog_opened)
        result = client.call("write_note", {"path": "from-cursor.txt", "text": "hello from cursor\n"})
        dialog = await within(opened, 60)
        assert isinstance(dialog, ApprovalDialog)
        assert dialog.heading.text() == "Cursor, through MCP, wants to use “Write note”"
        assert dialog.windowTitle() == "Cursor asks: approve Write note?"
        assert "Cursor (an MCP client" in dialog.scope_value.text()
        assert dialog.allow_conversation.text() == "Allow for this session of Cursor"
        assert dialog.parentWidget() is None and dialog.isVisible()  # a window of its own, in front
        await until(lambda: dialog.allow_once.isEnabled())
        dialog.allow_once.click()
        return dialog, await within(asyncio.wrap_future(result), 60)

    _dialog, result = qloop.run_until_complete(run())
    assert not result.is_error, result
    assert (workspace / "from-cursor.txt").read_text() == "hello from cursor\n"
    row = runtime.audit.query(tool="write_note")[0]
    assert (row["client"], row["decision"], row["ok"]) == ("cursor", "allowed", True)
    assert row["file_changes"][0]["path"] == str((workspace / "from-cursor.txt").resolve())


def test_denied_in_the_dialog_reaches_the_client_as_an_error(qloop, runtime, workspace, gateway) -> None:
    host, client = gateway

    async def run() -> Any:
        opened = next_emission(host.dialog_opened)
        result = client.call("write_note", {"path": "no.txt", "text": "x\n"})
        dialog = await within(opened, 60)
        dialog.message.setText("use the docs folder")
        dialog.deny.click()
        return await within(asyncio.wrap_future(result), 60)

    result = qloop.run_until_complete(run())
    assert result.is_error and "use the docs folder" in result.content[0].text
    assert not (workspace / "no.txt").exists()


def test_a_request_the_client_withdraws_stays_open_and_says_so(qloop, runtime, workspace, gateway) -> None:
    host, client = gateway

    async def run() -> ApprovalDialog:
        opened = next_emission(host.dialog_opened)
        result = client.call("write_note", {"path": "later.txt", "text": "x\n"})
        dialog = await within(opened, 60)
        assert isinstance(dialog, ApprovalDialog)
        result.cancel()  # the client gives up: notifications/cancelled
        await until(lambda: dialog.withdrawn, 30)
        return dialog

    dialog = qloop.run_until_complete(run())
    assert dialog.isVisible()  # not a silent close
    assert dialog.withdrawn_note.isVisibleTo(dialog)
    assert "Withdrawn: Cursor cancelled this request" in dialog.withdrawn_note.text()
    assert dialog.windowTitle().startswith("Withdrawn: ")
    assert not any(b.isEnabled() for b in (dialog.allow_once, dialog.allow_conversation, dialog.always_allow,
                                           dialog.deny))
    assert dialog.close_button.isVisibleTo(dialog) and dialog.decision is None
    dialog.close_button.click()
    assert not dialog.isVisible() and dialog.decision is None  # closing it decides nothing
    assert not (workspace / "later.txt").exists()
    # The engine records the call as its task unwinds on its own thread, while this one shows the
    # withdrawal: either may come first.
    qloop.run_until_complete(until(lambda: runtime.audit.query(tool="write_note"), 10))
    row = runtime.audit.query(tool="write_note")[0]
    assert (row["client"], row["error_kind"], row["ok"]) == ("cursor", "cancelled", False)


def _client_request(client: str) -> Any:
    from echo_desk.agent.host import ApprovalRequest
    from echo_desk.tools import RiskLevel
    from echo_desk.tools.results import Target

    return ApprovalRequest(
        call_id="c1", tool_name="run_command", tool_title="Run a command", risk=RiskLevel.EXEC, scope_id="s",
        scope_label=client, scope_chain=(client,), arguments={"command": "ls"},
        targets=(Target(kind="command", value="ls", detail="/w"),), file_changes=(), summary="", binding="b",
        client=client,
    )


def test_the_client_heading_and_the_withdrawn_state_in_chinese(qtbot) -> None:
    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language("zh_CN")
    dialog = ApprovalDialog(_client_request("cursor"))
    qtbot.addWidget(dialog)
    assert dialog.heading.text() == "Cursor 通过 MCP 请求使用“Run a command”"  # (a title not in the catalog)
    dialog.withdraw()
    assert dialog.withdrawn_note.text().startswith("已撤回：Cursor 在你回答之前取消了此请求")
    assert dialog.windowTitle().startswith("已撤回：")
    i18n_qt.apply_language("en")  # a live switch re-words the withdrawn state too
    assert dialog.withdrawn_note.text().startswith("Withdrawn: Cursor cancelled")


def test_an_unknown_clients_name_is_shown_as_plain_visible_text(qtbot) -> None:
    dialog = ApprovalDialog(_client_request("evil\u202etxt.exe"))
    qtbot.addWidget(dialog)
    assert "\u202e" not in dialog.heading.text() and "⟨U+202E⟩" in dialog.heading.text()


def test_a_clients_dialog_cannot_be_allowed_the_moment_it_comes_to_the_front(qtbot) -> None:
    """A client's dialog opens unasked, raised and activated: a click or Alt+A meant for the window
    the person was in (another app's dialog, at the same place on the screen) landed on its Allow.
    Allow works only once it has been in front for ``ARM_DELAY_MS``, again each time it comes back."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    from echo_desk.ui.approval import front_delay

    dialog = ApprovalDialog(_client_request("cursor"))
    qtbot.addWidget(dialog)
    decided: list[object] = []
    dialog.decided.connect(decided.append)
    dialog.show()
    dialog.allow_once.click()  # the click that was meant for the window below
    qtbot.keyClick(dialog, "a", Qt.KeyboardModifier.AltModifier)
    assert not decided and not dialog.allow_once.isEnabled() and dialog.deny.isEnabled()
    qtbot.waitUntil(dialog.allow_once.isEnabled, timeout=front_delay.ARM_DELAY_MS + 2000)
    assert dialog.allow_conversation.isEnabled() and dialog.always_allow.isEnabled()
    QApplication.sendEvent(dialog, QEvent(QEvent.Type.WindowActivate))  # brought to the front again
    assert not dialog.allow_once.isEnabled()
    qtbot.waitUntil(dialog.allow_once.isEnabled, timeout=front_delay.ARM_DELAY_MS + 2000)
    dialog.allow_once.click()
    assert len(decided) == 1
    # Echo Desk's own chat's dialog opens because the person's own agent asked: no delay.
    own = ApprovalDialog(replace(_client_request("cursor"), client=""))
    qtbot.addWidget(own)
    own.show()
    assert own.allow_once.isEnabled()
