"""Settings › Permissions › Activity names a few of thousands of planted entries, with how many
more, in a call row's tooltip and details, and in the details of a server's own row
(``server_left``) and of a check made after a restart (``checked_after_restart``); a call whose
sandbox checked only the first folders says so in its details. In English and in Chinese.
Before, the tooltip and details named every entry the row kept (up to 500: a tooltip taller than
the screen), the two event rows said nothing of those left out, and the bound went unsaid."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from echo_desk.store.audit import AuditLog, AuditRecord, checked_after_restart, server_left
from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.planted_told import MOST_NAMED
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import COL_VERDICT, ActivityTab

CJK = re.compile(r"[\u4e00-\u9fff]")
MANY = 2_000
PLANTS = tuple(Planted(f"pkg{i:05}/.envrc", Change.CREATED, kept=f"/k/pkg{i:05}/.envrc") for i in range(MANY))
MORE = {"en": f"{MANY - MOST_NAMED} more", "zh_CN": f"另有 {MANY - MOST_NAMED} 项"}
CUT = {"en": "Only the first 1,000 folders of this workspace were checked for planted files",
       "zh_CN": "只检查了这个工作区的前 1,000 个文件夹里有没有植入的文件"}


def _call(call_id: str, planted: tuple[Planted, ...] = (), folders_checked: int = 0) -> AuditRecord:
    return AuditRecord(at=time.time(), conversation_id="conv-1234", scope_chain=("conv-1234",), call_id=call_id,
                       tool="run_command", source="builtin", arguments={"command": "npm install"},
                       decision="allowed", provenance="person: allow_once", ok=True, error_kind=None, error="",
                       duration_ms=800.0, planted=planted, planted_in="/home/me/ws",
                       folders_checked=folders_checked)


def _named(text: str) -> int:
    """The entries named (by their full path: each line of where one is kept names it too)."""
    return len(re.findall(r"/home/me/\w+/pkg\d{5}/\.envrc", text))


def _details(qtbot: QtBot, tmp_path: Path, record: AuditRecord) -> tuple[ActivityTab, str]:
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(record)
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        item = tab.calls.topLevelItem(0)
        assert item is not None
        tab.calls.setCurrentItem(item)
        qtbot.waitUntil(lambda: bool(tab.detail.text()), timeout=3000)
        return tab, tab.detail.text()
    finally:
        log.close()


@pytest.fixture(params=["en", "zh_CN"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n_qt.apply_language(request.param)
    yield request.param
    i18n_qt.apply_language("en")


def test_a_calls_tooltip_and_details_name_a_few_and_say_how_many_more(qtbot: QtBot, tmp_path: Path, language: str) -> None:
    tab, detail = _details(qtbot, tmp_path, _call("many", PLANTS))
    item = tab.calls.topLevelItem(0)
    assert item is not None
    tip = item.toolTip(COL_VERDICT)
    assert _named(tip) == MOST_NAMED and MORE[language] in tip, tip[:2000]
    assert _named(detail) == MOST_NAMED and MORE[language] in detail


def test_a_servers_own_row_names_a_few_and_says_how_many_more(qtbot: QtBot, tmp_path: Path, language: str) -> None:
    _tab, detail = _details(qtbot, tmp_path, server_left("notes", "mcp:notes", "/home/me/srv", PLANTS, time.time()))
    assert "“notes”" in detail
    assert _named(detail) == MOST_NAMED and MORE[language] in detail, detail[:2000]


@pytest.mark.parametrize("server", ["", "notes"], ids=["command", "server"])
def test_a_check_after_a_restart_names_a_few_and_says_how_many_more(qtbot: QtBot, tmp_path: Path, language: str,
                                                                     server: str) -> None:
    record = checked_after_restart(conversation_id="conv-1234", call_id="" if server else "c1",
                                   tool=server or "run_command", workspace="/home/me/ws", started=time.time() - 60,
                                   planted=PLANTS, error="", at=time.time(), server=server)
    _tab, detail = _details(qtbot, tmp_path, record)
    assert _named(detail) == MOST_NAMED and MORE[language] in detail, detail[:2000]
    if language == "zh_CN":
        assert CJK.search(detail.splitlines()[0])


def test_a_call_whose_search_stopped_at_its_bound_says_so_in_its_details(qtbot: QtBot, tmp_path: Path,
                                                                          language: str) -> None:
    _tab, detail = _details(qtbot, tmp_path, _call("cut", folders_checked=1000))
    assert CUT[language] in detail, detail


def test_a_call_whose_every_folder_was_checked_says_nothing_of_it(qtbot: QtBot, tmp_path: Path) -> None:
    i18n_qt.apply_language("en")
    _tab, detail = _details(qtbot, tmp_path, replace(_call("all"), planted=PLANTS[:2]))
    assert "folders" not in detail and _named(detail) == 2 and "more" not in detail
