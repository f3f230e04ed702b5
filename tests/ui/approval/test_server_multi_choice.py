"""A server's field of several choices, in the window: asked by a real stdio MCP server
(tests/mcp/question_server.py) through the manager, shown as boxes to tick, and sent back as a
list of the chosen values. Before, it was a text box whose answer went back as one string."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from echo_desk.tools import Question
from echo_desk.ui.approval.multi_choice_box import MultiChoiceBox
from echo_desk.ui.approval.question_dialog import QuestionDialog
from tests.mcp.conftest import everything_config, needs_everything
from tests.ui.approval.test_server_form_text import HIDDEN, SHOWN, _ask_through_server

FISH = {"anyOf": [{"const": "fish-1", "title": "Tuna"}, {"const": "fish-2", "title": HIDDEN},
                  {"const": "fish-3", "title": "Tom & Jerry"}]}


def _form(**spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"fish": {"type": "array", "title": "Fish", **spec}}}


def _box(dialog: QuestionDialog) -> MultiChoiceBox:
    box = dialog.fields["fish"]
    assert isinstance(box, MultiChoiceBox)
    return box


def _shown(box: MultiChoiceBox) -> list[tuple[str, bool]]:
    return [(box.list.item(row).text(), box.list.item(row).checkState() is Qt.CheckState.Checked)
            for row in range(box.list.count())]


def test_titles_are_shown_as_escapes_the_default_ticked_and_the_ticked_values_go_back_as_a_list(qtbot, qloop) -> None:
    def tick(dialog: QuestionDialog) -> list[tuple[str, bool]]:
        box = _box(dialog)
        shown = _shown(box)
        box.list.item(2).setCheckState(Qt.CheckState.Checked)
        dialog.ok.click()
        return shown

    shown, got = _ask_through_server(qloop, {"message": "Which?", "schema": _form(items=FISH, default=["fish-2"])},
                                     tick)
    # Titles shown, their hidden characters as escapes; the values are what goes back.
    assert shown == [("Tuna", False), (SHOWN, True), ("Tom & Jerry", False)]
    assert got == {"action": "accept", "content": {"fish": ["fish-2", "fish-3"]}}


def test_answer_is_off_while_the_count_is_outside_the_bounds_and_a_line_says_why(qtbot, qloop) -> None:
    def count(dialog: QuestionDialog) -> list[tuple[bool, str]]:
        box = _box(dialog)
        seen = [(dialog.ok.isEnabled(), box.rule.text())]
        for row in (0, 2):
            box.list.item(row).setCheckState(Qt.CheckState.Checked)
            seen.append((dialog.ok.isEnabled(), box.rule.text()))
        dialog.ok.click()  # off: no answer yet
        assert dialog.answer is None
        box.list.item(1).setCheckState(Qt.CheckState.Unchecked)
        seen.append((dialog.ok.isEnabled(), box.rule.text()))
        dialog.ok.click()
        return seen

    schema = _form(items=FISH, minItems=2, maxItems=2, default=["fish-2"])
    seen, got = _ask_through_server(qloop, {"message": "Which two?", "schema": schema}, count)
    assert seen == [(False, "Choose at least 2 to answer (1 chosen)."), (True, "Choose exactly 2."),
                    (False, "Choose at most 2 to answer (3 chosen)."), (True, "Choose exactly 2.")]
    assert got["content"] == {"fish": ["fish-1", "fish-3"]}


def test_a_plain_list_of_choices_with_no_default_goes_back_empty_when_none_is_ticked(qtbot, qloop) -> None:
    def keep(dialog: QuestionDialog) -> tuple[bool, bool]:
        box = _box(dialog)
        dialog.ok.click()
        return box.rule.isVisibleTo(dialog), isinstance(dialog.fields["fish"], QLineEdit)

    (rule_shown, text_box), got = _ask_through_server(
        qloop, {"message": "Any?", "schema": _form(items={"type": "string", "enum": ["a", "b"]})}, keep)
    assert not rule_shown and not text_box  # any number may be chosen: nothing to say
    assert got["content"] == {"fish": []}


def test_the_keys_move_through_the_choices_and_space_ticks_one(qtbot) -> None:
    schema = _form(items={"type": "string", "enum": ["a", "b", "c"], "enumNames": ["A", "B", "C"]}, minItems=1)
    dialog = QuestionDialog(Question(prompt="Which?", schema=schema, mcp_server="s"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    box = _box(dialog)
    box.list.setFocus()
    assert not dialog.ok.isEnabled()
    qtbot.keyClick(box.list, Qt.Key.Key_Down)
    qtbot.keyClick(box.list, Qt.Key.Key_Space)
    assert [ticked for _title, ticked in _shown(box)] == [False, True, False]
    assert dialog.ok.isEnabled()
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # the default button answers
    assert dialog.answer is not None and dialog.answer.values == {"fish": ["b"]}
    assert box.list.accessibleName() == "Fish"


@needs_everything
def test_server_everythings_lists_of_choices_are_ticked_in_the_window_and_reach_it_as_lists(qtbot, qloop) -> None:
    """The reference server (npm server-everything) asks one to three instruments (``items.enum``,
    the default "Guitar") and one to three fish (titled ``items.anyOf``, the default "fish-1")."""
    def tick(dialog: QuestionDialog) -> list[tuple[str, bool]]:
        instruments, fish = (dialog.fields[name] for name in ("untitledMultipleSelectEnum", "titledMultipleSelectEnum"))
        assert isinstance(instruments, MultiChoiceBox) and isinstance(fish, MultiChoiceBox)
        name = dialog.fields["name"]
        assert isinstance(name, QLineEdit)
        name.setText("Ada")
        for row in (1, 3):  # Piano, Drums
            instruments.list.item(row).setCheckState(Qt.CheckState.Checked)
        shown = _shown(fish)
        fish.list.item(0).setCheckState(Qt.CheckState.Unchecked)
        assert not dialog.ok.isEnabled() and fish.rule.text() == "Choose at least 1 to answer (0 chosen)."
        fish.list.item(2).setCheckState(Qt.CheckState.Checked)
        dialog.ok.click()
        return shown

    shown, got = _ask_through_server(qloop, {}, tick, config=everything_config("q", timeout=20),
                                     tool="trigger-elicitation-request")
    assert shown == [("Tuna", True), ("Salmon", False), ("Trout", False)]
    assert got["action"] == "accept"
    assert got["content"]["untitledMultipleSelectEnum"] == ["Guitar", "Piano", "Drums"]
    assert got["content"]["titledMultipleSelectEnum"] == ["fish-3"]
    assert got["content"]["name"] == "Ada"


def test_the_current_choice_is_framed_only_while_the_list_has_the_focus(qtbot) -> None:
    # The frame marks where Space ticks: drawn without the focus it pointed at nothing.
    schema = {"type": "object", "properties": {
        "fish": {"type": "array", "title": "Fish", "items": {"type": "string", "enum": ["a", "b"]}},
        "name": {"type": "string", "title": "Name"}}}
    dialog = QuestionDialog(Question(prompt="Which?", schema=schema, mcp_server="s"))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    box, name = _box(dialog), dialog.fields["name"]

    def drawn() -> bytes:
        image = box.list.viewport().grab().toImage()
        return bytes(image.constBits())

    box.list.setFocus()
    qtbot.waitUntil(box.list.hasFocus)
    framed = drawn()
    name.setFocus()
    qtbot.waitUntil(name.hasFocus)
    unfocused = drawn()
    box.list.setCurrentRow(-1)  # no current row: nothing to frame
    assert box.list.currentRow() == -1
    bare = drawn()
    assert framed != bare and unfocused == bare
