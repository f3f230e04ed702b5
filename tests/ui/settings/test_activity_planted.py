"""Settings › Permissions › Activity: a call that tried to plant something says so on its row,
in the words of its card in the chat ('⚠ 2 plants blocked'), in the warning colour; the row's
tooltip and the details below the table name every entry by its full path, what was done with
it and where it is kept. A call that planted nothing has no mark."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtGui import QColor

from echo_desk.store.audit import AuditLog, AuditRecord, server_left
from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.planted_told import MOST_NAMED
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.settings.activity_tab import COL_TOOL, COL_VERDICT, ActivityTab

CJK = re.compile(r"[\u4e00-\u9fff]")

KEPT = "/home/me/.local/share/echo-desk/put-aside/20261207/ws/.vscode"
PLANTED = (Planted(".vscode", Change.CREATED, kept=KEPT),
           Planted(".envrc", Change.REMOVED, put_back=True))
MARK = {"en": "⚠ 2 plants blocked", "zh_CN": "⚠ 已拦截 2 处植入"}


def _record(call_id: str, planted: tuple[Planted, ...] = ()) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv-1234", scope_chain=("conv-1234",), call_id=call_id,
                       tool="run_command", source="builtin", arguments={"command": "npm install"},
                       decision="allowed", provenance="person: allow_once", ok=True, error_kind=None, error="",
                       duration_ms=800.0, planted=planted, planted_in="/home/me/ws" if planted else "")


@pytest.fixture
def audit(tmp_path: Path):
    log = AuditLog(tmp_path / "audit.sqlite3")
    log.append(_record("quiet"))
    log.append(_record("planting", PLANTED))
    yield log
    log.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_call_that_planted_is_marked_with_every_full_path_in_its_tooltip_and_details(
        qtbot, audit: AuditLog, language: str) -> None:
    i18n_qt.apply_language(language)
    tab = ActivityTab(audit)
    qtbot.addWidget(tab)
    planting, quiet = tab.calls.topLevelItem(0), tab.calls.topLevelItem(1)
    assert planting is not None and quiet is not None
    assert planting.text(COL_VERDICT).endswith(MARK[language]), planting.text(COL_VERDICT)
    assert "⚠" not in quiet.text(COL_VERDICT) and quiet.text(COL_VERDICT) == planting.text(COL_VERDICT).split(" · ")[0]
    assert planting.foreground(COL_VERDICT).color() == QColor(theme.colour("warn"))
    tip = planting.toolTip(COL_VERDICT)
    for shown in ("/home/me/ws/.vscode", "/home/me/ws/.envrc", KEPT):
        assert shown in tip, tip
    tab.calls.setCurrentItem(planting)
    assert "/home/me/ws/.vscode" in tab.detail.text() and KEPT in tab.detail.text()
    tab.calls.setCurrentItem(quiet)
    assert ".vscode" not in tab.detail.text()


def test_what_an_mcp_server_left_is_said_as_the_servers_doing(qtbot, tmp_path: Path) -> None:
    i18n_qt.apply_language("en")
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(replace(_record("served", PLANTED[:1]), tool="notes__write", source="mcp:notes"))
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        item = tab.calls.topLevelItem(0)
        assert item is not None and item.text(COL_VERDICT).endswith("⚠ 1 plant blocked")
        assert "The sandboxed server left in its folder what would run code later" in item.toolTip(COL_VERDICT)
        tab.calls.setCurrentItem(item)
        assert "The sandboxed server left in its folder" in tab.detail.text()
    finally:
        log.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_servers_own_row_of_what_it_left_outside_its_calls_names_it_and_every_full_path(
        qtbot, tmp_path: Path, language: str) -> None:
    i18n_qt.apply_language(language)
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(server_left("notes", "mcp:notes", "/home/me/ws", PLANTED[:1], time.time()))
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        item = tab.calls.topLevelItem(0)
        assert item is not None and item.text(COL_TOOL) == "notes"
        verdict = item.text(COL_VERDICT)
        assert verdict.endswith({"en": "⚠ 1 plant blocked", "zh_CN": "⚠ 已拦截 1 处植入"}[language])
        assert "/home/me/ws/.vscode" in item.toolTip(COL_VERDICT)
        tab.calls.setCurrentItem(item)
        detail = tab.detail.text()
        assert "“notes”" in detail and "/home/me/ws/.vscode" in detail and KEPT in detail
        if language == "en":
            assert verdict.startswith("left by the server outside its calls")
            assert "It was put aside when the server stopped" in detail
        else:
            assert CJK.search(verdict.split(" · ")[0]) and CJK.search(detail.splitlines()[0])
    finally:
        log.close()
        i18n_qt.apply_language("en")


def test_a_row_that_kept_a_bounded_few_still_counts_every_plant(qtbot, tmp_path: Path) -> None:
    """A call that planted 10,000 files: its row keeps a few hundred (``store.audit.MOST_AUDITED``)
    and how many more; the mark and the tooltip count them all (the tooltip names a few)."""
    many = tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED) for i in range(10_000))
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(_record("many", many))
        i18n_qt.apply_language("en")
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        row = tab.calls.topLevelItem(0)
        assert row is not None
        assert row.text(COL_VERDICT).endswith("⚠ 10000 plants blocked"), row.text(COL_VERDICT)
        assert f"\n{10_000 - MOST_NAMED} more<" in row.toolTip(COL_VERDICT)
    finally:
        log.close()
