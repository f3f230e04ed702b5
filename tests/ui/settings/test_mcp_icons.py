"""A server's icon and its tools' icons, from a real stdio server, show in the catalog (the
server's on its group, each tool's on its row) and on the MCP page's row."""

from __future__ import annotations

import json
import sys

from PySide6.QtGui import QImage

from echo_desk.store.paths import config_dir
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.catalog_model import NameRole
from echo_desk.ui.settings.mcp_page import McpPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.mcp.helpers import TINY_SERVER
from tests.ui.conftest import until


def _has_picture(icon) -> bool:  # type: ignore[no-untyped-def]
    return not icon.isNull() and not icon.pixmap(16, 16).toImage().convertToFormat(QImage.Format.Format_ARGB32).isNull()


def test_icons_show_in_the_catalog_and_on_the_mcp_page(qtbot, qloop, builtin_runtime) -> None:
    entry = {"command": sys.executable, "args": ["-S", str(TINY_SERVER)], "env": {"TINY_ICONS": "1"}}
    (config_dir() / "mcp.json").write_text(json.dumps({"mcpServers": {"tiny": entry}}))
    host = QtHost()

    async def scenario() -> None:
        # No host that approves: the server waits for the approval given here, then starts.
        manager = await builtin_runtime.attach_mcp(None, wait=True)
        request = manager.start_request("tiny")
        assert request is not None and manager.approve_start("tiny", request.fingerprint)
        await manager.start_all()
        await until(lambda: manager.icon_of("tiny") is not None and manager.icon_of("tiny__echo") is not None, 15)

    try:
        qloop.run_until_complete(scenario())
        settings = SettingsDialog(CatalogBackend(builtin_runtime.settings, builtin_runtime),
                                  mcp_page=McpPage(builtin_runtime.mcp, host, str(config_dir() / "mcp.json")))
        qtbot.addWidget(settings)
        model = settings.tools.model
        model.refresh_status()
        group = model.itemFromIndex(model.group_index("mcp:tiny"))
        assert _has_picture(group.icon())
        rows = {group.child(i).data(NameRole): group.child(i) for i in range(group.rowCount())}
        echo, sleep = rows["tiny__echo"], rows["tiny__sleep"]
        assert _has_picture(echo.icon())
        assert echo.icon().pixmap(16, 16).toImage().pixelColor(0, 0).alpha() > 0
        # Its icons were an SVG and a local https address: a blank keeps its name in line.
        assert sleep.icon().pixmap(16, 16).toImage().pixelColor(8, 8).alpha() == 0
        builtin = model.itemFromIndex(model.group_index("builtin"))
        assert builtin.icon().isNull() and builtin.child(0).icon().isNull()  # built-ins keep no blank
        settings.mcp.refresh()
        assert _has_picture(settings.mcp.servers.topLevelItem(0).icon(0))
        settings.close()
    finally:
        qloop.run_until_complete(builtin_runtime.close_mcp())
