"""Break points in a shown copy: only in long unbroken runs, never before a combining mark."""

from __future__ import annotations

from echo_desk.ui.core.wrap_text import BREAK_POINT, LONGEST_RUN, breakable


def test_short_words_and_spaces_are_left_as_they_are() -> None:
    text = "Type yes to go on, " + "w" * LONGEST_RUN
    assert breakable(text) == text


def test_a_long_run_gets_a_break_point_every_so_many_characters_and_loses_nothing() -> None:
    shown = breakable("T" * 200 + " end")
    assert shown.replace(BREAK_POINT, "") == "T" * 200 + " end"
    assert max(len(part) for part in shown.replace(" ", BREAK_POINT).split(BREAK_POINT)) == LONGEST_RUN


def test_no_break_point_tears_an_accent_from_its_letter() -> None:
    run = "a" + "e\u0301" * 30  # é as e and a combining acute accent, the 21st character an accent
    shown = breakable(run)
    assert shown.replace(BREAK_POINT, "") == run
    assert f"{BREAK_POINT}\u0301" not in shown
