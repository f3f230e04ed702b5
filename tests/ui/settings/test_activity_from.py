"""Settings › Permissions › Activity, the From column: a sandboxed server's own row (what it left
outside its calls) names the server, a call through the gateway names the connected app, a row
with both names both, and the chat's call its conversation. Before, a server's own row had an
empty From cell (it belongs to no conversation)."""

from __future__ import annotations

import html
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QTreeWidgetItem
from pytestqt.qtbot import QtBot

from echo_desk.store.audit import AuditLog, AuditRecord, server_left
from echo_desk.tools.planted import Change, Planted
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import COL_WHO, ActivityTab

PLANTED = (Planted(".envrc", Change.CREATED, kept="/home/me/.local/share/echo-desk/put-aside/1/ws/.envrc"),)
SERVER = {"en": "notes (MCP server)", "zh_CN": "notes（MCP 服务器）"}
CLIENT = {"en": "Claude Code (through MCP)", "zh_CN": "Claude Code（通过 MCP）"}


def _call(call_id: str = "c1", client: str = "") -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="c0ffee42-1234-5678-9abc-def012345678",
                       scope_chain=("conv",), call_id=call_id, tool="notes__write", source="mcp:notes",
                       arguments={}, decision="auto", provenance="risk default: read", ok=True, error_kind="",
                       error="", duration_ms=1.0, client=client)


def _rows(tab: ActivityTab) -> list[QTreeWidgetItem]:
    items = [tab.calls.topLevelItem(i) for i in range(tab.calls.topLevelItemCount())]
    assert all(item is not None for item in items)
    return [item for item in items if item is not None]


def _tip(item: QTreeWidgetItem, column: int) -> str:
    """A cell's tooltip as the person reads it (plain text made into a paragraph)."""
    return html.unescape(re.sub(r"<[^>]+>", "", item.toolTip(column)))


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_from_column_names_the_server_the_app_or_the_conversation(
        qtbot: QtBot, tmp_path: Path, language: str) -> None:
    i18n_qt.apply_language(language)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        left = server_left("notes", "mcp:notes", "/home/me/ws", PLANTED, time.time())
        audit.append(_call())
        audit.append(_call("c2", client="claude-code"))
        audit.append(left)
        audit.append(replace(left, client="claude-code"))
        audit.wait_tried()
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        both, own, gateway, chat = _rows(tab)  # newest first
        assert own.text(COL_WHO) == SERVER[language]
        assert _tip(own, COL_WHO) == SERVER[language]
        assert both.text(COL_WHO) == f"{SERVER[language]} · {CLIENT[language]}"
        assert gateway.text(COL_WHO) == CLIENT[language]
        assert _tip(gateway, COL_WHO).splitlines() == [CLIENT[language], "c0ffee42-1234-5678-9abc-def012345678"]
        assert chat.text(COL_WHO) == "c0ffee42"
        assert _tip(chat, COL_WHO) == "c0ffee42-1234-5678-9abc-def012345678"
    finally:
        audit.close()
        i18n_qt.apply_language("en")


def test_a_servers_name_is_shown_as_plain_visible_text(qtbot: QtBot, tmp_path: Path) -> None:
    """A server's name is the person's (mcp.json), but shown as every name is: controls made visible."""
    i18n_qt.apply_language("en")
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(server_left("no\u202etes", "mcp:no\u202etes", "/home/me/ws", PLANTED, time.time()))
        audit.wait_tried()
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        [row] = _rows(tab)
        shown = row.text(COL_WHO)
        assert shown.startswith("no") and shown.endswith(" (MCP server)") and "\u202e" not in shown
    finally:
        audit.close()
