"""The chat window with a real engine, a real store and a scripted model."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QApplication

from echo_desk.agent.prompts import system_message
from echo_desk.store.conversations import ConversationStore
from echo_desk.ui.chat.chat_window import MainWindow
from echo_desk.ui.chat.transcript import ASSISTANT, TOOL, USER
from tests.ui.conftest import attached_window, next_emission, within
from tests.ui.fake_model import ScriptedModel, call, say


@pytest.fixture
def window(qtbot, qloop, runtime, tmp_path):
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    win = attached_window(qtbot, runtime, store)
    win.set_banner(win.services.banner)
    yield win
    win.session.stop()
    store.close()


def _workspace(window: MainWindow, folder) -> None:
    window.set_workspace(str(folder))
    assert window.session.scope is not None and window.session.scope.workspace_roots[0] == folder.resolve()


def test_without_a_model_the_chat_says_so_and_how_to_connect(window):
    assert window.banner.isVisibleTo(window)
    assert "No model is connected" in window.banner.text()
    assert "Settings › Models" in window.banner.text()
    window.composer.setPlainText("hello?")
    window.send()
    items = window.session.transcript.items()
    assert [i.kind for i in items] == [USER, "error"]
    assert "No model is connected" in items[-1].text


def test_a_turn_with_a_tool_call_renders_and_is_stored(window, qloop, workspace):
    (workspace / "notes.txt").write_text("milk, eggs")
    _workspace(window, workspace)
    model = ScriptedModel([call("c1", "read_note", json.dumps({"path": "notes.txt"})), say("You need milk and eggs.")])
    window.services.model = model
    window.set_model(model)
    window.set_banner(window.services.banner)
    assert not window.banner.isVisibleTo(window)

    async def scenario():
        window.composer.setPlainText("What is in notes.txt?")
        window.send_button.click()  # busy_changed(True) is emitted synchronously
        assert window.stop_button.isEnabled()
        assert await within(next_emission(window.session.busy_changed)) is False

    qloop.run_until_complete(scenario())
    items = window.session.transcript.items()
    assert [i.kind for i in items] == [USER, TOOL, ASSISTANT]
    card = items[1]
    assert card.status == "done" and card.result == "milk, eggs"
    assert items[2].text.strip() == "You need milk and eggs."
    assert set(model.seen_tools[0]) == {"read_note", "write_note"}
    window.session.flush_writes()
    stored = window.services.conversations.messages(window.session.conversation.id)
    assert [m.message.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[2].envelope is not None and stored[2].envelope["ok"] is True

    # Reopening the conversation rebuilds the same rows from the store.
    window.session.open(window.session.conversation)
    again = window.session.transcript.items()
    assert [i.kind for i in again] == [USER, TOOL, ASSISTANT]
    assert again[1].status == "done" and again[1].result == "milk, eggs"


def test_stop_cancels_the_turn_and_says_so(window, qloop, workspace):
    _workspace(window, workspace)
    model = ScriptedModel([], delay=0.01, endless=True)
    window.set_model(model)

    async def scenario():
        first_text = next_emission(window.session.transcript.rowsInserted)  # user row
        window.composer.setPlainText("talk forever")
        window.send()
        await within(first_text)
        streaming = next_emission(window.session.transcript.rowsInserted)  # the assistant bubble
        await within(streaming)
        done = next_emission(window.session.busy_changed)
        window.stop_button.click()
        return await within(done)

    assert qloop.run_until_complete(scenario()) is False
    items = window.session.transcript.items()
    assert items[-1].kind == "notice" and "Stopped" in items[-1].text
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()


def test_conversations_new_rename_delete_search(window):
    store = window.services.conversations
    first = window.session.conversation
    window.new_conversation()
    assert window.conversations.row_count() == 2
    store.rename(first.id, "Groceries")
    window.conversations.reload()
    window.conversations.search.setText("groc")
    window.conversations.message_search.run_now()  # (it runs when typing pauses)
    assert [h.conversation_id for h in window.conversations.results.hits()] == [first.id]
    window.conversations.search.setText("")
    # Rename in place, as the list's editor does.
    index = window.conversations.index_of(first.id)
    window.conversations.model.setData(index, "Shopping")
    assert store.get(first.id).title == "Shopping"
    store.delete(first.id)
    window.conversations.reload()
    assert window.conversations.row_count() == 1


def test_first_message_names_the_conversation_and_renaming_does_not_stop_the_turn(window, qloop, workspace):
    _workspace(window, workspace)
    window.set_model(ScriptedModel([], delay=0.01, endless=True))
    store = window.services.conversations

    async def scenario():
        window.composer.setPlainText("Plan a   trip to\nKyoto in spring")
        window.send()
        conv_id = window.session.conversation.id
        assert store.get(conv_id).title == "Plan a trip to Kyoto in spring"
        assert window.conversations.current().title == "Plan a trip to Kyoto in spring"
        store.rename(conv_id, "Kyoto")
        window.conversations.reload(conv_id)  # what an in-place rename does
        assert window.session.busy  # still running
        stopped = next_emission(window.session.busy_changed)
        window.session.stop()
        await within(stopped)

    qloop.run_until_complete(scenario())


def test_the_model_in_the_window_receives_the_system_prompt_with_the_workspace(window, qloop, workspace):
    _workspace(window, workspace)
    model = ScriptedModel([say("Hi.")])
    window.set_model(model)

    async def scenario():
        window.composer.setPlainText("hello")
        window.send()
        await within(next_emission(window.session.busy_changed))

    qloop.run_until_complete(scenario())
    sent = model.seen_messages[0]
    assert [m.role for m in sent] == ["system", "user"]
    assert str(workspace.resolve()) in sent[0].content
    assert sent[0].content == system_message(window.session.scope).content  # the CLI's prompt, same function
    # The prompt is not history: it is not stored.
    window.session.flush_writes()
    assert [m.message.role for m in window.services.conversations.messages(window.session.conversation.id)] == [
        "user", "assistant"]


def test_auto_title_still_works_after_a_live_language_switch(window, qloop, workspace):
    from echo_desk.ui.core import i18n_qt

    _workspace(window, workspace)
    store = window.services.conversations
    conv_id = window.session.conversation.id
    assert store.get(conv_id).title == ""  # untitled in the data
    assert window.conversations.current_item_text() == "New conversation"
    i18n_qt.apply_language("zh_CN")
    try:
        QApplication.processEvents()
        assert window.conversations.current_item_text() == "新对话"  # the placeholder follows the language
        window.set_model(ScriptedModel([say("好")]))

        async def scenario():
            window.composer.setPlainText("去京都旅行")
            window.send()
            await within(next_emission(window.session.busy_changed))

        qloop.run_until_complete(scenario())
        assert store.get(conv_id).title == "去京都旅行"
        assert window.conversations.current_item_text() == "去京都旅行"
    finally:
        i18n_qt.apply_language("en")
