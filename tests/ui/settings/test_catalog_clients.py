"""The catalog's per-client view: what one MCP client (through the gateway) sees, and switching
its tools; the gateway's own listing agrees with the column."""

from __future__ import annotations

from PySide6.QtCore import Qt

from echo_desk.agent.scope import Scope
from echo_desk.gateway.view import listing
from echo_desk.store.settings import GatewayClient
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.catalog_model import COL_CLIENT
from echo_desk.ui.settings.catalog_page import ToolsPage


def _cell(page: ToolsPage, name: str):  # type: ignore[no-untyped-def]
    index = page.model.tool_index(name)
    return page.model.itemFromIndex(index.siblingAtColumn(COL_CLIENT))


def _listed(runtime, client: str) -> set[str]:  # type: ignore[no-untyped-def]
    scope = Scope(label=client, client=client)
    return {t["name"] for t in listing(runtime.schema_factory, runtime.registry, scope)}


def test_a_clients_column_follows_its_profile_and_the_gateway_lists_the_same(qtbot, builtin_runtime) -> None:
    store = builtin_runtime.settings
    store.update(lambda s: setattr(s.gateway, "clients", {"cursor": GatewayClient()}))
    page = ToolsPage(CatalogBackend(store, builtin_runtime))
    qtbot.addWidget(page)
    assert page.tree.isColumnHidden(COL_CLIENT)  # Echo Desk's own chat: no client column
    assert [page.clients.itemText(i) for i in range(page.clients.count())] == ["Echo Desk's chat",
                                                                               "Cursor (through MCP)"]

    page.clients.setCurrentIndex(1)
    page.clients.activated.emit(1)
    assert not page.tree.isColumnHidden(COL_CLIENT)
    assert page.model.headerData(COL_CLIENT, Qt.Orientation.Horizontal) == "Seen by Cursor"
    read = _cell(page, "read_file")
    assert read.checkState() == Qt.CheckState.Unchecked and not read.isEnabled()
    assert read.toolTip() == "Echo Desk's own tools are off for this client"
    assert "read_file" not in _listed(builtin_runtime, "cursor")

    page.client_builtins.setChecked(True)  # offer Echo Desk's own tools to Cursor
    assert store.current.gateway.clients["cursor"].builtins is True
    assert _cell(page, "read_file").checkState() == Qt.CheckState.Checked and _cell(page, "read_file").isEnabled()
    assert not _cell(page, "ask_user").isEnabled()  # only in Echo Desk's chat
    db_write = _cell(page, "db_execute")
    assert db_write.checkState() == Qt.CheckState.Unchecked and db_write.isEnabled()  # read-only by default
    assert "read_file" in _listed(builtin_runtime, "cursor")

    _cell(page, "read_file").setCheckState(Qt.CheckState.Unchecked)  # hidden from Cursor only
    assert store.current.gateway.clients["cursor"].hidden_tools == ["read_file"]
    assert "read_file" not in _listed(builtin_runtime, "cursor")
    assert page.tool_checked("read_file")  # still on for Echo Desk's own chat
    _cell(page, "db_execute").setCheckState(Qt.CheckState.Checked)
    assert store.current.gateway.clients["cursor"].database_writes is True

    page.clients.setCurrentIndex(0)
    page.clients.activated.emit(0)
    assert page.tree.isColumnHidden(COL_CLIENT) and not page.client_builtins.isVisible()


def test_a_client_connecting_for_the_first_time_appears_in_the_list(qtbot, builtin_runtime) -> None:
    page = ToolsPage(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(page)
    assert page.clients.count() == 1
    builtin_runtime.settings.update(lambda s: setattr(s.gateway, "clients", {"zed": GatewayClient()}))
    qtbot.waitUntil(lambda: page.clients.count() == 2, timeout=5000)
    assert page.clients.itemText(1) == "Zed (through MCP)"


def test_a_clients_view_fits_a_900_pixel_settings_window_in_both_languages(qtbot, builtin_runtime, chinese) -> None:
    # Before: the check box "Offer Echo Desk's own tools to Cursor (file edits with review and
    # undo, …)" did not wrap and held the Settings window ~1,160 px wide.
    from echo_desk.ui.core import i18n_qt
    from echo_desk.ui.settings.catalog_model import COL_DESCRIPTION
    from echo_desk.ui.settings.settings_dialog import SettingsDialog

    store = builtin_runtime.settings
    store.update(lambda s: setattr(s.gateway, "clients", {"cursor": GatewayClient()}))
    dialog = SettingsDialog(CatalogBackend(store, builtin_runtime))
    qtbot.addWidget(dialog)
    dialog.show_page("tools")
    page = dialog.tools
    page.clients.setCurrentIndex(1)
    page.clients.activated.emit(1)
    dialog.resize(900, 640)
    dialog.show()
    qtbot.waitExposed(dialog)
    for language in ("zh_CN", "en"):
        i18n_qt.apply_language(language)
        qtbot.waitUntil(lambda: dialog.width() <= 900)
        box = page.client_builtins
        assert box.isVisible() and box.width() >= box.sizeHint().width(), box.text()
        assert "sandbox" in box.toolTip() or "沙箱" in box.toolTip()
        header = page.tree.header()
        assert header.sectionSize(COL_DESCRIPTION) >= 220
    dialog.close()
