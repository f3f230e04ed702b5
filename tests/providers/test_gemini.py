"""Gemini provider: request mapping and the recorded ``alt=sse`` streaming format."""

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
    ToolCallReady,
    ToolCallStarted,
    Usage,
)
from echo_desk.providers.gemini import GeminiModel
from echo_desk.providers.transport import RetryPolicy

READ_FILE = ToolDefinition(
    name="read_file", description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                "additionalProperties": False},
)


def model(script: Scripted) -> GeminiModel:
    return GeminiModel(model="models/gemini-2.5-flash", api_key="AIza-secret", base_url="https://gl.test",
                       retry=RetryPolicy(sleep=RecordingSleep()), transport=script.transport)


async def test_recorded_stream_and_signature_round_trip() -> None:
    script = Scripted([sse_response(fixture_bytes("gemini_function_call.sse")),
                       sse_response(fixture_bytes("gemini_function_call.sse"))])
    m = model(script)
    events = await collect(m.stream([ChatMessage(role="user", content="What is in notes.txt?")], [READ_FILE]))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "I'll read the file."
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    ready = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert len(ready) == 1 and ready[0].name == "read_file" and ready[0].id == started[0].id
    assert json.loads(ready[0].arguments) == {"path": "notes.txt"}
    assert events[-2:] == [Usage(input_tokens=61, output_tokens=21), StreamEnd(stop_reason="tool_calls")]

    request = script.requests[0]
    assert request.url.path == "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    assert request.url.params["alt"] == "sse"
    assert request.headers["x-goog-api-key"] == "AIza-secret" and "key" not in request.url.params

    # The next turn sends the call back with its thoughtSignature, and the result by name.
    history = [
        ChatMessage(role="user", content="What is in notes.txt?"),
        ChatMessage(role="assistant", tool_calls=(ready[0],)),
        ChatMessage(role="tool", tool_call_id=ready[0].id, content='{"ok": true, "content": "milk"}'),
    ]
    await collect(m.stream(history, [READ_FILE]))
    contents = script.body()["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"][0] == {"functionCall": {"name": "read_file", "args": {"path": "notes.txt"}},
                                       "thoughtSignature": "CikB0e2Kb7zKx1bUuJ0lm2Jg"}
    assert contents[2]["parts"][0] == {"functionResponse": {"name": "read_file",
                                                            "response": {"ok": True, "content": "milk"}}}


async def test_request_mapping_tools_and_config() -> None:
    script = Scripted([sse_response(fixture_bytes("gemini_function_call.sse"))])
    history = [ChatMessage(role="system", content="Be brief."), ChatMessage(role="user", content="hi")]
    await collect(model(script).stream(history, [READ_FILE], tool_choice="read_file"))
    body = script.body()
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    decl = body["tools"][0]["functionDeclarations"][0]
    assert decl["name"] == "read_file" and "additionalProperties" not in decl["parameters"]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}}


async def test_bad_key_400_is_auth() -> None:
    err = [{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                      "status": "INVALID_ARGUMENT"}}]
    script = Scripted([httpx.Response(400, json=err)])
    with pytest.raises(ModelError) as info:
        await collect(model(script).stream([ChatMessage(role="user", content="x")], []))
    assert info.value.kind == ModelErrorKind.AUTH and "AIza-secret" not in str(info.value)


async def test_error_object_in_stream_and_malformed_chunk() -> None:
    body = (b'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"}}]}\r\n\r\n'
            b"data: {broken\r\n\r\n"
            b'data: {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n\r\n')
    script = Scripted([sse_response(body)])
    seen = []
    with pytest.raises(ModelError) as info:
        async for event in model(script).stream([ChatMessage(role="user", content="x")], []):
            seen.append(event)
    assert info.value.kind == ModelErrorKind.SERVER and "overloaded" in str(info.value)
    assert [type(e).__name__ for e in seen] == ["TextDelta", "StreamWarning"]


async def test_list_models_keeps_generate_content_models() -> None:
    script = Scripted([httpx.Response(200, json={"models": [
        {"name": "models/gemini-2.5-flash", "inputTokenLimit": 1048576,
         "supportedGenerationMethods": ["generateContent", "countTokens"]},
        {"name": "models/text-embedding-004", "supportedGenerationMethods": ["embedContent"]},
    ]})])
    infos = await model(script).list_models()
    assert [(i.id, i.context_length) for i in infos] == [("gemini-2.5-flash", 1048576)]
