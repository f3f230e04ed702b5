"""A file name whose bytes are not UTF-8, and call arguments with lone surrogates (a JSON
``"\\udcff"`` from a model or a gateway client): the result can be stored and sent, and the audit
log goes on. Before, the conversation store refused the ``list_dir`` result, and one such call
ended the audit log's writer thread (every later call went unrecorded)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.chat_messages import ChatMessage
from echo_desk.runtime import Runtime
from echo_desk.store.conversations import ConversationStore


def _make(path: bytes) -> None:
    with open(path, "w") as fh:
        fh.write("x")


async def test_a_listing_of_a_name_that_is_not_utf8_is_stored_and_sendable(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, store: ConversationStore) -> None:
    _make(os.path.join(os.fsencode(workspace), b"z\xff.txt"))
    envelope = await runtime.dispatcher.execute_tool(
        ToolCall(id="c1", name="list_dir", arguments=json.dumps({"path": "."})), scope, host)
    assert envelope.ok and "z\\xff.txt" in envelope.content
    json.dumps(envelope.to_json(), ensure_ascii=False).encode("utf-8")  # what a request to the model holds
    conversation = store.create("t", str(workspace), "m")
    store.append(str(conversation.id), ChatMessage(role="tool", content=envelope.content, tool_call_id="c1"),
                 envelope.to_json())
    [stored] = store.messages(str(conversation.id))
    assert "z\\xff.txt" in stored.message.content


async def test_arguments_with_lone_surrogates_do_not_stop_the_audit_log(
        runtime: Runtime, scope: Scope, host: ScriptedHost) -> None:
    bad = ToolCall(id="c1", name="read_file", arguments='{"path": "no\\udcff.txt"}')
    also_bad_name = ToolCall(id="c2", name="read\udcff", arguments="{}")  # a real lone surrogate
    after = ToolCall(id="c3", name="read_file", arguments='{"path": "missing.txt"}')
    for call in (bad, also_bad_name, after):
        await runtime.dispatcher.execute_tool(call, scope, host)
    runtime.audit.flush()
    rows = {r["call_id"]: r for r in runtime.audit.query()}
    assert set(rows) == {"c1", "c2", "c3"}
    assert rows["c1"]["arguments"] == {"path": "no\\xff.txt"} and rows["c2"]["tool"] == "read\\xff"


async def test_a_change_revert_could_not_record_is_not_made_and_revert_goes_on(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    """The change log keeps paths as text. Deleting a folder that holds a name that is not UTF-8
    is refused before anything changes (as when Revert cannot keep a copy); before, its record was
    held back, and every later change of the session could not be recorded either."""
    (workspace / "old").mkdir()
    _make(os.path.join(os.fsencode(workspace / "old"), b"z\xff.txt"))
    refused = await runtime.dispatcher.execute_tool(
        ToolCall(id="c1", name="delete_path", arguments=json.dumps({"path": "old"})), scope, host)
    assert not refused.ok and "whose name is not UTF-8" in refused.error and "z\\xff.txt" in refused.error
    assert os.listdir(os.fsencode(workspace / "old")) == [b"z\xff.txt"]  # nothing was changed
    written = await runtime.dispatcher.execute_tool(
        ToolCall(id="c2", name="write_file", arguments=json.dumps({"path": "a.txt", "content": "a"})), scope, host)
    assert written.ok and runtime.undo is not None and runtime.undo.held == 0
    assert [r.call_id for r in runtime.undo.changes.for_calls(["c1", "c2"])] == ["c2"]
