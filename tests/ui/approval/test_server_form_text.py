"""Every text of a server's form, in the window: asked by a real stdio MCP server
(tests/mcp/question_server.py) through the manager on its own thread, shown by the app's host.
Each text the dialog shows (the message, a field's title, description, default, choices) has
its hidden and bidi characters drawn as escapes, and says where the core cut it."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QSpinBox

from echo_desk.mcp import McpManager
from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.mcp.question_caps import MOST_FORM_TEXT_CHARS, MOST_MESSAGE_CHARS, MOST_TITLE_CHARS
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import Question, ToolExecutionContext
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.approval.question_dialog import QuestionDialog
from echo_desk.ui.core.wrap_text import BREAK_POINT
from tests.mcp.helpers import HERE
from tests.ui.conftest import next_emission, within

#: "yes" with a right-to-left override and a zero-width space: drawn raw, it read as "yes" and
#: hid what follows it.
HIDDEN = "yes\u202e\u200bon"
SHOWN = "yes⟨U+202E⟩⟨U+200B⟩on"


def _ask_through_server(qloop: Any, arguments: dict[str, Any], answer: Callable[[QuestionDialog], Any], *,
                        config: ServerConfig | None = None, tool: str = "ask") -> tuple[Any, Any]:
    """Run the server's ``tool`` (the question server's ``ask``) with ``arguments``;
    ``answer(dialog)`` reads the dialog and answers it. Returns what it read and what the server
    got back (its reply read as JSON)."""

    async def run() -> tuple[Any, Any]:
        host = QtHost()
        server = config or parse_server("q", {"command": sys.executable,
                                              "args": ["-S", str(HERE / "question_server.py")]})
        manager = McpManager(SettingsStore.in_memory(), servers={"q": server}, host=host)
        request = manager.start_request("q")
        if request is not None:
            manager.approve_start("q", request.fingerprint)
        try:
            await within(manager.start("q"), 30)
            shown = next_emission(host.dialog_opened)
            ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="q__ask", scope_id="test", host=host)
            call = asyncio.ensure_future(manager.call_tool("q", f"q__{tool}", tool, arguments, ctx))
            read = answer(await within(shown, 30))
            result = await within(call, 30)
            assert result.success, result.error
            # server-everything puts its reply after prose: "... Raw result: {...}"
            return read, json.loads(result.output.rpartition("Raw result: ")[2])
        finally:
            await manager.aclose()

    return qloop.run_until_complete(run())


def _form(**spec: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"confirm": {"type": "string", **spec}}}


def _tooltip_text(html: str) -> str:
    doc = QTextDocument()
    doc.setHtml(html)
    return doc.toPlainText()


def test_a_default_with_hidden_characters_is_shown_as_escapes_and_kept_goes_back_as_given(qtbot, qloop) -> None:
    def keep(dialog: QuestionDialog) -> str:
        field = dialog.fields["confirm"]
        assert isinstance(field, QLineEdit)
        dialog.ok.click()
        return field.text()

    shown, got = _ask_through_server(qloop, {"message": "Sure?", "schema": _form(default=HIDDEN)}, keep)
    assert shown == SHOWN
    assert got == {"action": "accept", "content": {"confirm": HIDDEN}}


def test_an_edited_default_goes_back_as_typed(qtbot, qloop) -> None:
    def edit(dialog: QuestionDialog) -> None:
        field = dialog.fields["confirm"]
        assert isinstance(field, QLineEdit)
        field.setText("no")
        dialog.ok.click()

    _, got = _ask_through_server(qloop, {"message": "Sure?", "schema": _form(default=HIDDEN)}, edit)
    assert got["content"] == {"confirm": "no"}


@pytest.mark.parametrize("kind", ["title", "description", "choice"])
def test_each_other_text_of_a_form_is_shown_with_its_hidden_characters_as_escapes(qtbot, qloop, kind) -> None:
    spec = {"title": {"title": HIDDEN}, "description": {"description": HIDDEN},
            "choice": {"enum": ["no", HIDDEN], "default": HIDDEN}}[kind]

    def read(dialog: QuestionDialog) -> str:
        field = dialog.fields["confirm"]
        text = {"title": lambda: dialog.field_labels["confirm"].text().replace(BREAK_POINT, ""),
                "description": lambda: _tooltip_text(field.toolTip()),
                "choice": lambda: field.currentText() if isinstance(field, QComboBox) else ""}[kind]()
        dialog.ok.click()
        return text

    shown, got = _ask_through_server(qloop, {"message": "Sure?", "schema": _form(**spec)}, read)
    assert shown == SHOWN
    if kind == "choice":
        assert got["content"] == {"confirm": HIDDEN}  # the choice as the server gave it


def test_a_long_question_and_form_say_where_they_were_cut(qtbot, qloop) -> None:
    long = "Y" * 5000

    def read(dialog: QuestionDialog) -> tuple[str, str, str, str]:
        field = dialog.fields["confirm"]
        assert isinstance(field, QLineEdit)
        texts = (dialog.prompt.text(), dialog.field_labels["confirm"].text().replace(BREAK_POINT, ""),
                 _tooltip_text(field.toolTip()),
                 field.text())
        dialog.ok.click()
        return texts

    schema = _form(title="T" * 3000, description="D" * 1500, default=long)
    (prompt, title, tooltip, default), got = _ask_through_server(
        qloop, {"message": "Q", "pad": 49_999, "schema": schema}, read)
    assert prompt.endswith(f"\n… (cut: {50_000 - MOST_MESSAGE_CHARS:,} more characters)")
    assert len(prompt) < MOST_MESSAGE_CHARS + 100
    assert title == "T" * MOST_TITLE_CHARS + " … (cut: 2,800 more characters)"
    assert tooltip == "D" * MOST_FORM_TEXT_CHARS + "\n… (cut: 500 more characters)"
    assert default == "Y" * MOST_FORM_TEXT_CHARS + " … (cut: 4,000 more characters)"
    assert got["content"] == {"confirm": long}  # kept, the server's own default goes back whole


def test_a_number_field_with_bounds_past_a_spin_box_is_shown_narrowed(qtbot, qloop) -> None:
    """A spin box holds 32-bit values: a maximum of 2**40 raised OverflowError building the dialog."""
    def read(dialog: QuestionDialog) -> tuple[int, int]:
        field = dialog.fields["count"]
        assert isinstance(field, QSpinBox)
        dialog.ok.click()
        return field.maximum(), field.value()

    schema = {"type": "object", "properties": {"count": {"type": "integer", "maximum": 2**40, "default": 2**35}}}
    (maximum, value), got = _ask_through_server(qloop, {"message": "How many?", "schema": schema}, read)
    assert maximum == value == 2**31 - 1
    assert got["content"] == {"count": 2**31 - 1}


@pytest.mark.parametrize("spelling", ["oneOf", "enumNames"])
def test_choices_with_titles_show_their_titles_as_escapes_and_send_back_the_value(qtbot, qloop, spelling) -> None:
    """Both of the protocol's spellings; before, such a field was a text box (the oneOf one) or
    showed the bare values (enumNames)."""
    values, titles = ["keep", "wipe"], ["Keep my files", HIDDEN]
    spec = ({"oneOf": [{"const": v, "title": t} for v, t in zip(values, titles, strict=True)]}
            if spelling == "oneOf" else {"enum": values, "enumNames": titles})

    def pick(dialog: QuestionDialog) -> tuple[list[str], str]:
        field = dialog.fields["confirm"]
        assert isinstance(field, QComboBox)
        shown = [field.itemText(i) for i in range(field.count())], field.currentText()
        field.setCurrentIndex(1)
        dialog.ok.click()
        return shown

    (items, current), got = _ask_through_server(
        qloop, {"message": "What now?", "schema": _form(default="keep", **spec)}, pick)
    assert items == ["Keep my files", SHOWN]
    assert current == "Keep my files"  # the default, by its title
    assert got["content"] == {"confirm": "wipe"}  # the value, never the title


def test_a_yes_no_default_ticks_only_when_it_is_true(qtbot) -> None:
    """bool("false") is True: a default of the text "false" showed ticked."""
    schema = {"type": "object", "properties": {name: {"type": "boolean", "default": default} for name, default in
                                               [("real", True), ("text", "false"), ("off", False)]}}
    dialog = QuestionDialog(Question(prompt="Sure?", schema=schema))
    qtbot.addWidget(dialog)
    assert {name: box.isChecked() for name, box in dialog.fields.items()
            if isinstance(box, QCheckBox)} == {"real": True, "text": False, "off": False}
