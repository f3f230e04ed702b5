"""OpenAI-compatible provider: request mapping, recorded streams, tool-call assembly, errors."""

from __future__ import annotations

import json
import socket

import httpx
import pytest
from providers_kit import RecordingSleep, Scripted, collect, fixture_bytes, sse_response

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ModelError,
    ModelErrorKind,
    StreamEnd,
    StreamWarning,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolCallStarted,
    Usage,
)
from echo_desk.providers.openai_compat import OpenAICompatModel, normalize_base_url
from echo_desk.providers.transport import RetryPolicy

READ_FILE = ToolDefinition(
    name="read_file",
    description="Read a text file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
ASK = [ChatMessage(role="user", content="What is in notes.txt?")]


def model(script: Scripted, base_url: str = "http://127.0.0.1:8080", **kw: object) -> OpenAICompatModel:
    sleep = kw.pop("sleep", RecordingSleep())
    return OpenAICompatModel(
        base_url=base_url, model="m", api_key=kw.pop("api_key", None),  # type: ignore[arg-type]
        retry=RetryPolicy(attempts=3, sleep=sleep), transport=script.transport, **kw,  # type: ignore[arg-type]
    )


async def test_llamacpp_recorded_tool_call_stream_becomes_one_ready_call() -> None:
    script = Scripted([sse_response(fixture_bytes("llamacpp_tool_call.sse"))])
    events = await collect(model(script).stream(ASK, [READ_FILE]))
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert [s.name for s in started] == ["read_file"]
    assert len(ready) == 1
    assert ready[0].call.name == "read_file"
    assert json.loads(ready[0].call.arguments) == {"path": "notes.txt"}
    assert ready[0].call.id == started[0].id
    assert events[-1] == StreamEnd(stop_reason="tool_calls")
    assert Usage(input_tokens=150, output_tokens=18) in events


async def test_llamacpp_recorded_text_stream() -> None:
    script = Scripted([sse_response(fixture_bytes("llamacpp_text.sse"))])
    events = await collect(model(script).stream(ASK, [READ_FILE]))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert text == "The capital of France is Paris."
    assert not [e for e in events if isinstance(e, ToolCallReady)]
    assert events[-1] == StreamEnd(stop_reason="stop")


async def test_openai_parallel_calls_assembled_from_fragments_in_order() -> None:
    script = Scripted([sse_response(fixture_bytes("openai_parallel_tool_calls.sse"))])
    events = await collect(model(script).stream(ASK, [READ_FILE]))
    calls = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert calls == [
        ToolCall(id="call_Qx1", name="read_file", arguments='{"path": "notes.txt"}'),
        ToolCall(id="call_Qx2", name="list_directory", arguments='{"path": "."}'),
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me look at both."
    assert Usage(input_tokens=120, output_tokens=41) in events
    # Usage came after the finish chunk; the stream still ends with StreamEnd.
    assert isinstance(events[-1], StreamEnd)


async def test_request_maps_history_tools_and_choice() -> None:
    script = Scripted([sse_response(fixture_bytes("llamacpp_text.sse"))])
    history = [
        ChatMessage(role="system", content="Be brief."),
        ChatMessage(role="user", content="Read it"),
        ChatMessage(role="assistant", tool_calls=(ToolCall(id="c1", name="read_file", arguments='{"path":"a"}'),)),
        ChatMessage(role="tool", tool_call_id="c1", name="read_file", content='{"ok": true}'),
    ]
    m = model(script, api_key="sk-secret", extra_body={"cache_prompt": False, "temperature": 0})
    await collect(m.stream(history, [READ_FILE], tool_choice="read_file"))
    body = script.body()
    assert body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path":"a"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
    ]
    assert body["tools"][0]["function"]["name"] == "read_file"
    assert body["tool_choice"] == {"type": "function", "function": {"name": "read_file"}}
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["cache_prompt"] is False and body["temperature"] == 0
    request = script.requests[0]
    assert request.url == "http://127.0.0.1:8080/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-secret"
    assert "sk-secret" not in repr(m)


async def test_no_tools_sends_no_tool_choice() -> None:
    script = Scripted([sse_response(fixture_bytes("llamacpp_text.sse"))])
    await collect(model(script).stream(ASK, [], tool_choice="required"))
    assert "tools" not in script.body() and "tool_choice" not in script.body()


def test_base_url_gets_v1_only_without_a_path() -> None:
    assert normalize_base_url("http://127.0.0.1:11434") == "http://127.0.0.1:11434/v1"
    assert normalize_base_url("http://h:1/v1/") == "http://h:1/v1"
    assert normalize_base_url("https://x.test/api/openai/v1") == "https://x.test/api/openai/v1"


async def test_invalid_json_arguments_pass_through_raw() -> None:
    chunks = (
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c9","type":"function",'
        '"function":{"name":"read_file","arguments":"{\\"path\\": notes"}}]}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    script = Scripted([sse_response(chunks.encode())])
    events = await collect(model(script).stream(ASK, [READ_FILE]))
    ready = [e for e in events if isinstance(e, ToolCallReady)]
    assert ready[0].call.arguments == '{"path": notes'


async def test_malformed_chunk_is_skipped_and_reported() -> None:
    chunks = (
        'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
        "data: {not json\n\n"
        'data: ["a list"]\n\n'
        'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    script = Scripted([sse_response(chunks.encode())])
    events = await collect(model(script).stream(ASK, []))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello"
    assert len([e for e in events if isinstance(e, StreamWarning)]) == 2
    assert events[-1] == StreamEnd("stop")


async def test_llamacpp_in_stream_parse_failure_is_model_output_error() -> None:
    script = Scripted([sse_response(fixture_bytes("llamacpp_model_output_error.sse"))])
    with pytest.raises(ModelError) as info:
        await collect(model(script).stream(ASK, [READ_FILE]))
    assert info.value.kind == ModelErrorKind.MODEL_OUTPUT


async def test_llamacpp_http_500_parse_failure_is_model_output_and_not_retried() -> None:
    body = {"error": {"code": 500, "message": "Failed to parse tool call arguments as JSON", "type": "server_error"}}
    script = Scripted([httpx.Response(500, json=body)])
    sleep = RecordingSleep()
    with pytest.raises(ModelError) as info:
        await collect(model(script, sleep=sleep).stream(ASK, [READ_FILE]))
    assert info.value.kind == ModelErrorKind.MODEL_OUTPUT
    assert len(script.requests) == 1 and sleep.delays == []


@pytest.mark.parametrize(
    ("status", "kind", "words"),
    [
        (401, ModelErrorKind.AUTH, "API key rejected"),
        (403, ModelErrorKind.AUTH, "API key rejected"),
        (404, ModelErrorKind.NOT_FOUND, "does not know the model"),
        (400, ModelErrorKind.BAD_REQUEST, "refused the request"),
    ],
)
async def test_error_statuses_are_actionable_and_not_retried(status: int, kind: ModelErrorKind, words: str) -> None:
    script = Scripted([httpx.Response(status, json={"error": {"message": "nope"}})])
    with pytest.raises(ModelError) as info:
        await collect(model(script, api_key="sk-live-123").stream(ASK, []))
    assert info.value.kind == kind and info.value.status == status
    assert words in str(info.value) and "nope" in str(info.value)
    assert "sk-live-123" not in str(info.value)
    assert len(script.requests) == 1


async def test_429_then_success_retries_with_server_delay() -> None:
    script = Scripted([
        httpx.Response(429, headers={"retry-after": "2"}, json={"error": {"message": "slow down"}}),
        sse_response(fixture_bytes("llamacpp_text.sse")),
    ])
    sleep = RecordingSleep()
    events = await collect(model(script, sleep=sleep).stream(ASK, []))
    assert sleep.delays == [2.0]
    assert any(isinstance(e, TextDelta) for e in events)


async def test_5xx_retries_are_bounded_with_growing_backoff() -> None:
    script = Scripted([httpx.Response(503, text="busy")])
    sleep = RecordingSleep()
    with pytest.raises(ModelError) as info:
        await collect(model(script, sleep=sleep).stream(ASK, []))
    assert info.value.kind == ModelErrorKind.SERVER and info.value.status == 503
    assert len(script.requests) == 3
    assert len(sleep.delays) == 2 and sleep.delays[1] > sleep.delays[0]


async def test_connection_refused_names_ollama() -> None:
    script = Scripted([httpx.ConnectError("[Errno 111] Connection refused")])
    with pytest.raises(ModelError) as info:
        await collect(model(script, base_url="http://127.0.0.1:11434/v1").stream(ASK, []))
    assert info.value.kind == ModelErrorKind.CONNECTION
    assert str(info.value) == "no server at http://127.0.0.1:11434 — is Ollama running?"
    assert len(script.requests) == 1


async def test_real_refused_port_on_loopback() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: nothing listens there
    m = OpenAICompatModel(base_url=f"http://127.0.0.1:{port}", model="m")
    try:
        with pytest.raises(ModelError) as info:
            await collect(m.stream(ASK, []))
    finally:
        await m.aclose()
    assert info.value.kind == ModelErrorKind.CONNECTION
    assert f"no server at http://127.0.0.1:{port}" in str(info.value)


async def test_stream_over_a_real_loopback_socket(loopback) -> None:  # type: ignore[no-untyped-def]
    payload = fixture_bytes("openai_parallel_tool_calls.sse")

    def handle(h) -> None:  # type: ignore[no-untyped-def]
        h.rfile.read(int(h.headers["Content-Length"]))
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        for i in range(0, len(payload), 97):  # split mid-line, as TCP may
            part = payload[i : i + 97]
            h.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            h.wfile.flush()
        h.wfile.write(b"0\r\n\r\n")

    server = loopback(handle)
    m = OpenAICompatModel(base_url=server.url, model="m")
    try:
        events = await collect(m.stream(ASK, [READ_FILE]))
    finally:
        await m.aclose()
    assert [e.call.name for e in events if isinstance(e, ToolCallReady)] == ["read_file", "list_directory"]
    assert server.requests[0]["path"] == "/v1/chat/completions"


async def test_list_models() -> None:
    script = Scripted([httpx.Response(200, json={"object": "list", "data": [
        {"id": "qwen2.5-coder:0.5b", "object": "model"}, {"id": "llama3.2", "context_length": 8192}]})])
    infos = await model(script).list_models()
    assert [i.id for i in infos] == ["qwen2.5-coder:0.5b", "llama3.2"]
    assert infos[1].context_length == 8192
    assert script.requests[0].url.path == "/v1/models"


async def test_list_models_401() -> None:
    script = Scripted([httpx.Response(401, json={"error": {"message": "Incorrect API key provided"}})])
    with pytest.raises(ModelError) as info:
        await model(script).list_models()
    assert info.value.kind == ModelErrorKind.AUTH


async def test_closing_the_stream_early_closes_the_connection(loopback) -> None:  # type: ignore[no-untyped-def]
    """What Stop relies on: abandoning the iterator hangs up, so the server stops generating."""
    import threading

    hung_up = threading.Event()
    release = threading.Event()

    def handle(h) -> None:  # type: ignore[no-untyped-def]
        h.rfile.read(int(h.headers["Content-Length"]))
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.end_headers()
        chunk = b'data: {"choices":[{"index":0,"delta":{"content":"tok "}}]}\n\n'
        try:
            for _ in range(2000):  # ~20 s worth of tokens unless the client hangs up
                h.wfile.write(chunk)
                h.wfile.flush()
                if release.wait(0.01):
                    return
        except (BrokenPipeError, ConnectionResetError):
            hung_up.set()

    server = loopback(handle)
    m = OpenAICompatModel(base_url=server.url, model="m")
    stream = m.stream(ASK, [])
    try:
        first = await anext(stream)
        assert isinstance(first, TextDelta)
        await stream.aclose()
        import asyncio

        assert await asyncio.to_thread(hung_up.wait, 10.0), "server kept streaming after the client left"
    finally:
        release.set()
        await m.aclose()
