"""Structured tool calls of the built-in model: the grammar sent, and calls read back from text."""

from __future__ import annotations

import json

from providers_kit import Scripted, collect, sse_response

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.providers.local.steering import answer_now, repeats_a_call
from echo_desk.providers.local.structured import (
    TEXT_ONLY_GRAMMAR,
    CallTextReader,
    constrained_stream,
    plain_tool_results,
    structured_request,
    tool_call_grammar,
)
from echo_desk.providers.openai_compat import OpenAICompatModel

READ = ToolDefinition(name="read_file", description="Read a file.",
                      parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
WRITE = ToolDefinition(name="write_file", description="Write a file.", parameters={
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"]})


def _schema_of(grammar: str) -> dict:  # type: ignore[type-arg]
    line = next(x for x in grammar.splitlines() if x.startswith("call: %json "))
    return json.loads(line.removeprefix("call: %json "))  # type: ignore[no-any-return]


def test_auto_allows_text_or_one_call_of_any_offered_tool() -> None:
    grammar = tool_call_grammar([READ, WRITE])
    assert grammar is not None and grammar.startswith("%llguidance")
    assert "start: TEXT | call" in grammar
    assert "TEXT: /[^{\\[\\s`]" in grammar  # text cannot open with a call, a fence, "[" or blank space
    options = _schema_of(grammar)["oneOf"]
    assert [o["properties"]["name"]["const"] for o in options] == ["read_file", "write_file"]
    assert options[1]["properties"]["arguments"] == WRITE.parameters


def test_named_choice_forces_that_call_and_none_means_no_grammar() -> None:
    grammar = tool_call_grammar([READ, WRITE], "write_file")
    assert grammar is not None and "start: call" in grammar and "TEXT |" not in grammar
    assert [o["properties"]["name"]["const"] for o in _schema_of(grammar)["oneOf"]] == ["write_file"]
    assert tool_call_grammar([READ], "none") is None
    assert tool_call_grammar([], "auto") is None
    none = structured_request([READ], "none")
    assert none["grammar"] == TEXT_ONLY_GRAMMAR  # held to text by the grammar…
    assert none["chat_template_kwargs"]["echo_tools"][0]["function"]["name"] == "read_file"  # …same tool list
    assert structured_request([], "auto") == {}


def test_tools_go_to_the_template_not_the_server() -> None:
    extra = structured_request([READ], "auto")
    assert "tools" not in extra  # llama.cpp refuses a grammar together with tools
    assert extra["chat_template_kwargs"]["echo_tools"][0]["function"]["name"] == "read_file"


def _feed(reader: CallTextReader, parts: list[str]) -> list[object]:
    events: list[object] = []
    for part in parts:
        events.extend(reader.feed(part))
    events.extend(reader.finish())
    return events


def test_plain_text_streams_through_unchanged() -> None:
    events = _feed(CallTextReader("c1"), ["The ", "room is ", "B12."])
    assert events == [TextDelta("The "), TextDelta("room is "), TextDelta("B12.")]


def test_a_call_is_held_back_announced_once_named_and_ready_at_the_end() -> None:
    reader = CallTextReader("c1")
    parts = ['{"na', 'me": "write_', 'file", "arguments": {"path": "a.txt", ', '"content": "hi"}}']
    seen: list[object] = []
    for part in parts[:2]:
        seen.extend(reader.feed(part))
    assert seen == []  # nothing shown as prose, name not complete yet
    seen.extend(reader.feed(parts[2]))
    assert seen == [ToolCallStarted(id="c1", name="write_file")]
    assert reader.pending_call_chars > 30
    seen.extend(reader.feed(parts[3]))
    assert seen[-1] == ToolCallDelta(id="c1", text=parts[3])  # argument text as it grows
    seen.extend(reader.finish())
    ready = [e for e in seen if isinstance(e, ToolCallReady)]
    assert len(ready) == 1 and ready[0].call.name == "write_file"
    assert json.loads(ready[0].call.arguments) == {"path": "a.txt", "content": "hi"}


def test_a_cut_off_call_is_passed_on_as_it_came() -> None:
    events = _feed(CallTextReader("c1"), ['{"name": "write_file", "arguments": {"path": "a.txt", "content": "Buy'])
    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert ready[0].call.name == "write_file"
    assert ready[0].call.arguments.startswith('{"path": "a.txt"')


def _sse(*contents: str, finish: str = "stop") -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]} for c in contents]
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


async def test_constrained_stream_sends_the_grammar_and_yields_a_parsed_call() -> None:
    script = Scripted([sse_response(_sse('{"name": "read_file", ', '"arguments": {"path": "notes.txt"}}'))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    events = await collect(constrained_stream(client, [ChatMessage(role="user", content="hi")], [READ], "auto",
                                              steer=False))
    body = script.body()
    assert "tools" not in body and "tool_choice" not in body
    assert "grammar" in body and body["chat_template_kwargs"]["echo_tools"]
    kinds = [type(e) for e in events]
    assert kinds == [ToolCallStarted, ToolCallDelta, ToolCallReady, StreamEnd]
    assert events[-1] == StreamEnd("tool_calls")
    ready = events[2]
    assert isinstance(ready, ToolCallReady) and json.loads(ready.call.arguments) == {"path": "notes.txt"}
    await client.aclose()


def test_the_small_model_profile_caches_prompts_and_hides_distracting_tools() -> None:
    from echo_desk.providers.local.profiles import get_profile

    profile = get_profile("qwen2.5-coder-tools")
    assert profile.request_defaults["cache_prompt"] is True
    assert get_profile("qwen2.5-coder-tools", cache_prompt=False).request_defaults["cache_prompt"] is False
    assert {"echo_text", "delegate"} <= profile.hidden_tools
    assert get_profile("model-template").hidden_tools == frozenset()


async def test_hidden_tools_are_not_offered_to_the_local_model(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from echo_desk.providers.local.profiles import get_profile
    from echo_desk.providers.local.provider import LocalModel

    echo = ToolDefinition(name="echo_text", description="Echo.", parameters={"type": "object", "properties": {}})
    script = Scripted([sse_response(_sse("Hello."))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    local = LocalModel(tmp_path / "m.gguf", get_profile("qwen2.5-coder-tools"))
    events = await collect(local._turn(client, [ChatMessage(role="user", content="hi")], [READ, echo], "auto"))
    assert TextDelta("Hello.") in events
    for body in (script.body(0), script.body(1)):  # the intent step and the turn
        offered = [t["function"]["name"] for t in body["chat_template_kwargs"]["echo_tools"]]
        assert offered == ["read_file"]
        assert "echo_text" not in body["grammar"]
    await client.aclose()


def test_prompt_progress_chunks_become_typed_events() -> None:
    from echo_desk.agent.model import PromptProgress
    from echo_desk.providers.openai_stream import ChunkMapper

    mapper = ChunkMapper()
    chunk = '{"choices":[],"prompt_progress":{"total":320,"cache":256,"processed":64,"time_ms":900}}'
    assert list(mapper.feed(chunk)) == [PromptProgress(total=320, cached=256, processed=64)]


def test_path_arguments_of_the_small_model_are_relative() -> None:
    # The 0.5B model copies the workspace's absolute path from the system prompt as the file.
    grammar = tool_call_grammar([READ, WRITE], relative_paths=True)
    assert grammar is not None
    options = _schema_of(grammar)["oneOf"]
    path = options[0]["properties"]["arguments"]["properties"]["path"]
    assert path["pattern"] == "^[^/\\\\~].*$"
    assert "pattern" not in options[1]["properties"]["arguments"]["properties"]["content"]
    plain = _schema_of(tool_call_grammar([READ]) or "")["oneOf"][0]["properties"]["arguments"]
    assert plain == READ.parameters  # the tool's own schema is left alone


def _envelope(ok: bool, content: str = "", error: str = "", kind: str = "") -> str:
    return json.dumps({"schema": "echo_desk_tool_output_v1", "ok": ok, "tool": "read_file", "content": content,
                       "error": error, "error_kind": kind, "file_changes": []})


def test_tool_results_reach_the_small_model_as_plain_text() -> None:
    messages = [
        ChatMessage(role="user", content="hi"),
        ChatMessage(role="tool", content=_envelope(True, "milk\neggs\n"), tool_call_id="1"),
        ChatMessage(role="tool", content=_envelope(False, error="/ws is a folder", kind="business"), tool_call_id="2"),
        ChatMessage(role="tool", content=_envelope(False, error="the person denied this call", kind="rejected"),
                    tool_call_id="3"),
        ChatMessage(role="tool", content=_envelope(True), tool_call_id="4"),
        ChatMessage(role="tool", content="not an envelope", tool_call_id="5"),
        ChatMessage(role="tool", content=_envelope(True, "exit code 0\n1337\n"), tool_call_id="6"),
    ]
    plain = [m.content for m in plain_tool_results(messages)]
    assert plain == ["hi", "milk\neggs\n", "Error: /ws is a folder", "Not done: the person denied this call.",
                     "Done.", "not an envelope", "Output:\n1337\n\n(exit code 0)"]


def _exchange(*arguments: str) -> list[ChatMessage]:
    messages = [ChatMessage(role="user", content="What is in notes.txt?")]
    for number, args in enumerate(arguments):
        call = ToolCall(id=str(number), name="read_file", arguments=args)
        messages += [ChatMessage(role="assistant", tool_calls=(call,)),
                     ChatMessage(role="tool", content=_envelope(True, "milk\n"), tool_call_id=call.id)]
    return messages


def test_a_call_repeated_with_the_same_arguments_gets_a_text_only_turn() -> None:
    assert not repeats_a_call(_exchange('{"path": "notes.txt"}'))
    assert not repeats_a_call(_exchange('{"path": "a.txt"}', '{"path": "notes.txt"}'))
    assert repeats_a_call(_exchange('{"path": "notes.txt"}', '{ "path":"notes.txt"}'))


async def test_after_a_repeated_call_only_text_is_allowed() -> None:
    script = Scripted([sse_response(_sse("It says milk."))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    messages = _exchange('{"path": "notes.txt"}', '{"path": "notes.txt"}')
    events = await collect(constrained_stream(client, messages, [READ], "auto"))
    assert TextDelta("It says milk.") in events
    body = script.body()
    assert body["grammar"] == TEXT_ONLY_GRAMMAR
    assert body["messages"][-1]["content"] == "milk\n"  # the plain result, not the envelope
    await client.aclose()


def test_without_the_grammar_the_prompt_is_the_same() -> None:
    with_grammar = structured_request([READ], "auto")
    without = structured_request([READ], "auto", grammar=False)
    assert "grammar" in with_grammar and "grammar" not in without
    assert without["chat_template_kwargs"] == with_grammar["chat_template_kwargs"]


def test_after_a_result_the_turn_is_text_and_after_an_error_it_may_call() -> None:
    def last(name: str, envelope: str) -> list[ChatMessage]:
        return [ChatMessage(role="user", content="hi"),
                ChatMessage(role="tool", content=envelope, tool_call_id="1", name=name)]

    assert answer_now(last("write_file", _envelope(True, "wrote notes.txt")))
    assert answer_now(last("read_file", _envelope(False, error="the person denied this call", kind="rejected")))
    assert answer_now(last("read_file", _envelope(True, "milk\n")))
    assert not answer_now(last("write_file", _envelope(False, error="/ws is a folder", kind="business")))
    assert not answer_now([ChatMessage(role="user", content="hi")])
