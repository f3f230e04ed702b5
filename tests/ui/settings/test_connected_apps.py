"""Settings › Connected apps, the real Qt page and diff dialog, on a fake home folder."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from echo_desk.mcp.config import load_config
from echo_desk.mcp.tool import make_tool
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import RiskLevel
from echo_desk.ui.core.backend import CatalogBackend, CatalogEntry
from echo_desk.ui.settings.connected_apps_dialog import COL_SANDBOX, COL_SERVER, ProtectDialog
from echo_desk.ui.settings.connected_apps_page import (
    COL_FILE,
    COL_SERVERS,
    COL_STATUS,
    ConnectedAppsPage,
    RefusedDialog,
)
from tests.mcp.connected.homes import home, make_home
from tests.ui.conftest import until

__all__ = ["home"]


class _Manager:
    def readiness(self, server: str, registry_name: str) -> str:
        return ""

    def offline_detail(self, server: str) -> str:
        return ""

    def server_target(self, server: str) -> str:
        return "npx server"


def _backend(settings: SettingsStore) -> CatalogBackend:
    tool = make_tool(_Manager(), registry_name="time__now", server="time", original_name="now",  # type: ignore[arg-type]
                     description="The time.", parameters={"type": "object", "properties": {}}, title="Now",
                     annotations={}, definition_hash="sha256:x", hidden_characters=(), risk=RiskLevel.EXEC,
                     timeout=60.0)
    return CatalogBackend(settings, entries=[CatalogEntry(tool, "mcp:time")])


def _row(page: ConnectedAppsPage, path: Path):  # type: ignore[no-untyped-def]
    """The row of the first server list kept in ``path`` (an app's own row when it has one list)."""
    tree = page.apps
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        for row in (top, *(top.child(j) for j in range(top.childCount()))):
            location_id = str(row.data(COL_FILE, Qt.ItemDataRole.UserRole) or "")
            if location_id.split("|")[1:2] == [str(path)]:
                return row
    raise AssertionError(f"no row for {path}")


def _page(qtbot, home: Path, changed: list[str] | None = None) -> ConnectedAppsPage:  # type: ignore[no-untyped-def]
    settings = SettingsStore.in_memory()

    async def after_change() -> None:
        if changed is not None:
            changed.append("reloaded")

    page = ConnectedAppsPage(settings, _backend(settings), after_change=after_change, home=home)
    qtbot.addWidget(page)
    return page


def open_protect_dialog(qloop, page: ConnectedAppsPage, path: Path) -> ProtectDialog:  # type: ignore[no-untyped-def]
    """Select the app whose file is ``path``, press Protect and wait for its dialog."""
    qloop.run_until_complete(until(lambda: page.reports))
    page.apps.setCurrentItem(_row(page, path))
    page.protect()
    qloop.run_until_complete(until(lambda: isinstance(page.dialog, ProtectDialog) and page.dialog.isVisible()))
    dialog = page.dialog
    assert isinstance(dialog, ProtectDialog)
    return dialog


def test_the_page_lists_every_client_with_its_file_servers_and_status(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    where["zed"].write_text("{ not json")
    page = _page(qtbot, home)
    qloop.run_until_complete(until(lambda: page.reports))
    titles = [page.apps.topLevelItem(i).text(0) for i in range(page.apps.topLevelItemCount())]
    assert titles == ["Claude Code", "Cursor", "VS Code", "Claude Desktop", "goose", "Windsurf", "Zed"]
    cursor = _row(page, where["cursor"])
    assert cursor.text(COL_FILE) == "~/.cursor/mcp.json"
    assert cursor.text(COL_SERVERS) == "2" and cursor.text(COL_STATUS) == "Not protected"
    zed = _row(page, where["zed"])
    assert zed.text(COL_STATUS) == "File unreadable"
    page.apps.setCurrentItem(zed)
    assert "line 1, column 3" in page.details.toPlainText()
    assert not page.protect_button.isEnabled()
    shared = _row(page, home / "app" / ".mcp.json")
    assert shared.text(COL_STATUS) == "Not rewritten by Echo Desk"


def test_protect_shows_the_exact_diff_then_undo_puts_the_file_back(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    before = where["windsurf"].read_bytes()
    changed: list[str] = []
    page = _page(qtbot, home, changed)
    dialog = open_protect_dialog(qloop, page, where["windsurf"])
    assert dialog.diff is not None
    qloop.run_until_complete(until(lambda: dialog.diff is not None and dialog.diff.is_loaded))
    diff_text = dialog.diff.unified.toPlainText()
    assert '-      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_windsurf_token"}' in diff_text
    assert '+      "args": ["gateway", "--client", "windsurf"]' in diff_text
    # Leave "figma" in Windsurf's file and start "github" unsandboxed: a new plan, a new diff.
    rows = {dialog.servers.topLevelItem(i).text(COL_SERVER): dialog.servers.topLevelItem(i)
            for i in range(dialog.servers.topLevelItemCount())}
    rows["figma"].setCheckState(COL_SERVER, Qt.CheckState.Unchecked)
    qloop.run_until_complete(until(lambda: [m.name for m in dialog.plan.moves] == ["github"]))
    github = next(dialog.servers.topLevelItem(i) for i in range(dialog.servers.topLevelItemCount())
                  if dialog.servers.topLevelItem(i).text(COL_SERVER) == "github")
    github.setCheckState(COL_SANDBOX, Qt.CheckState.Unchecked)
    qloop.run_until_complete(until(lambda: not dialog.plan.moves[0].config.sandbox))
    qloop.run_until_complete(until(lambda: dialog.write_button.isEnabled()))
    dialog.write_button.click()
    qloop.run_until_complete(until(lambda: bool(changed)))  # written, closed (and deleted), app told
    written = json.loads(where["windsurf"].read_text())["mcpServers"]
    assert set(written) == {"figma", "echo-desk"}
    assert load_config()["github"].sandbox is False
    # "figma" stays beside Echo Desk's entry: partly protected.
    qloop.run_until_complete(until(lambda: _row(page, where["windsurf"]).text(COL_STATUS) == "Partly protected"))
    assert "waiting for your approval to start: github" in page.details.toPlainText()
    # Undo, in one click.
    page.apps.setCurrentItem(_row(page, where["windsurf"]))
    assert page.undo_button.isEnabled()
    page.undo_button.click()
    qloop.run_until_complete(until(lambda: where["windsurf"].read_bytes() == before))
    qloop.run_until_complete(until(lambda: "Removed from Echo Desk: github" in page.details.toPlainText()))
    assert "github" not in load_config()


def test_an_undo_that_would_lose_an_edit_is_refused_with_the_diff(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    page = _page(qtbot, home)
    dialog = open_protect_dialog(qloop, page, where["claude-desktop"])
    dialog.write_button.click()
    qloop.run_until_complete(until(lambda: _row(page, where["claude-desktop"]).text(COL_STATUS) == "Protected by Echo Desk"))
    edited = where["claude-desktop"].read_text().replace('"claude-desktop"]', '"claude-desktop", "--debug"]')
    where["claude-desktop"].write_text(edited)
    looked: list[object] = []
    found = page._found
    page._found = lambda reports: (looked.append(reports), found(reports))  # type: ignore[method-assign]
    page.refresh()  # the person presses "Look again" after editing the file
    qloop.run_until_complete(until(lambda: looked))
    assert _row(page, where["claude-desktop"]).text(COL_STATUS) == "Protected by Echo Desk"
    page.apps.setCurrentItem(_row(page, where["claude-desktop"]))
    page.undo()
    qloop.run_until_complete(until(lambda: isinstance(page.dialog, RefusedDialog)))
    refused = page.dialog
    assert isinstance(refused, RefusedDialog)
    qloop.run_until_complete(until(lambda: refused.diff.is_loaded))
    assert '"--debug"' in refused.diff.unified.toPlainText()
    assert "Nothing was changed" in page.details.toPlainText()
    assert where["claude-desktop"].read_text() == edited


def test_the_clients_profile_decides_what_it_sees(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    page = _page(qtbot, home)
    qloop.run_until_complete(until(lambda: page.reports))
    page.apps.setCurrentItem(_row(page, where["cursor"]))
    assert page.profile.title() == "What Cursor sees through Echo Desk"
    assert not page.builtins.isChecked() and not page.database_writes.isEnabled()
    page.builtins.setChecked(True)
    assert page.settings.current.gateway.client("cursor").builtins is True
    assert page.database_writes.isEnabled()
    item = page.tools.item(0)
    assert item.data(Qt.ItemDataRole.UserRole) == "time__now" and item.checkState() == Qt.CheckState.Checked
    item.setCheckState(Qt.CheckState.Unchecked)
    assert page.settings.current.gateway.client("cursor").hidden_tools == ["time__now"]
    assert page.settings.current.gateway.client("zed").hidden_tools == []  # per client


def _replace(path: Path, servers: dict[str, object]) -> None:
    """Save ``path`` as apps and editors do: a new file renamed over the old one."""
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_text(json.dumps({"mcpServers": servers}))
    fresh.replace(path)


def test_an_apps_file_changed_elsewhere_shows_without_looking_again(qtbot, qloop, home: Path) -> None:
    """The app adds a server (or ``echo-desk gateway install`` runs in a terminal) while the page is
    open: the row follows, with no click on "Look again"."""
    where = make_home(home)
    page = _page(qtbot, home)
    page.show()
    qloop.run_until_complete(until(lambda: page.reports))
    assert _row(page, where["cursor"]).text(COL_SERVERS) == "2"
    servers = json.loads(where["cursor"].read_text())["mcpServers"]
    _replace(where["cursor"], {**servers, "third": {"command": "npx", "args": ["third-server"]}})
    qloop.run_until_complete(until(lambda: _row(page, where["cursor"]).text(COL_SERVERS) == "3"))
    # Written in place, as an editor may: the file watch itself, not the folder's.
    where["cursor"].write_text(json.dumps({"mcpServers": {"only": {"command": "npx", "args": ["only"]}}}))
    qloop.run_until_complete(until(lambda: _row(page, where["cursor"]).text(COL_SERVERS) == "1"))


def test_a_change_while_the_page_is_hidden_is_read_when_it_is_shown(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    page = _page(qtbot, home)
    qloop.run_until_complete(until(lambda: page.reports))
    looks: list[int] = []
    page._watch._changed = lambda: (looks.append(1), page._files_changed())  # count the settled changes
    _replace(where["cursor"], {})
    qloop.run_until_complete(until(lambda: looks))
    assert _row(page, where["cursor"]).text(COL_SERVERS) == "2"  # hidden: not read yet
    page.show()
    qloop.run_until_complete(until(lambda: _row(page, where["cursor"]).text(COL_SERVERS) == "0"))


def test_the_home_folder_itself_is_not_watched(qtbot, qloop, home: Path) -> None:
    """``~/.claude.json`` lives in the home folder, which changes all the time: the file is
    watched alone."""
    make_home(home)
    page = _page(qtbot, home)
    qloop.run_until_complete(until(lambda: page.reports))
    folders = set(page._watch._watcher.directories())
    assert str(home) not in folders and str(home / ".cursor") in folders
    assert str(home / ".claude.json") in page._watch._watcher.files()


def test_a_write_the_system_refuses_is_said_in_the_persons_language(qtbot, home: Path, monkeypatch) -> None:
    # Before: write_client_file turned the ToolError into PlanError(str(exc)), the model's English
    # ("…: the disk is full; the original file is unchanged"), and the page, in Chinese too,
    # could only say that something failed.
    import errno
    import hashlib
    import re

    from echo_desk.common import atomic
    from echo_desk.mcp.connected.apply import write_client_file
    from echo_desk.mcp.connected.plan import PlanError
    from echo_desk.ui.core import i18n_qt

    where = make_home(home)
    path = where["claude-desktop"]

    def disk_full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", disk_full)
    i18n_qt.apply_language("zh_CN")
    page = _page(qtbot, home)
    try:
        write_client_file(path, "{}", hashlib.sha256(path.read_bytes()).hexdigest())
    except PlanError as exc:
        page._failed(exc)
    else:
        raise AssertionError("the write went through")
    said = page.details.toPlainText()
    # The cause alone after the outcome: "the original file is unchanged" said it a second time.
    assert said == "未做任何更改：磁盘已满", said
    # No English word reaches the sentence but the file's path.
    assert not re.search("[A-Za-z]{3,}", said.replace(str(path), "")), said
    assert "No space left on device" in page.details.toolTip()  # the system's words, for a report


def test_a_home_with_no_app_says_so_instead_of_a_blank_page(qtbot, qloop, home: Path, monkeypatch) -> None:
    from echo_desk.mcp import connected
    from echo_desk.ui.core import i18n_qt

    # The look runs off the UI thread and, in an empty home, may end before the page is made
    # (its answer then comes at once): it is held here, so that "before it finished" is sure.
    finish = threading.Event()
    real_detect = connected.detect

    def held_detect(**where: Any) -> Any:
        finish.wait(10)
        return real_detect(**where)

    monkeypatch.setattr(connected, "detect", held_detect)
    page = _page(qtbot, home)
    assert page.details.toPlainText() == "" and not page.looked  # nothing said before the look has finished
    finish.set()
    qloop.run_until_complete(until(lambda: page.looked))
    assert page.reports == [] and page.apps.topLevelItemCount() == 0
    assert page.details.toPlainText().startswith("No other app that uses MCP servers was found")
    i18n_qt.apply_language("zh_CN")
    try:
        assert page.details.toPlainText().startswith("这台电脑上没有找到")
    finally:
        i18n_qt.apply_language("en")


def test_in_a_900_pixel_settings_window_the_details_and_the_switches_are_whole(qtbot, qloop, home: Path,
                                                                               chinese) -> None:
    # Before: the built-in tools' check box carried its whole explanation as one line of text,
    # held the page ~560 px wide and squeezed the app's details to a column of letters.
    from echo_desk.ui.core import i18n_qt

    make_home(home)
    page = _page(qtbot, home)
    page.resize(700, 560)  # the page's share of a 900 px Settings window
    page.show()
    qtbot.waitExposed(page)
    qloop.run_until_complete(until(lambda: page.reports))
    for language in ("zh_CN", "en"):
        i18n_qt.apply_language(language)
        qtbot.waitUntil(lambda: page.details.width() >= 250)
        for box in (page.builtins, page.database_writes):
            assert box.width() >= box.sizeHint().width(), box.text()
        assert page.builtins_note.isVisible() and page.builtins_note.text() not in page.builtins.text()
