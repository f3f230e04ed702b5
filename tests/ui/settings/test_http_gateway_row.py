"""Settings › Connected apps switches the gateway's HTTP listener on and says what came of it:
its address, or why it is not listening (a port another program holds), in the person's
language. Before, ``GatewayService.http_error`` was set and nothing showed it (and nothing in the
app switched the listener on: only an edit of settings.json)."""

from __future__ import annotations

import errno
from pathlib import Path
from types import SimpleNamespace

from echo_desk.gateway.http_failure import listen_failure
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.settings.connected_apps_page import ConnectedAppsPage
from tests.mcp.connected.homes import home
from tests.ui.settings.test_connected_apps import _backend

__all__ = ["home"]


def _page(qtbot, home: Path, gateway: object) -> ConnectedAppsPage:  # type: ignore[no-untyped-def]
    settings = SettingsStore.in_memory()
    page = ConnectedAppsPage(settings, _backend(settings), home=home, gateway=gateway)  # type: ignore[arg-type]
    qtbot.addWidget(page)
    return page


def test_switching_it_on_saves_the_setting_and_shows_where_it_listens(qtbot, home: Path) -> None:
    gateway = SimpleNamespace(http_port=None, http_error="")
    page = _page(qtbot, home, gateway)
    row = page.http
    assert not row.enabled.isChecked() and row.status.text() == ""
    row.port.setValue(41999)
    row.enabled.setChecked(True)
    assert page.settings.current.gateway.http_enabled and page.settings.current.gateway.http_port == 41999
    row.show_status()
    assert row.status.text() == "Starting…"
    gateway.http_port = 41999  # the gateway applied it, on its own loop
    page.show()
    qtbot.waitUntil(lambda: "http://127.0.0.1:41999/mcp" in row.status.text(), timeout=3000)


def test_a_port_in_use_is_said_where_it_was_switched_on_in_both_languages(qtbot, home: Path, request) -> None:
    gateway = SimpleNamespace(http_port=None, http_error="")
    page = _page(qtbot, home, gateway)
    row = page.http
    row.enabled.setChecked(True)
    port = page.settings.current.gateway.http_port
    gateway.http_error = listen_failure(port, OSError(errno.EADDRINUSE, "Address already in use"))
    page.show()
    qtbot.waitUntil(lambda: row.status.text().startswith("The HTTP gateway could not start"), timeout=3000)
    assert f"another program already uses port {port}" in row.status.text()
    assert "Errno" not in row.status.text()
    request.getfixturevalue("chinese")  # the language switched while the page is open
    qtbot.waitUntil(lambda: f"另一个程序已经在使用 127.0.0.1 上的端口 {port}" in row.status.text(), timeout=3000)
    row.enabled.setChecked(False)  # switched off: nothing to say
    gateway.http_error = ""
    qtbot.waitUntil(lambda: row.status.text() == "", timeout=3000)
