"""A text box's Expand, in a real window: the box grows to all of its text as drawn (wrapped lines
count as several, Chinese lines are taller than the monospace font's spacing) up to a cap of lines,
and scrolls beyond it; what was asked to be read stays readable to its end."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QVBoxLayout, QWidget

from echo_desk.ui.widgets.full_text_box import MOST_EXPANDED_LINES, FullTextBox

TEXTS = {
    "short lines": "\n".join(f"line {n}" for n in range(30)),
    "wrapped lines": "\n".join("word " * 120 for _ in range(3)),
    "Chinese lines": "\n".join("这是一行中文文字，用来看展开以后的高度。" * 2 for _ in range(20)),
    "wrapped lines past the cap": "\n".join("word " * 120 for _ in range(10)),
    "more lines than the cap": "\n".join(f"line {n}" for n in range(100)),
    "one line longer than the cap": "x" * 6000,
}


def _drawn_lines(box: FullTextBox) -> tuple[int, int]:
    """(lines as drawn in all, lines wholly in view), every block laid out."""
    total = whole = 0
    offset, bottom = box.contentOffset(), box.viewport().height()
    block = box.document().begin()
    while block.isValid():
        top = box.blockBoundingGeometry(block).translated(offset).top()  # lays the block out
        layout = block.layout()
        for index in range(layout.lineCount()):
            line = layout.lineAt(index)
            total += 1
            whole += 0 <= top + line.y() and top + line.y() + line.height() <= bottom
        block = block.next()
    return total, whole


@pytest.mark.parametrize("kind", list(TEXTS))
def test_expanded_it_shows_every_line_up_to_the_cap_then_scrolls(qtbot, kind: str) -> None:
    window = QWidget()
    layout = QVBoxLayout(window)
    box = FullTextBox(TEXTS[kind], most_lines=6)
    layout.addWidget(box)
    layout.addWidget(box.footer)
    layout.addStretch(1)
    qtbot.addWidget(window)
    window.resize(700, 1600)  # room for far more than the cap: the box alone decides its height
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(box.expand.isVisible)  # too long for six lines: the footer offers Expand

    box.expand.click()
    bar = box.verticalScrollBar()
    line = box.fontMetrics().lineSpacing()

    def settled() -> bool:
        total, whole = _drawn_lines(box)
        if total <= MOST_EXPANDED_LINES:  # all of it, without a scroll bar or a blank band
            last = box.document().lastBlock()
            spare = box.viewport().height() - box.blockBoundingGeometry(last).translated(box.contentOffset()).bottom()
            return whole == total and bar.maximum() == 0 and 0 <= spare < line
        return whole == MOST_EXPANDED_LINES and bar.maximum() > 0  # the cap, and the rest scrolls

    qtbot.waitUntil(settled)
    if bar.maximum() > 0:
        assert not box.is_loaded
        bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: box.is_loaded and not box.footer.isVisible())


def test_expanded_it_follows_the_window_to_a_narrower_width(qtbot) -> None:
    """Narrower, the same text wraps into more lines: the box grows with them, hiding none."""
    window = QWidget()
    layout = QVBoxLayout(window)
    box = FullTextBox(TEXTS["wrapped lines"], most_lines=6)
    layout.addWidget(box)
    layout.addWidget(box.footer)
    layout.addStretch(1)
    qtbot.addWidget(window)
    window.resize(900, 1600)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(box.expand.isVisible)
    box.expand.click()
    _after_what_is_queued(qtbot)  # the box's own deferred fitting is done before the resize
    qtbot.waitUntil(lambda: _drawn_lines(box)[0] == _drawn_lines(box)[1])
    wide_lines = _drawn_lines(box)[0]
    window.resize(500, 1600)
    qtbot.waitUntil(lambda: _drawn_lines(box)[0] > wide_lines and _drawn_lines(box)[0] == _drawn_lines(box)[1])
    assert box.verticalScrollBar().maximum() == 0


def _after_what_is_queued(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the zero-delay timers started so far have run (they fire in order)."""
    ran: list[bool] = []
    QTimer.singleShot(0, lambda: ran.append(True))
    qtbot.waitUntil(lambda: bool(ran))
