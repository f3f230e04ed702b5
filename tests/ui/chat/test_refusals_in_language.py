"""The dispatcher's own refusals (an unknown tool, arguments that are not JSON or do not fit the
schema, a tool switched off) reach the person in their language on the card, as the built-in
tools' errors do, while the model reads the same English; and a card reopened from storage
speaks the language of the moment too."""

from __future__ import annotations

import json
from typing import Any

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.i18n import (
    N_,
    deferred_as_json,
    deferred_from_json,
    for_model,
    for_person,
    quoted_later,
    shown,
)
from echo_desk.runtime import Runtime
from echo_desk.ui.chat.card_parse import result_of_envelope, result_of_stored
from echo_desk.ui.chat.chat_session import _envelope_dict
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript_item import TOOL, TranscriptItem
from echo_desk.ui.core import i18n_qt
from tests.ui.chat.test_tool_errors_in_language import _failure_text
from tests.ui.test_live_switch import english_left


async def _refused(runtime: Runtime, scope: Scope, name: str, arguments: str) -> Envelope:
    envelope = await runtime.dispatcher.execute_tool(ToolCall(id="c1", name=name, arguments=arguments), scope,
                                                     ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
    assert not envelope.ok, envelope
    return envelope


def _card(envelope: Envelope, name: str, stored: bool = False) -> str:
    item = TranscriptItem(TOOL, tool_name=name, call_id="c1", arguments="{}")
    if stored:  # as a reopened conversation reads it back from SQLite
        kept = json.loads(json.dumps(_envelope_dict(envelope), ensure_ascii=False))
        item.show_result(result_of_stored(kept, envelope.to_text()))
    else:
        item.show_result(result_of_envelope(envelope))
    return _failure_text(card_html(item, name))


CASES: list[tuple[str, str, str, str]] = [
    # (tool, raw arguments, the model's words, the person's Chinese)
    ("no_such_tool", "{}", "unknown tool 'no_such_tool'", "不存在"),
    ("read_file", '{"path": ', "arguments are not valid JSON", "不是有效的 JSON"),
    ("read_file", "[1, 2]", "arguments must be a JSON object, got list", "不是 JSON 对象"),
    ("read_file", "{}", "missing required argument 'path'", "缺少参数"),
    ("read_file", '{"path": "a.txt", "colour": "red"}', "unexpected argument 'colour'", "colour"),
    ("read_file", '{"path": 5}', "argument 'path': expected string, got integer", "应为"),
]


async def test_refusals_show_in_chinese_while_the_model_reads_english(builtin_runtime: Runtime,
                                                                      scope: Scope) -> None:
    english = {(n, a): await _refused(builtin_runtime, scope, n, a) for n, a, _, _ in CASES}
    i18n_qt.apply_language("zh_CN")
    for name, arguments, model_words, chinese in CASES:
        envelope = await _refused(builtin_runtime, scope, name, arguments)
        assert envelope.error == english[name, arguments].error and model_words in envelope.error
        for stored in (False, True):
            shown_text = _card(envelope, name, stored)
            assert chinese in shown_text, (name, arguments, stored, shown_text)
            assert not english_left(shown_text, {"colour", "no_such_tool", "path", "JSON"}), shown_text
    # The card stored while English was chosen, reopened after a switch, follows the switch.
    i18n_qt.apply_language("en")
    envelope = await _refused(builtin_runtime, scope, "read_file", "{}")
    i18n_qt.apply_language("zh_CN")
    assert "缺少参数" in _card(envelope, "read_file", stored=True)


async def test_a_tool_switched_off_says_where_to_switch_it_on(builtin_runtime: Runtime, scope: Scope) -> None:
    builtin_runtime.settings.set_tool("read_file", enabled=False)
    i18n_qt.apply_language("zh_CN")
    envelope = await _refused(builtin_runtime, scope, "read_file", '{"path": "a.txt"}')
    assert envelope.error == "tool 'read_file' is disabled in settings"
    assert "“设置 › 工具”中关闭" in _card(envelope, "read_file", stored=True)


def test_a_stored_message_is_formatted_only_when_each_field_is_a_plain_name_given_a_value() -> None:
    made = for_person("model words", N_("{name} did not finish within {seconds} s."),
                      name=quoted_later("read_file"), seconds="5")
    kept = json.loads(json.dumps(deferred_as_json(made)))
    assert shown(deferred_from_json("model words", kept)) == "“read_file” did not finish within 5 s."
    assert for_model(deferred_from_json("model words", kept)) == "model words"  # still the model's own
    assert deferred_as_json("plain text") is None
    hostile: list[Any] = [
        {"msgid": "{name.__class__.__mro__}", "params": {"name": "x"}},  # attribute access
        {"msgid": "{name[0]}", "params": {"name": "x"}},  # indexing
        {"msgid": "{name!r:>999999999}", "params": {"name": "x"}},  # a conversion and a huge width
        {"msgid": "{missing} did not finish", "params": {}},  # a field with no value
        {"msgid": "{", "params": {}},  # not a format at all
        {"msgid": 5, "params": {}}, {"msgid": "x", "params": []}, "not a dict", None,
    ]
    for value in hostile:
        restored = deferred_from_json("model words", value)
        assert shown(restored) == "model words", value
    # A list and a nested deferred come back as they went.
    listed = for_person("m", N_("missing argument: {names}"), names=("a", "b"))
    assert shown(deferred_from_json("m", json.loads(json.dumps(deferred_as_json(listed))))) == \
        "missing argument: a, b"
