"""The built-in model's first step of an exchange: it states the request's intent from a closed
set, and what the turn is then offered follows from that (a scripted server plays the model)."""

from __future__ import annotations

import json

import pytest
from providers_kit import Scripted, collect, sse_response

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    IntentProgress,
    PromptProgress,
    TextDelta,
    ToolCall,
    ToolCallReady,
)
from echo_desk.agent.progress import ProgressMeter, Stage
from echo_desk.providers.local.intent import (
    GUIDE,
    UNCLEAR,
    Intent,
    IntentMemory,
    StatedIntent,
    exchange_key,
    intent_grammar,
    intent_schema,
    parse_intent,
)
from echo_desk.providers.local.structured import TEXT_ONLY_GRAMMAR, constrained_stream
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.tools import ToolRole


def _tool(name: str, role: ToolRole) -> ToolDefinition:
    return ToolDefinition(name=name, description=f"{name}.", role=role, parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


TOOLS = [_tool("read_file", ToolRole.LOOK), _tool("list_dir", ToolRole.LIST), _tool("search_files", ToolRole.SEARCH),
         _tool("write_file", ToolRole.CREATE), _tool("edit_file", ToolRole.CHANGE),
         _tool("append_to_file", ToolRole.APPEND), _tool("move_path", ToolRole.MOVE),
         _tool("delete_path", ToolRole.DELETE), _tool("run_command", ToolRole.RUN)]


def _sse(*contents: str, progress: bool = False) -> bytes:
    chunks: list[dict[str, object]] = []
    if progress:
        chunks.append({"choices": [], "prompt_progress": {"total": 400, "cache": 380, "processed": 20}})
    chunks += [{"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]} for c in contents]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def _states(intent: str, target: str) -> bytes:
    text = json.dumps({"intent": intent, "target": target})
    return _sse(*(text[i:i + 6] for i in range(0, len(text), 6)), progress=True)


def _offered(body: dict[str, object]) -> list[str]:
    grammar = str(body.get("grammar", ""))
    line = next((x for x in grammar.splitlines() if x.startswith("call: %json ")), None)
    if line is None:
        return []
    return [o["properties"]["name"]["const"] for o in json.loads(line.removeprefix("call: %json "))["oneOf"]]


def _listed(body: dict[str, object]) -> list[str]:
    kwargs = body.get("chat_template_kwargs") or {}
    assert isinstance(kwargs, dict)
    return [t["function"]["name"] for t in kwargs.get("echo_tools", [])]


def test_the_answer_is_a_word_of_the_closed_set_and_a_target() -> None:
    schema = intent_schema()
    assert schema["properties"]["intent"]["enum"] == [i.value for i in Intent]
    assert schema["required"] == ["target", "intent"] and schema["additionalProperties"] is False
    grammar = intent_grammar()
    assert grammar.startswith("%llguidance") and "start: answer" in grammar and "TEXT" not in grammar
    assert json.loads(grammar.split("answer: %json ")[1].splitlines()[0]) == schema


@pytest.mark.parametrize(("text", "stated"), [
    ('{"intent": "append", "target": "notes.txt"}', StatedIntent(Intent.APPEND, "notes.txt")),
    ('{"target": " form.py ", "intent": "look"}', StatedIntent(Intent.LOOK, "form.py")),
    ('{"intent": "search", "target": 3}', StatedIntent(Intent.SEARCH, "")),
    ('{"intent": "question", "target": "x"}', UNCLEAR),  # not a word of the set
    ('{"intent": "destroy", "target": "x"}', UNCLEAR),  # not a word of the set
    ('{"intent": "edit", "target": "a', UNCLEAR),  # cut off
    ("[]", UNCLEAR),
])
def test_what_the_model_stated_is_read_back_and_anything_else_is_unclear(text: str, stated: StatedIntent) -> None:
    assert parse_intent(text) == stated


def test_a_target_counts_only_when_the_request_names_it() -> None:
    assert StatedIntent(Intent.EDIT, "notes.txt").target_in("Ajoute une ligne à notes.txt")
    assert not StatedIntent(Intent.EDIT, "notes.md").target_in("Ajoute une ligne à notes.txt")
    assert not StatedIntent(Intent.EDIT, "").target_in("anything")


def test_every_turn_of_one_exchange_has_one_key_and_the_next_exchange_another() -> None:
    first = [ChatMessage(role="system", content="s"), ChatMessage(role="user", content="a")]
    call = ToolCall(id="c1", name="read_file", arguments="{}")
    later = [*first, ChatMessage(role="assistant", tool_calls=(call,)),
             ChatMessage(role="tool", content="x", tool_call_id="c1")]
    assert exchange_key(first) == exchange_key(later) is not None
    next_exchange = [*later, ChatMessage(role="assistant", content="ok"), ChatMessage(role="user", content="a")]
    assert exchange_key(next_exchange) != exchange_key(first)
    assert exchange_key([ChatMessage(role="system", content="s")]) is None
    memory = IntentMemory(size=2)
    for key in ("k1", "k2", "k3"):
        memory.remember(key, StatedIntent(Intent.RUN))
    assert memory.get("k1") is None and memory.get("k3") == StatedIntent(Intent.RUN)


#: The same kind of request in six languages, each with what a model would state for it.
SCRIPTED = [
    ("en", "Put the line 'tea' after the last line of list.txt", "append", "list.txt", ["read_file", "append_to_file"]),
    ("zh", "在 list.txt 的最后加上 茶", "append", "list.txt", ["read_file", "append_to_file"]),
    ("fr", "Ajoute une ligne 'thé' à la fin de list.txt", "append", "list.txt", ["read_file", "append_to_file"]),
    ("de", "Was macht die Funktion speichern in app.py?", "look", "app.py", ["read_file"]),
    ("es", "¿Qué archivo menciona guardar?", "search", "guardar", ["search_files"]),
    ("ja", "src フォルダの中身を教えて", "list", "src", ["list_dir"]),
    ("fr", "Corrige la valeur de port dans app.ini", "edit", "app.ini", ["read_file"]),
    ("de", "Benenne alt.txt in neu.txt um", "move", "alt.txt", ["read_file", "move_path"]),
    ("es", "Ejecuta python3 main.py", "run", "python3 main.py", ["read_file", "run_command"]),
    ("ja", "memo.md という新しいファイルを作って", "create", "memo.md", ["read_file", "write_file"]),
    ("zh", "删除 old.log", "delete", "old.log", ["read_file", "delete_path"]),
]


@pytest.mark.parametrize(("lang", "request_text", "intent", "target", "offered"), SCRIPTED,
                         ids=[f"{row[0]}-{row[2]}" for row in SCRIPTED])
async def test_the_stated_intent_decides_what_the_first_turn_may_call_in_any_language(
        lang: str, request_text: str, intent: str, target: str, offered: list[str]) -> None:
    script = Scripted([sse_response(_states(intent, target)),
                       sse_response(_sse('{"name": "', offered[-1], '", "arguments": {"path": "x"}}'))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    messages = [ChatMessage(role="system", content="You are Echo Desk."), ChatMessage(role="user", content=request_text)]
    events = await collect(constrained_stream(client, messages, TOOLS, "auto", relative_paths=True))
    step, turn = script.body(0), script.body(1)
    # One prompt (messages, tool list, guide): the server's cache serves the turn from the step.
    assert step["messages"] == turn["messages"] and step["chat_template_kwargs"] == turn["chat_template_kwargs"]
    assert step["chat_template_kwargs"]["echo_guide"] == GUIDE
    assert _listed(step) == [t.name for t in TOOLS]
    assert _offered(turn) == offered
    # The target is named: a change, or a look at that very file, must be a call; a search for a
    # text or a folder's list may be answered in text (no call is held to the named target).
    assert ("start: TEXT | call" if intent in ("search", "list") else "start: call") in turn["grammar"]
    assert not any(isinstance(e, TextDelta) for e in events)  # nothing of the step is shown as an answer
    assert [e for e in events if isinstance(e, IntentProgress)][-1].intent == intent
    assert [e.call.name for e in events if isinstance(e, ToolCallReady)] == offered[-1:]
    await client.aclose()


async def test_the_step_is_taken_once_per_exchange_and_kept_for_its_later_turns() -> None:
    script = Scripted([sse_response(_states("edit", "a.ini")), sse_response(_sse('{"name": "read_file", '
                                                                                  '"arguments": {"path": "a.ini"}}')),
                       sse_response(_sse('{"name": "edit_file", "arguments": {"path": "a.ini"}}'))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    memory = IntentMemory()
    request = [ChatMessage(role="user", content="Setze port in a.ini auf 9")]
    await collect(constrained_stream(client, request, TOOLS, "auto", intents=memory))
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "a.ini"}')
    after_read = [*request, ChatMessage(role="assistant", tool_calls=(call,)),
                  ChatMessage(role="tool", content=json.dumps({"ok": True, "content": "port = 8"}),
                              tool_call_id="c1", name="read_file")]
    events = await collect(constrained_stream(client, after_read, TOOLS, "auto", intents=memory))
    assert len(script.requests) == 3  # step, first turn, second turn: no second step
    then = script.body(2)
    assert _offered(then) == ["edit_file"] and "start: TEXT | call" in then["grammar"]
    # Told to make the change or answer a question, with the same tool list as before.
    assert then["chat_template_kwargs"]["echo_decide"] is True and _listed(then) == [t.name for t in TOOLS]
    assert not any(isinstance(e, IntentProgress) for e in events)
    await client.aclose()


async def test_after_a_result_the_answer_is_held_to_text_and_lists_no_tools() -> None:
    script = Scripted([sse_response(_sse("It says milk."))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    memory = IntentMemory()
    request = [ChatMessage(role="user", content="Was steht in a.txt?")]
    key = exchange_key(request)
    assert key is not None
    memory.remember(key, StatedIntent(Intent.LOOK, "a.txt"))
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "a.txt"}')
    after_read = [*request, ChatMessage(role="assistant", tool_calls=(call,)),
                  ChatMessage(role="tool", content=json.dumps({"ok": True, "content": "milk"}),
                              tool_call_id="c1", name="read_file")]
    events = await collect(constrained_stream(client, after_read, TOOLS, "auto", intents=memory))
    assert TextDelta("It says milk.") in events
    body = script.body()
    # Listed, the 0.5B model answered with the list's own words; the guide opens the prompt still.
    assert body["grammar"] == TEXT_ONLY_GRAMMAR and _listed(body) == []
    assert body["chat_template_kwargs"]["echo_guide"] == GUIDE
    await client.aclose()


async def test_a_larger_model_takes_no_step_and_a_caller_s_own_choice_none() -> None:
    script = Scripted([sse_response(_sse("Hi."))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    request = [ChatMessage(role="user", content="Hallo")]
    await collect(constrained_stream(client, request, TOOLS, "auto", steer=False))
    await collect(constrained_stream(client, request, TOOLS, "none"))
    assert len(script.requests) == 2
    assert "echo_guide" not in script.body(0)["chat_template_kwargs"]  # a larger model's prompt is its own
    assert "intent" not in script.body(1)["grammar"]
    await client.aclose()


def test_the_step_shows_as_its_own_stage_of_progress() -> None:
    now = [0.0]
    meter = ProgressMeter(clock=lambda: now[0])
    meter.start()
    now[0] = 1.0
    assert meter.on_event(PromptProgress(total=400, cached=380)).stage is Stage.READING_PROMPT  # type: ignore[union-attr]
    now[0] = 2.0
    progress = meter.on_event(IntentProgress(tokens=3))
    assert progress is not None and progress.stage is Stage.WORKING_OUT_REQUEST and progress.elapsed == 2.0
    now[0] = 3.0
    assert meter.on_event(PromptProgress(total=420, cached=400)).stage is Stage.READING_PROMPT  # type: ignore[union-attr]
