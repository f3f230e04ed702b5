"""A built-in tool's error reaches the person in their language on its card, through the real
dispatcher, while the model still reads the English (with its hints) it always read."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.builtins.files.lifecycle import MAX_WRITE_BYTES
from echo_desk.runtime import Runtime
from echo_desk.ui.chat.card_parse import result_of_envelope
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript_item import TOOL, TranscriptItem
from echo_desk.ui.core import i18n_qt
from tests.builtins.tool_test_helpers import LoopbackServer
from tests.ui.test_live_switch import english_left


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer({}) as srv:  # every path answers 404
        yield srv


def _failure_text(card: str) -> str:
    """The card's failure block (its last <pre>), as text."""
    blocks = re.findall(r"<pre[^>]*>(.*?)</pre>", card, re.S)
    return html.unescape(blocks[-1]) if blocks else ""


async def _fails(runtime: Runtime, scope: Scope, name: str, args: dict[str, Any]) -> tuple[str, str]:
    """(what the model reads, what the card shows) of a call that fails."""
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    envelope = await runtime.dispatcher.execute_tool(ToolCall(id="c1", name=name, arguments=json.dumps(args)),
                                                     scope, host)
    assert not envelope.ok, envelope
    item = TranscriptItem(TOOL, tool_name=name, call_id="c1", arguments=json.dumps(args))
    item.show_result(result_of_envelope(envelope))
    return envelope.error, _failure_text(card_html(item, name))


async def test_builtin_errors_show_in_chinese_while_the_model_reads_english(
        builtin_runtime: Runtime, scope: Scope, workspace: Path, server: LoopbackServer) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "big.txt").write_bytes(b"x" * (MAX_WRITE_BYTES - 10))
    cases = [
        ("read_file", {"path": "missing.txt"}, "does not exist", "不存在"),
        ("list_dir", {"path": "../elsewhere"}, "which is outside the workspace", "不在工作区"),
        ("edit_file", {"path": "a.txt", "edits": [{"old": "omega", "new": "beta"}]},
         "edit 1: the old text 'omega' was not found (after the edits before it). Nothing was written.", "未找到"),
        ("append_to_file", {"path": "big.txt", "text": "more text than fits"},
         f"the new content is {MAX_WRITE_BYTES + 11} bytes; the limit is {MAX_WRITE_BYTES}", "上限"),
        ("fetch_url", {"url": f"{server.url}/gone"}, f"{server.url}/gone answered HTTP 404 Not Found", "404"),
        ("search_files", {"regex": "alpha", "glob": "*.nothing"},
         "no file name under '.' matches the glob '*.nothing', so no text was searched; leave 'glob' out", "没有"),
    ]
    english = {}
    for name, args, _, _ in cases:
        english[name] = await _fails(builtin_runtime, scope, name, args)
    i18n_qt.apply_language("zh_CN")
    for name, args, model_words, chinese in cases:
        error, shown = await _fails(builtin_runtime, scope, name, args)
        # The model's words are the same in both languages, and are English.
        assert error == english[name][0] and model_words in error, (name, error)
        assert english_left(error)
        # The person's are Chinese, and keep the path or number they name.
        assert chinese in shown, (name, shown)
        assert not english_left(shown, {"omega"}), (name, shown)
        assert shown != english[name][1]
    # A card made while English was chosen follows a switch to Chinese too (the error is deferred).
    i18n_qt.apply_language("en")
    error, shown = await _fails(builtin_runtime, scope, "read_file", {"path": "missing.txt"})
    item = TranscriptItem(TOOL, tool_name="read_file", call_id="c1", arguments="{}", error=error)
    i18n_qt.apply_language("zh_CN")
    assert "不存在" in _failure_text(card_html(item, "read_file"))
