"""The whole agent against the real local model served by llama.cpp on 127.0.0.1.

The real built-in tools, the real dispatcher and audit, the built-in provider (fixtures in this
folder's ``conftest.py``; skipped or failed as ``local_model.py`` says when the model is missing).
The model is small: each test allows one retry of the exchange.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.loop import AgentLoop
from echo_desk.agent.model import ChatMessage
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.mcp.config import config_path, parse_server
from tests.agent_llm.local_model import LLM_MARKS, exchange
from tests.mcp.helpers import time_server_command

pytestmark = LLM_MARKS


async def test_reads_a_file_through_the_dispatcher_and_answers(runtime, model, tmp_path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("The launch code word is PELICAN-42.\n")
    host = ScriptedHost(choice=ApprovalChoice.DENY)
    for _attempt in range(2):
        outcome = await exchange(runtime, model, ws, "What is in notes.txt? Use read_file.", host)
        calls = runtime.audit.query(tool="read_file")
        if outcome.completed and calls and "PELICAN" in outcome.final_text.upper():
            break
    assert calls, "the model never called read_file"
    assert calls[0]["ok"] and calls[0]["arguments"]["path"].endswith("notes.txt")
    assert outcome.completed
    assert "PELICAN" in outcome.final_text.upper()


async def test_a_question_without_a_tool_is_answered_in_text(runtime, model) -> None:
    # The workspace's path is part of the system prompt, and the 0.5B model's answer depends on
    # it: under pytest's numbered base folder it searched the files first on some runs and not
    # on others (/tmp/pt-final2/… always, s198). A fixed path makes the prompt, and so the
    # answer, the same on every run; that the model sometimes reaches for a tool is issue #31's.
    ws = Path(tempfile.gettempdir()) / "echo-desk-llm-question"
    shutil.rmtree(ws, ignore_errors=True)
    ws.mkdir()
    for _attempt in range(2):
        outcome = await exchange(runtime, model, ws, "What is the capital of France? Answer in one word, without tools.",
                                 ScriptedHost(choice=ApprovalChoice.DENY))
        if outcome.completed and "paris" in outcome.final_text.lower() and not outcome.envelopes:
            break
    assert outcome.completed and "paris" in outcome.final_text.lower()
    assert outcome.envelopes == {}


async def test_a_write_request_asks_and_a_denial_leaves_the_file_alone(runtime, model, tmp_path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / "todo.txt"
    target.write_bytes(b"milk\n")
    host = ScriptedHost(choice=ApprovalChoice.DENY, message="not now")
    for _attempt in range(2):
        await exchange(runtime, model, ws, "Overwrite todo.txt with the text 'eggs' using write_file.", host)
        if host.requests:
            break
    assert host.requests, "no approval was requested"
    assert host.requests[0].tool_name in {"write_file", "edit_file"}
    assert host.requests[0].targets[0].value == str(target)
    assert target.read_bytes() == b"milk\n"
    rows = [r for r in runtime.audit.query() if r["tool"] in {"write_file", "edit_file"}]
    assert rows and all(r["error_kind"] == "rejected" for r in rows)


async def test_parent_delegates_a_read_only_task_and_gets_the_answer(runtime, model, tmp_path) -> None:
    """The sub-agent is the real model; the parent's call to ``delegate`` is scripted, so the
    test checks the delegation path rather than whether a 0.5B model thinks of delegating."""
    from tests.agent.fake_model import ScriptedModel, calls, say

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("The code word is HERON.\n")
    await model.ensure_started()
    runtime.enable_delegation(model.sibling)
    goal = "Read notes.txt with read_file and reply with the code word it contains."
    args = json.dumps({"goal": goal, "tools": ["read_file"], "read_only": True, "max_turns": 4})
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    for _attempt in range(2):
        parent = ScriptedModel([calls(("d1", "delegate", args)), say("thanks")])
        scope = Scope(label="llm-test", workspace_roots=(ws,))
        loop = AgentLoop(parent, runtime.dispatcher, runtime.schema_factory, max_turns=3)
        outcome = await loop.run([ChatMessage(role="user", content="go")], scope, host)
        envelope = outcome.envelopes["d1"]
        if envelope.ok and "HERON" in envelope.content.upper():
            break
    assert envelope.ok and "HERON" in envelope.content.upper()
    reads = runtime.audit.query(tool="read_file")
    assert reads and reads[0]["scope_chain"] == ["llm-test", f"sub-agent: {goal[:60]}"]
    assert host.requests[0].tool_name == "delegate"


@pytest.mark.skipif(time_server_command() is None, reason="pip install mcp-server-time")
async def test_calls_a_real_mcp_servers_tool_after_the_person_approves(runtime, model, tmp_path) -> None:
    """The "done when" of MCP: a configured, first-start-approved server's tool is offered to
    the real model, which calls it through the dispatcher; the person approves the call."""
    command = time_server_command()
    assert command is not None
    entry = {"command": command[0], "args": command[1:]}
    config_path().write_text(json.dumps({"mcpServers": {"time": entry}}), encoding="utf-8")
    fingerprint = parse_server("time", entry).fingerprint()
    runtime.settings.update(lambda s: s.mcp_approved.update({"time": fingerprint}))
    await runtime.attach_mcp(ScriptedHost())  # its own thread, as in the app
    try:
        host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
        scope = Scope(label="llm-test", granted_tools=frozenset({"time__get_current_time"}))
        prompt = "What is the current time in the UTC timezone? Use the time__get_current_time tool."
        for _attempt in range(2):
            loop = AgentLoop(model, runtime.dispatcher, runtime.schema_factory, max_turns=4)
            outcome = await loop.run([system_message(scope), ChatMessage(role="user", content=prompt)], scope, host)
            calls = runtime.audit.query(tool="time__get_current_time")
            if outcome.completed and calls and calls[0]["ok"]:
                break
        assert calls, "the model never called the MCP tool"
        assert calls[0]["ok"] and calls[0]["source"] == "mcp:time" and calls[0]["decision"] == "allowed"
        request = host.requests[0]  # exec by default: the person saw server, tool and arguments
        assert request.tool_name == "time__get_current_time" and command[0] in request.targets[0].value
        (envelope,) = [e for e in outcome.envelopes.values() if e.tool == "time__get_current_time" and e.ok]
        assert str(datetime.now(UTC).year) in envelope.content
        assert outcome.completed and outcome.final_text.strip()
    finally:
        await runtime.close_mcp()
