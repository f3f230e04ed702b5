"""MCP in the UI: the first-start approval and the servers page (against a stand-in manager
with the MCP package's documented shape; the real manager is tested in tests/mcp)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QPushButton

from echo_desk.mcp.status import FlagKind, ToolFlag
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.approval.server_start_dialog import ServerStartDialog
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.mcp_page import McpPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.ui.conftest import next_emission, until, within


def _request(**extra):
    base = dict(server="files", transport="stdio", command="npx",
                args=("-y", "@modelcontextprotocol/server-filesystem", "/home/me/project dir"),
                env_names=("GITHUB_TOKEN",), cwd="/home/me", url="", header_names=(), fingerprint="fp-1",
                previous_fingerprint=None)
    base.update(extra)
    request = SimpleNamespace(**base)
    request.command_line = (request.command, *request.args)
    return request


def test_server_start_shows_the_exact_command_and_refuses_by_default(qloop):
    host = QtHost()

    async def answer(respond):
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(host.approve_server_start(_request(previous_fingerprint="fp-0")))
        dialog: ServerStartDialog = await within(opened)
        shown = dialog.details.toPlainText(), dialog.changed.isVisibleTo(dialog)
        await until(dialog.allow.isEnabled, 30)  # "Start this server" works once every line was in view (after layout)
        respond(dialog)
        return shown, await within(task)

    (text, changed), escaped = qloop.run_until_complete(answer(lambda d: QTest.keyClick(d, Qt.Key.Key_Escape)))
    assert "npx -y @modelcontextprotocol/server-filesystem '/home/me/project dir'" in text
    assert "GITHUB_TOKEN" in text and "/home/me" in text and changed
    assert escaped is False
    _, entered = qloop.run_until_complete(answer(lambda d: QTest.keyClick(d, Qt.Key.Key_Return)))
    assert entered is False
    _, allowed = qloop.run_until_complete(answer(lambda d: d.allow.click()))
    assert allowed is True


@dataclass
class StandInManager:
    statuses_: list = field(default_factory=list)
    approved: list = field(default_factory=list)
    started: list = field(default_factory=list)
    listeners: list = field(default_factory=list)

    def subscribe(self, listener):
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def statuses(self):
        return list(self.statuses_)

    def server_target(self, name):
        return "npx -y server"

    def start_request(self, name):
        return _request(server=name)

    def approve_start(self, name, fingerprint):
        self.approved.append((name, fingerprint))
        return True

    async def start(self, name):
        self.started.append(name)
        self.statuses_ = [SimpleNamespace(**{**vars(s), "state": "connected"}) for s in self.statuses_]
        for listener in self.listeners:
            listener(SimpleNamespace(kind="status", server=name))


def test_servers_page_lists_state_errors_and_approves_a_start(qtbot, qloop):
    tool = SimpleNamespace(registry_name="files__read", original_name="read", flags=())
    manager = StandInManager(statuses_=[
        SimpleNamespace(name="files", transport="stdio", state="awaiting_approval", detail="", tools=(tool,),
                        stderr_tail=("warning: slow disk",), server_info="", problems=(), sign_in=None, icon=None)])
    host = QtHost()
    page = McpPage(manager, host, "/cfg/mcp.json")
    qtbot.addWidget(page)
    page.show()
    row = page.servers.topLevelItem(0)
    assert [row.text(i) for i in range(4)] == ["files", "stdio", "Waiting for your approval to start", "1"]
    assert "warning: slow disk" in page.details.toPlainText() and "files__read" in page.details.toPlainText()
    assert "/cfg/mcp.json" in page.intro.text()
    assert page.approve_button.isEnabled()

    async def approve():
        opened = next_emission(host.dialog_opened)
        page.approve_button.click()
        dialog = await within(opened)
        done = asyncio.get_running_loop().create_future()
        manager.listeners.append(lambda _e: done.done() or done.set_result(True))
        dialog.allow.click()
        await within(done)

    qloop.run_until_complete(approve())
    assert manager.approved == [("files", "fp-1")] and manager.started == ["files"]
    assert page.servers.topLevelItem(0).text(2) == "Connected"
    page.close_page()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_settings_window_with_the_servers_page_fits_a_900_pixel_screen(qtbot, runtime, language) -> None:
    # Nine buttons in one row made the window at least ~1,100 px wide: it could not be made
    # smaller and went past the edge of a small screen. Every button still shows its whole text.
    i18n_qt.apply_language(language)
    page = McpPage(StandInManager(), QtHost(), "/cfg/mcp.json")
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime), mcp_page=page)
    qtbot.addWidget(dialog)
    dialog.show_page("mcp")
    dialog.resize(900, 600)
    dialog.show()
    QApplication.processEvents()
    assert dialog.width() <= 900
    buttons = [b for b in page.findChildren(QPushButton) if b.isVisibleTo(page)]
    assert len(buttons) == 9
    assert [b.text() for b in buttons if b.width() < b.sizeHint().width()] == []
    dialog.close()  # closes the page too


def test_a_changed_tool_is_shown_and_re_approved_on_request(qtbot, qloop):
    from PySide6.QtWidgets import QMessageBox

    flags = (ToolFlag(kind=FlagKind.CHANGED, detail="description changed: 'Read' → 'Read and upload'"),)
    tool = SimpleNamespace(registry_name="files__read", original_name="read", flags=flags)
    manager = StandInManager(statuses_=[SimpleNamespace(name="files", transport="stdio", state="connected",
                                                        detail="", tools=(tool,), stderr_tail=(), server_info="",
                                                        problems=(), sign_in=None, icon=None)])
    approved = []

    async def approve_tool_change(name):
        approved.append(name)
        return True

    manager.approve_tool_change = approve_tool_change
    page = McpPage(manager, QtHost())
    qtbot.addWidget(page)
    assert "Read and upload" in page.details.toPlainText()
    assert page.changes_button.isEnabled()
    page.changes_button.click()
    assert "Read and upload" in page.review_box.informativeText()

    async def confirm():
        page.review_box.button(QMessageBox.StandardButton.Yes).click()
        while not approved:  # noqa: ASYNC110  (the spawned approval runs on this loop)
            await asyncio.sleep(0)

    qloop.run_until_complete(within(confirm()))
    assert approved == ["files__read"]


def test_import_from_claude_desktop_previews_then_writes_mcp_json(qtbot, qloop, tmp_path):
    import json

    from echo_desk.mcp.config import load_config
    from echo_desk.tools.secrets import secret_store

    claude = tmp_path / "claude_desktop_config.json"
    claude.write_text(json.dumps({"mcpServers": {
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"}},
        "odd": {"command": "run-me", "envFile": ".env"}}}))
    reloaded = []

    async def reload():
        reloaded.append(True)
        return []

    manager = StandInManager()
    manager.reload = reload
    page = McpPage(manager, QtHost())
    qtbot.addWidget(page)

    async def scenario():
        page.preview_import(str(claude))
        while getattr(page, "import_dialog", None) is None:  # noqa: ASYNC110  (read off the UI thread)
            await asyncio.sleep(0.01)
        dialog = page.import_dialog
        rows = {dialog.items.topLevelItem(i).text(0): dialog.items.topLevelItem(i)
                for i in range(dialog.items.topLevelItemCount())}
        shown = {name: (row.text(1), row.text(2)) for name, row in rows.items()}
        assert dialog.selected() == {"github"}
        dialog.import_button.click()
        while not reloaded:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        return shown

    shown = qloop.run_until_complete(within(scenario()))
    assert shown["github"][0] == "Add" and "npx -y @modelcontextprotocol/server-github" in shown["github"][1]
    assert shown["odd"][0] == "Skip" and "envFile" in shown["odd"][1]
    assert "ghp_secret" not in shown["github"][1]
    assert set(load_config()) == {"github"}
    assert "ghp_secret" not in (config_dir_path() / "mcp.json").read_text()
    assert "to the keyring: env.GITHUB_PERSONAL_ACCESS_TOKEN" in shown["github"][1]
    assert "ghp_secret" in secret_store()._values.values()  # the test's in-memory keyring


def config_dir_path():
    from echo_desk.store.paths import config_dir

    return config_dir()


def test_an_approval_made_in_the_terminal_closes_the_apps_question(qloop, tmp_path):
    import sys

    from echo_desk.agent.registry import ToolRegistry
    from echo_desk.mcp import McpManager, approvals
    from echo_desk.mcp.config import parse_server
    from echo_desk.mcp.status import ServerState
    from echo_desk.store.settings import SettingsStore
    from tests.mcp.helpers import TINY_SERVER

    config = parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)]})
    settings = SettingsStore.in_dir(tmp_path)
    host = QtHost()

    async def run():
        manager = McpManager(settings, registry=ToolRegistry(), host=host, servers={"t": config})
        try:
            opened = next_emission(host.dialog_opened)
            starting = asyncio.ensure_future(manager.start("t"))
            dialog: ServerStartDialog = await within(opened)
            assert dialog.isVisible()
            # `echo-desk mcp approve t --yes` in a terminal, then the app's watch on its folder.
            assert approvals.record_approval(SettingsStore.in_dir(tmp_path), config, config.fingerprint())
            settings.refresh()
            status = await within(starting, 30)
            import shiboken6

            return status.state, shiboken6.isValid(dialog) and dialog.isVisible(), list(host.open_dialogs)
        finally:
            await manager.aclose()

    state, still_open, open_dialogs = qloop.run_until_complete(run())
    assert state is ServerState.CONNECTED
    assert not still_open and open_dialogs == []  # closed (and deleted), not left for the person


def test_servers_page_shows_a_servers_words_with_their_hidden_characters_visible(qtbot, qloop):
    # What a server says reaches the details box: its tools' own names, its errors, its error
    # output (a stand-in gives them raw, as an older status or another source could). A bidi
    # override drew "gnp.exe" as "exe.png", ESC and a C1 NEL (a line break in Qt) were kept.
    from echo_desk.common.visible_text import has_hidden

    odd = "\x07\x1b[2J\x85\u202egnp.exe\u200b"
    tool = SimpleNamespace(registry_name="c__ctl", original_name="ctl" + odd, flags=())
    manager = StandInManager(statuses_=[
        SimpleNamespace(name="c" + odd, transport="stdio", state="error", detail="the server answered: no" + odd,
                        tools=(tool,), stderr_tail=("starting" + odd,), server_info="hostile" + odd,
                        problems=(), sign_in=None, icon=None)])
    page = McpPage(manager, QtHost(), "/cfg/mcp.json")
    qtbot.addWidget(page)
    page.show()
    page.servers.setCurrentItem(page.servers.topLevelItem(0))
    text = page.details.toPlainText()
    assert not has_hidden(text.replace("\n", "")), repr(text)
    assert text.count("⟨U+202E⟩gnp.exe") == 5 and "⟨ESC⟩" in text
    assert not has_hidden(page.servers.topLevelItem(0).text(0))


def test_the_details_name_the_server_and_its_state_as_each_language_says_it(qtbot, chinese):
    # Before: "files — 等待你批准启动", the English dash glued in code between name and state.
    flags = (ToolFlag(kind=FlagKind.CHANGED, detail="description changed"),)
    tool = SimpleNamespace(registry_name="files__read", original_name="read", flags=flags)
    manager = StandInManager(statuses_=[
        SimpleNamespace(name="files", transport="stdio", state="awaiting_approval", detail="", tools=(tool,),
                        stderr_tail=(), server_info="", problems=(), sign_in=None, icon=None)])
    page = McpPage(manager, QtHost(), "/cfg/mcp.json")
    qtbot.addWidget(page)
    lines = page.details.toPlainText().splitlines()
    assert lines[0] == "files（等待你批准启动）"
    assert "  files__read（read）——有变化：description changed" in lines
    i18n_qt.apply_language("en")
    lines = page.details.toPlainText().splitlines()
    assert lines[0] == "files — Waiting for your approval to start"
    assert "  files__read (read) — Changed: description changed" in lines
    page.close_page()
