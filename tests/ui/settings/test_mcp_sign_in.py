"""Signing in from the MCP page: the row's Sign in button opens the browser through Qt
(QDesktopServices), a real authorization server on loopback answers, the row turns into
Sign out; Sign out revokes and the row asks to sign in again."""

from __future__ import annotations

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from echo_desk.mcp import McpManager
from echo_desk.mcp.status import ServerState
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.settings.mcp_page import McpPage
from tests.mcp.oauth.browser import Browser
from tests.mcp.oauth.conftest import World, _loopback_http, world  # noqa: F401 — fixtures
from tests.ui.conftest import until


class _BrowserHandler(QObject):
    """Qt hands it what ``QDesktopServices.openUrl`` opens (instead of a real browser)."""

    def __init__(self, browser: Browser) -> None:
        super().__init__()
        self.browser = browser
        self.urls: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url.toString(QUrl.ComponentFormattingOption.FullyEncoded))
        self.browser.start(self.urls[-1])


def test_sign_in_and_out_from_the_servers_row(qtbot, qloop, world: World) -> None:  # noqa: F811
    world.use_authlib()
    manager = McpManager(SettingsStore.in_memory(), servers={"remote": world.config()})
    request = manager.start_request("remote")
    assert request is not None and manager.approve_start("remote", request.fingerprint)
    browser = Browser()
    handler = _BrowserHandler(browser)
    QDesktopServices.setUrlHandler("http", handler, "open")
    page = McpPage(manager, QtHost(), "mcp.json")
    qtbot.addWidget(page)
    page.show()

    async def scenario() -> None:
        await manager.start_all()
        await until(lambda: page.row_buttons.get("remote") is not None, 10)
        assert page.servers.topLevelItem(0).text(2) == "Sign-in needed"
        button = page.row_buttons["remote"]
        assert button.text() == "Sign in…"
        button.click()
        await until(lambda: manager.status("remote").state is ServerState.CONNECTED, 30)
        await until(lambda: page.row_buttons.get("remote") is not None
                    and page.row_buttons["remote"].text() == "Sign out", 10)
        details = page.details.toPlainText()
        assert f"Signed in with {world.authlib.issuer}" in details and "dynamic registration" in details
        assert "system keyring" in details
        page.row_buttons["remote"].click()
        await until(lambda: manager.status("remote").state is ServerState.NEEDS_SIGN_IN, 10)
        await until(lambda: page.row_buttons["remote"].text() == "Sign in…", 10)

    try:
        qloop.run_until_complete(scenario())
        browser.join()
        assert handler.urls and handler.urls[0].startswith(f"{world.authlib.issuer}/authorize?")
        assert world.authlib.state.revoked  # Sign out revoked at the service
    finally:
        QDesktopServices.unsetUrlHandler("http")
        page.close_page()
        qloop.run_until_complete(manager.aclose())
