"""A failed call's card reopened from the conversation store (real SQLite, a new store over the
same file) reads as the live card did, in English and in Chinese: the words on the card, and
what Copy takes, which quotes the agent's own English when it read other words than the card's."""

from __future__ import annotations

import json
from pathlib import Path

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.chat_messages import ChatMessage
from echo_desk.i18n import for_model
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.chat.chat_session import _envelope_dict
from echo_desk.ui.chat.tool_card import card_html, copy_text
from echo_desk.ui.chat.transcript import TOOL, TranscriptModel
from echo_desk.ui.chat.transcript_item import TranscriptItem
from echo_desk.ui.core import i18n_qt

#: Calls that fail before they run, each with words for the model and others for the person;
#: ``db_query`` with no database set up nests the tool's own for-the-person reason in the error.
CALLS = [("no_such_tool", "{}"), ("read_file", '{"path": "a.txt"}'), ("db_query", '{"sql": "select 1"}')]


async def _failed(runtime: Runtime, scope: Scope, call: ToolCall) -> Envelope:
    envelope = await runtime.dispatcher.execute_tool(call, scope, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE))
    assert not envelope.ok, envelope
    return envelope


def _reopened(db: Path, calls: list[ToolCall], envelopes: list[Envelope]) -> list[TranscriptItem]:
    """The conversation written through the store and read back by a new one, as at the next start."""
    store = ConversationStore(db)
    conversation = store.create("reopened")
    store.append(conversation.id, ChatMessage(role="assistant", tool_calls=tuple(calls)))
    for call, envelope in zip(calls, envelopes, strict=True):
        store.append(conversation.id, ChatMessage(role="tool", content=envelope.to_text(), tool_call_id=call.id),
                     _envelope_dict(envelope))
    store.close()
    again = ConversationStore(db)
    try:
        model = TranscriptModel()
        model.load_history(again.messages(conversation.id))
        return [item for item in model.items() if item.kind == TOOL]
    finally:
        again.close()


async def test_a_reopened_error_card_reads_as_the_live_one_in_both_languages(
        qapp, builtin_runtime: Runtime, scope: Scope, tmp_path: Path) -> None:
    builtin_runtime.settings.set_tool("read_file", enabled=False)
    calls = [ToolCall(id=f"c{i}", name=name, arguments=args) for i, (name, args) in enumerate(CALLS)]
    for made_in in ("en", "zh_CN"):
        i18n_qt.apply_language(made_in)
        envelopes = [await _failed(builtin_runtime, scope, call) for call in calls]
        live = []
        for call, envelope in zip(calls, envelopes, strict=True):
            model = TranscriptModel()
            model.add_tool_call(call.id, call.name, call.arguments)
            model.set_tool_result(call.id, envelope)
            live.append(model.card(call.id))
        reopened = _reopened(tmp_path / f"{made_in}.sqlite3", calls, envelopes)
        assert [item.call_id for item in reopened] == [call.id for call in calls]
        for shown_in in ("en", "zh_CN"):
            i18n_qt.apply_language(shown_in)
            for before, after, envelope in zip(live, reopened, envelopes, strict=True):
                assert before is not None
                assert card_html(after, after.tool_name) == card_html(before, before.tool_name), (made_in, shown_in)
                assert copy_text(after) == copy_text(before), (made_in, shown_in)
                # The agent's English words, never the person's message id, whatever was reopened.
                assert for_model(after.error) == envelope.model_error
                assert envelope.model_error in copy_text(after)
                stored = json.loads(envelope.to_text())["error"]
                assert stored == envelope.model_error
    i18n_qt.apply_language("en")
