"""The built-in model states a request's intent itself, in the person's language (real model).

Requests written for these tests (not the bench's held-out sets). A question phrased with words
of change ("update", "删除", "enregistre") must end with no change proposed; a change asked in
French must be made. Skipped like the other real-model tests when the model was never fetched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ChatMessage, IntentProgress
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.providers.local.intent import Intent
from echo_desk.providers.local.provider import LocalModel
from echo_desk.runtime import Runtime
from echo_desk.tools import RiskLevel
from tests.agent_llm.local_model import LLM_MARKS, exchange

pytestmark = LLM_MARKS


STORE_PY = ("import json\n\n\ndef update_all(items, path):\n    \"\"\"Writes every item to the file, replacing it.\"\"\"\n"
            "    with open(path, 'w') as f:\n        json.dump(items, f)\n")


@pytest.mark.parametrize("prompt", [
    "Does update_all in store.py update the file or add to it?",
    "store.py 里的 update_all 会删除原来的内容吗？",
    "Est-ce que update_all dans store.py enregistre les éléments dans un fichier ?",
])
async def test_a_question_with_words_of_change_proposes_no_change(runtime: Runtime, model: LocalModel,
                                                                 tmp_path: Path, prompt: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "store.py").write_text(STORE_PY, encoding="utf-8")
    for _attempt in range(2):  # the model is small: one retry, as in the other real-model tests
        host = ScriptedHost(choice=ApprovalChoice.DENY)
        outcome = await exchange(runtime, model, ws, prompt, host)
        proposals = [c.name for m in outcome.messages for c in m.tool_calls
                     if (entry := runtime.registry.get(c.name)) is None or entry.tool.risk_level is not RiskLevel.READ]
        if proposals == [] and host.requests == []:
            break
    assert proposals == [] and host.requests == []
    assert (ws / "store.py").read_text(encoding="utf-8") == STORE_PY


async def test_a_line_added_at_the_end_in_french_is_made(runtime: Runtime, model: LocalModel, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "courses.txt").write_text("riz\npâtes\n", encoding="utf-8")
    host = ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)
    for _attempt in range(2):
        await exchange(runtime, model, ws, "Ajoute la ligne 'sel' à la fin de courses.txt", host)
        if (ws / "courses.txt").read_text(encoding="utf-8").split() == ["riz", "pâtes", "sel"]:
            break
    assert (ws / "courses.txt").read_text(encoding="utf-8").split() == ["riz", "pâtes", "sel"]


async def test_the_stated_intent_is_heard_as_progress(runtime: Runtime, model: LocalModel, tmp_path: Path) -> None:
    scope = Scope(label="llm-test", workspace_roots=(tmp_path,))
    messages = [system_message(scope), ChatMessage(role="user", content="Benenne alt.txt in neu.txt um.")]
    tools = runtime.schema_factory.definitions(scope)
    events = [e async for e in model.stream(messages, tools)]
    stated = [e.intent for e in events if isinstance(e, IntentProgress) and e.intent]
    # Heard once, as a word of the closed set. Which word a 0.5B model picks for a German rename
    # (it has said "edit" as often as "move") is its accuracy, measured by bench/agent_tasks.py.
    assert len(stated) == 1 and stated[0] in {i.value for i in Intent}, stated
    assert any(isinstance(e, IntentProgress) and e.tokens > 0 for e in events)  # progress while stating
