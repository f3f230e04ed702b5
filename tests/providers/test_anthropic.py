"""Anthropic messages provider: request mapping and the recorded streaming format."""

from __future__ import annotations

import json

import httpx
import pytest
from providers_kit import RecordingSleep, Scripted, collect, fixture_bytes, sse_response

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ModelError,
    ModelErrorKind,
    StreamEnd,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolCallStarted,
    Usage,
)
from echo_desk.providers.anthropic import AnthropicModel
from echo_desk.providers.transport import RetryPolicy

READ_FILE = ToolDefinition(
    name="read_file", description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def model(script: Scripted) -> AnthropicModel:
    return AnthropicModel(model="claude-sonnet-4-5", api_key="sk-ant-secret", base_url="https://api.anthropic.test",
                          retry=RetryPolicy(sleep=RecordingSleep()), transport=script.transport)


async def test_recorded_stream_gives_text_then_one_call() -> None:
    script = Scripted([sse_response(fixture_bytes("anthropic_tool_use.sse"))])
    events = await collect(model(script).stream([ChatMessage(role="user", content="notes?")], [READ_FILE]))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Okay, let me read that file."
    assert ToolCallStarted(id="toolu_01T1x1fJ34qAmk2tNTrN7Up6", name="read_file") in events
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert ready == [ToolCall(id="toolu_01T1x1fJ34qAmk2tNTrN7Up6", name="read_file", arguments='{"path": "notes.txt"}')]
    assert events[-2:] == [Usage(input_tokens=472, output_tokens=89), StreamEnd(stop_reason="tool_calls")]


async def test_request_mapping_system_tool_results_and_headers() -> None:
    script = Scripted([sse_response(fixture_bytes("anthropic_tool_use.sse"))])
    history = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="Read a and b"),
        ChatMessage(role="assistant", content="Sure.", tool_calls=(
            ToolCall(id="t1", name="read_file", arguments='{"path": "a"}'),
            ToolCall(id="t2", name="read_file", arguments="{not json"),
        )),
        ChatMessage(role="tool", tool_call_id="t1", content="A"),
        ChatMessage(role="tool", tool_call_id="t2", content="bad args"),
        ChatMessage(role="user", content="Thanks"),
    ]
    await collect(model(script).stream(history, [READ_FILE], tool_choice="required"))
    body = script.body()
    assert body["system"] == "Be brief."
    assert body["stream"] is True and body["max_tokens"] == 4096
    assert body["tools"] == [{"name": "read_file", "description": "Read a file.", "input_schema": READ_FILE.parameters}]
    assert body["tool_choice"] == {"type": "any"}
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assistant = body["messages"][1]["content"]
    assert assistant[0] == {"type": "text", "text": "Sure."}
    assert assistant[1] == {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}
    assert assistant[2]["input"] == {"raw_arguments": "{not json"}
    results = body["messages"][2]["content"]
    assert results[:2] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "A"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "bad args"},
    ]
    assert results[2] == {"type": "text", "text": "Thanks"}
    request = script.requests[0]
    assert request.url == "https://api.anthropic.test/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-secret"
    assert request.headers["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize(("choice", "expected"), [
    ("auto", {"type": "auto"}), ("none", {"type": "none"}), ("read_file", {"type": "tool", "name": "read_file"}),
])
async def test_tool_choice(choice: str, expected: dict[str, str]) -> None:
    script = Scripted([sse_response(fixture_bytes("anthropic_tool_use.sse"))])
    await collect(model(script).stream([ChatMessage(role="user", content="x")], [READ_FILE], tool_choice=choice))
    assert script.body()["tool_choice"] == expected


async def test_error_event_mid_stream() -> None:
    body = (
        b'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5}}}\n\n'
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n'
    )
    script = Scripted([sse_response(body)])
    with pytest.raises(ModelError) as info:
        await collect(model(script).stream([ChatMessage(role="user", content="x")], []))
    assert info.value.kind == ModelErrorKind.RATE_LIMIT and "Overloaded" in str(info.value)


async def test_401_is_auth_error_without_key() -> None:
    err = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    script = Scripted([httpx.Response(401, json=err)])
    with pytest.raises(ModelError) as info:
        await collect(model(script).stream([ChatMessage(role="user", content="x")], []))
    assert info.value.kind == ModelErrorKind.AUTH
    assert "invalid x-api-key" in str(info.value) and "sk-ant-secret" not in str(info.value)


async def test_malformed_event_is_a_warning() -> None:
    body = b"event: content_block_delta\ndata: {oops\n\n" + fixture_bytes("anthropic_tool_use.sse")
    script = Scripted([sse_response(body)])
    events = await collect(model(script).stream([ChatMessage(role="user", content="x")], []))
    assert type(events[0]).__name__ == "StreamWarning"
    ready = next(e for e in events if isinstance(e, ToolCallReady))
    assert json.loads(ready.call.arguments) == {"path": "notes.txt"}
