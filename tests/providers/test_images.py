"""Images in provider requests, checked in the bytes a real loopback server received, and the
clear refusal of a model that cannot read them (nothing is sent, nothing dropped silently)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from providers_kit import collect

from echo_desk.agent.model import ModelError, ModelErrorKind, TextDelta
from echo_desk.chat_messages import ChatMessage, ImagePart
from echo_desk.providers.anthropic import AnthropicModel
from echo_desk.providers.factory import create_model
from echo_desk.providers.gemini import GeminiModel
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel
from echo_desk.store.settings import LocalModelSettings, ProviderKind, ProviderSettings

PNG = ImagePart(mime="image/png", data=b"\x89PNG\r\n\x1a\nfake-pixels", name="pic.png")
GIF = ImagePart(mime="image/gif", data=b"GIF89a-fake", name="anim.gif")
B64 = base64.b64encode(PNG.data).decode()
ASK = [ChatMessage(role="system", content="be brief"),
       ChatMessage(role="user", content="What is in this picture?", images=(PNG,))]

OPENAI_SSE = b'data: {"choices":[{"delta":{"content":"a cat"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
ANTHROPIC_SSE = (b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
                 b'"content_block":{"type":"text","text":""}}\n\n'
                 b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
                 b'"delta":{"type":"text_delta","text":"a cat"}}\n\n'
                 b'event: message_stop\ndata: {"type":"message_stop"}\n\n')
GEMINI_SSE = b'data: {"candidates":[{"content":{"parts":[{"text":"a cat"}]},"finishReason":"STOP"}]}\n\n'


def _recording(loopback: Any, payload: bytes) -> tuple[Any, list[dict[str, Any]]]:
    bodies: list[dict[str, Any]] = []

    def handle(h: Any) -> None:
        bodies.append(json.loads(h.rfile.read(int(h.headers["Content-Length"]))))
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    return loopback(handle), bodies


def _text(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize("kind", [ProviderKind.OPENAI, ProviderKind.OLLAMA])
async def test_openai_compatible_and_ollama_send_an_image_url_part(loopback, kind) -> None:  # type: ignore[no-untyped-def]
    server, bodies = _recording(loopback, OPENAI_SSE)
    model = create_model(ProviderSettings(kind=kind, base_url=server.url, model="vision"))
    try:
        assert _text(await collect(model.stream(ASK, []))) == "a cat"
    finally:
        await model.aclose()
    user = bodies[0]["messages"][1]
    assert user["role"] == "user"
    assert user["content"] == [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
    ]
    assert bodies[0]["messages"][0] == {"role": "system", "content": "be brief"}  # text-only stays a string


async def test_anthropic_sends_a_base64_image_block(loopback) -> None:  # type: ignore[no-untyped-def]
    server, bodies = _recording(loopback, ANTHROPIC_SSE)
    model = AnthropicModel(model="claude", api_key="k", base_url=server.url)
    try:
        assert _text(await collect(model.stream(ASK, []))) == "a cat"
    finally:
        await model.aclose()
    assert bodies[0]["messages"][0]["content"] == [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
    ]


async def test_gemini_sends_inline_data(loopback) -> None:  # type: ignore[no-untyped-def]
    server, bodies = _recording(loopback, GEMINI_SSE)
    model = GeminiModel(model="gemini-x", api_key="k", base_url=server.url)
    try:
        assert _text(await collect(model.stream(ASK, []))) == "a cat"
    finally:
        await model.aclose()
    assert bodies[0]["contents"][0]["parts"] == [
        {"text": "What is in this picture?"},
        {"inlineData": {"mimeType": "image/png", "data": B64}},
    ]


async def test_gemini_refuses_a_gif_by_name_and_sends_nothing(loopback) -> None:  # type: ignore[no-untyped-def]
    server, bodies = _recording(loopback, GEMINI_SSE)
    model = GeminiModel(model="gemini-x", api_key="k", base_url=server.url)
    try:
        with pytest.raises(ModelError) as info:
            await collect(model.stream([ChatMessage(role="user", content="?", images=(GIF,))], []))
    finally:
        await model.aclose()
    assert info.value.kind is ModelErrorKind.BAD_REQUEST
    assert "image/gif" in str(info.value) and "anim.gif" in str(info.value)
    assert bodies == [] and server.requests == []


async def test_the_built_in_model_says_it_cannot_read_images_before_starting(tmp_path: Path) -> None:
    settings = LocalModelSettings()
    model = LocalModel(tmp_path / "no-such-model.gguf", get_profile(settings.profile, context_size=settings.context_size))
    assert model.image_types == frozenset()
    with pytest.raises(ModelError) as info:
        await collect(model.stream(ASK, []))
    assert info.value.kind is ModelErrorKind.BAD_REQUEST
    assert "cannot read images" in str(info.value) and "not sent" in str(info.value)
    assert not model.server.running


async def test_an_openai_endpoint_marked_text_only_refuses_instead_of_dropping(loopback) -> None:  # type: ignore[no-untyped-def]
    server, bodies = _recording(loopback, OPENAI_SSE)
    model = create_model(ProviderSettings(kind=ProviderKind.OPENAI, base_url=server.url, model="text-only"))
    model.image_types = frozenset()  # type: ignore[attr-defined]
    try:
        with pytest.raises(ModelError, match="cannot read images"):
            await collect(model.stream(ASK, []))
    finally:
        await model.aclose()
    assert bodies == []
