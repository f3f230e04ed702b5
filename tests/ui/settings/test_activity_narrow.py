"""Settings › Permissions › Activity in a 900-pixel window: the time, who asked (a connected app or
the conversation), the tool and the verdict stay in view; what decided the call takes what is
left and elides, each cell's whole text in its tooltip; the table never scrolls sideways.
Before, the columns had fixed widths: the table scrolled sideways and the Conversation column,
the one naming Cursor, was cut to "…"."""

from __future__ import annotations

import html
import re
import time
from dataclasses import replace
from pathlib import Path

import pytest

from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import (
    COL_DECIDER,
    COL_TIME,
    COL_TOOL,
    COL_VERDICT,
    COL_WHO,
    ActivityTab,
)

LONG_TOOL = "github__create_pull_request_review_with_comments"


def _record(n: int, **changes: object) -> AuditRecord:
    made = AuditRecord(at=time.time() - n, conversation_id=f"c0ffee4{n}-1234-5678-9abc-def012345678",
                       scope_chain=("conv",), call_id=f"c{n}", tool="read_file", source="builtin",
                       arguments={"path": "/home/me/notes.txt"}, decision="auto", provenance="risk default: read",
                       ok=True, error_kind="", error="", duration_ms=1.0)
    return replace(made, **changes)


def _tip(item, column: int) -> str:  # type: ignore[no-untyped-def]
    """A cell's tooltip as the person reads it (it is plain text made into a paragraph)."""
    return html.unescape(re.sub(r"<[^>]+>", "", item.toolTip(column)))


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_who_tool_and_verdict_stay_in_view_at_900_pixels(qtbot, tmp_path: Path, language: str) -> None:
    i18n_qt.apply_language(language)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        audit.append(_record(1))
        audit.append(_record(2, tool=LONG_TOOL, decision="withdrawn", provenance="settings: ask",
                             client="claude-code", source="mcp:github"))
        audit.wait_tried()
        tab = ActivityTab(audit)
        qtbot.addWidget(tab)
        tab.resize(700, 400)  # the tab's width in a 900-pixel Settings window (the page list beside it)
        tab.show()
        calls = tab.calls
        qtbot.waitUntil(lambda: calls.viewport().width() < 700, timeout=5000)
        widths = [calls.columnWidth(c) for c in range(calls.columnCount())]
        # Nothing sideways: every column within the view, the last one included.
        assert sum(widths) <= calls.viewport().width(), (widths, calls.viewport().width())
        assert calls.horizontalScrollBar().maximum() == 0
        metrics = calls.fontMetrics()
        rows = [calls.topLevelItem(i) for i in range(calls.topLevelItemCount())]
        for column in (COL_TIME, COL_VERDICT):  # shown whole
            widest = max(metrics.horizontalAdvance(item.text(column)) for item in rows)
            assert calls.columnWidth(column) >= widest, (column, widths)
        for column in (COL_WHO, COL_TOOL, COL_DECIDER):  # a usable width, the whole text on hover
            assert calls.columnWidth(column) >= 90, (column, widths)
        app_row = next(item for item in rows if item.text(COL_TOOL) == LONG_TOOL)
        assert app_row.text(COL_WHO).startswith("Claude Code")
        assert _tip(app_row, COL_TOOL) == LONG_TOOL
        assert _tip(app_row, COL_WHO).splitlines() == [app_row.text(COL_WHO), "c0ffee42-1234-5678-9abc-def012345678"]
        assert app_row.text(COL_DECIDER) and _tip(app_row, COL_DECIDER) == app_row.text(COL_DECIDER)
        # Wider, the names get their room back.
        tab.resize(1000, 400)
        qtbot.waitUntil(lambda: calls.columnWidth(COL_TOOL) > widths[COL_TOOL], timeout=5000)
    finally:
        i18n_qt.apply_language("en")
        audit.close()
