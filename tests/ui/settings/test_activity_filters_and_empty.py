"""Settings › Permissions › Activity as a new user first sees it, at the narrowest the tab allows,
in English and Chinese: each filter's hint is shown whole (it was cut to "Conversati…" and
"对话 ID（开头几…"), the verdict list shows each verdict whole, and an empty table says why."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox, QLineEdit, QStyle, QStyleOptionComboBox, QStyleOptionFrame

from echo_desk.store.audit import AuditLog, AuditRecord
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import ActivityTab


def _text_room(edit: QLineEdit) -> int:
    """The width a line edit draws its text in (Qt keeps 2 px each side inside the contents)."""
    option = QStyleOptionFrame()
    edit.initStyleOption(option)
    rect = edit.style().subElementRect(QStyle.SubElement.SE_LineEditContents, option, edit)
    margins = edit.textMargins()
    return rect.width() - margins.left() - margins.right() - 4


def _combo_room(combo: QComboBox) -> int:
    option = QStyleOptionComboBox()
    combo.initStyleOption(option)
    return combo.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                        QStyle.SubControl.SC_ComboBoxEditField, combo).width()


@pytest.fixture
def audit(tmp_path: Path):
    log = AuditLog(tmp_path / "audit.sqlite3")
    yield log
    log.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_each_filter_hint_is_whole_at_the_narrowest(qtbot, audit: AuditLog, language: str) -> None:
    i18n_qt.apply_language(language)
    tab = ActivityTab(audit)
    qtbot.addWidget(tab)
    tab.show()
    tab.resize(tab.minimumSizeHint())
    qtbot.waitUntil(lambda: tab.width() == max(tab.minimumSizeHint().width(), tab.minimumWidth()), timeout=5000)
    for edit in (tab.tool, tab.conversation):
        hint = edit.placeholderText()
        assert edit.fontMetrics().horizontalAdvance(hint) <= _text_room(edit), (language, hint, edit.width())
    assert tab.conversation.toolTip()  # the hint is short; how much of an id is enough is said here
    for combo in (tab.decision, tab.period):
        assert combo.fontMetrics().horizontalAdvance(combo.currentText()) <= _combo_room(combo), combo.currentText()
    # The verdicts' own words are long ("withdrawn while you were asked"): whole in the list.
    view = tab.decision.view()
    widest = max(view.fontMetrics().horizontalAdvance(tab.decision.itemText(i)) for i in range(tab.decision.count()))
    assert view.minimumWidth() >= widest
    # The narrowest Settings window (764 px) leaves the tab about 540 px: the filters ask for less.
    assert tab.minimumSizeHint().width() <= 540


def test_an_empty_table_says_what_fills_it_and_a_filter_that_matches_nothing_says_so(
        qtbot, audit: AuditLog) -> None:
    i18n_qt.apply_language("zh_CN")
    tab = ActivityTab(audit)
    qtbot.addWidget(tab)
    tab.show()
    assert tab.empty.isVisible() and "工具调用" in tab.empty.text()
    audit.append(AuditRecord(at=time.time(), conversation_id="c0ffee42-1234", scope_chain=("conv",), call_id="c1",
                             tool="read_file", source="builtin", arguments={"path": "a.txt"}, decision="auto",
                             provenance="risk default: read", ok=True, error_kind="", error="", duration_ms=1.0))
    audit.wait_tried()
    tab.reload()
    assert tab.calls.topLevelItemCount() == 1 and not tab.empty.isVisible()
    tab.tool.setText("write_file")  # no such call: the filters say it, not an unexplained blank
    assert tab.calls.topLevelItemCount() == 0 and tab.empty.isVisible()
    assert tab.empty.text() == "没有符合这些筛选条件的调用。"
    i18n_qt.apply_language("en")
    assert tab.empty.text() == "No call matches these filters."
