"""What the MCP pages say when something fails is in the person's language, and says what did
and did not change: an exception's own English ("No space left on device", a keyring backend's
words, a parser's "expected a quoted key") never reaches the label; it stays in the tooltip,
for a report (``echo_desk.mcp.explain``). The real pages in zh_CN, the real manager and planner;
only the failure itself is made (a full disk, a locked keyring)."""

from __future__ import annotations

import errno
import json
import re
from pathlib import Path

import pytest

from echo_desk.mcp import McpManager
from echo_desk.mcp.config import config_path
from echo_desk.store.settings import SettingsStore
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.mcp_import import describe_item
from echo_desk.ui.settings.mcp_page import McpPage
from echo_desk.ui.settings.mcp_server_form import ServerFormDialog
from tests.mcp.connected.homes import home, make_home
from tests.ui.conftest import until
from tests.ui.settings.test_connected_apps import _page, _row

__all__ = ["home"]

CJK = re.compile(r"[\u4e00-\u9fff]")
#: English words of the exceptions made below, or of any sentence left untranslated.
ENGLISH = re.compile(r"\b(space|device|Keyring|locked|line|column|expected|quoted|key|not|the|Failed|"
                     r"Errno|could|save|import)\b")
DISK_FULL = OSError(errno.ENOSPC, "No space left on device")




@pytest.fixture
def manager(qloop, settings_store: SettingsStore):  # type: ignore[no-untyped-def]
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(json.dumps({"mcpServers": {"off": {"command": "uvx", "enabled": False}}}))
    made = McpManager(settings_store)
    yield made
    qloop.run_until_complete(made.aclose())


def _full_disk(*_args: object, **_kwargs: object) -> None:
    raise DISK_FULL


def test_a_full_disk_on_remove_is_said_in_chinese_with_the_systems_words_in_the_tooltip(
        qtbot, qloop, manager, chinese, monkeypatch) -> None:
    # Before: "Failed: [Errno 28] No space left on device" in any language.
    before = config_path().read_bytes()
    monkeypatch.setattr("echo_desk.mcp.config.write_atomically", _full_disk)
    page = McpPage(manager, QtHost(), str(config_path()))
    qtbot.addWidget(page)
    try:
        page.refresh()
        page.servers.setCurrentItem(page.servers.topLevelItem(0))
        page.remove_button.click()
        qloop.run_until_complete(until(lambda: "磁盘已满" in page.details.toPlainText()))
        said = page.details.toPlainText().rsplit("\n", 1)[-1]
        assert said == "未完成；mcp.json 未改动（系统拒绝了此操作：磁盘已满）", said
        assert not ENGLISH.search(said.replace("mcp.json", ""))
        assert "No space left on device" in page.details.toolTip()  # the technical detail, kept
        assert config_path().read_bytes() == before
    finally:
        page.close_page()


def test_a_locked_keyring_on_save_is_said_in_chinese_and_mcp_json_is_untouched(
        qtbot, qloop, manager, chinese, monkeypatch) -> None:
    # Before: "Could not save the server: Keyring is locked (org.freedesktop.Secret.Error.IsLocked)".
    before = config_path().read_bytes()

    def locked(_secrets: object) -> None:
        raise RuntimeError("Keyring is locked (org.freedesktop.Secret.Error.IsLocked)")

    monkeypatch.setattr("echo_desk.ui.settings.mcp_server_form.store_secrets", locked)
    form = ServerFormDialog(manager)
    qtbot.addWidget(form)
    form.name.setText("new-one")
    form.command.setText("uvx")
    form.env.add_row("TOKEN", "v", keyring=True)
    form.save_button.click()
    qloop.run_until_complete(until(lambda: form.error.isVisibleTo(form) and form.save_button.isEnabled()))
    said = form.error.text()
    assert said == "未保存：密钥环没有接收这些密钥，mcp.json 也未改动（发生了 Echo Desk 未预料到的错误）", said
    assert "IsLocked" in form.error.toolTip() and "RuntimeError" in form.error.toolTip()
    assert config_path().read_bytes() == before


def test_a_full_disk_on_save_says_mcp_json_was_not_changed(qtbot, qloop, manager, chinese, monkeypatch) -> None:
    before = config_path().read_bytes()
    monkeypatch.setattr("echo_desk.mcp.config.write_atomically", _full_disk)
    form = ServerFormDialog(manager)
    qtbot.addWidget(form)
    form.name.setText("new-one")
    form.command.setText("uvx")
    form.save_button.click()
    qloop.run_until_complete(until(lambda: form.error.isVisibleTo(form) and form.save_button.isEnabled()))
    assert form.error.text() == "未保存：mcp.json 未改动（系统拒绝了此操作：磁盘已满）", form.error.text()
    assert "No space left on device" in form.error.toolTip()
    assert config_path().read_bytes() == before


def test_an_mcp_json_broken_by_hand_is_said_in_chinese_where_and_not_in_the_readers_english(
        qtbot, qloop, settings_store, chinese) -> None:
    # Before: "…: not valid JSON (Expecting property name enclosed in double quotes: line 1 column 43 …)".
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('{"mcpServers": {"time": {"command": "uvx",,}}}')
    manager = McpManager(settings_store)
    try:
        form = ServerFormDialog(manager)
        qtbot.addWidget(form)
        form.name.setText("new-one")
        form.command.setText("uvx")
        form.save_button.click()
        said = form.error.text()
        assert "不是有效的 JSON（第 1 行，第 43 列）" in said and "Expecting" not in said, said
        assert CJK.search(said.split("：", 1)[0]), said  # the sentence itself is Chinese
    finally:
        qloop.run_until_complete(manager.aclose())


def test_a_skipped_import_says_why_in_chinese(tmp_path: Path, chinese) -> None:
    # Before: the reason was the ConfigError's English ("bad: a stdio server needs a command").
    from echo_desk.mcp import preview_import

    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"bad": {"command": ""}, "odd": {"type": "ws", "url": "ws://x"}}}))
    items = {item.name: describe_item(item) for item in preview_import(source, current={}).items}
    assert items == {"bad": "bad：stdio 服务器需要一个命令", "odd": "odd：未知类型“ws”（应为 stdio、http 或 sse）"}, items
    i18n_qt.apply_language("en")
    assert describe_item(preview_import(source, current={}).items[0]) == "bad: a stdio server needs a command"


def test_an_apps_file_that_cannot_be_read_is_said_in_chinese_where_it_breaks(qtbot, qloop, home: Path,
                                                                            chinese) -> None:
    # Before: "…因此不会改写它：line 5, column 7: expected a quoted key" (the reader's English).
    where = make_home(home)
    where["cursor"].write_text(where["cursor"].read_text().replace('"args"', "args", 1))
    page = _page(qtbot, home)
    qloop.run_until_complete(until(lambda: page.reports))
    page.apps.setCurrentItem(_row(page, where["cursor"]))
    page.protect()
    qloop.run_until_complete(until(lambda: page.details.toPlainText().startswith("未做任何更改")))
    said = page.details.toPlainText().split("\n", 1)[0]
    # (the outcome is said once: "未做任何更改" already says the file was not rewritten, s204)
    assert said == ("未做任何更改：Echo Desk 无法原样读懂这个文件：第 5 行，第 7 列：此处应为带引号的键"), said
    # What failed, for a report: in English, whatever the language of the page.
    assert "SectionError: line 5, column 7: expected a quoted key" in page.details.toolTip(), page.details.toolTip()
