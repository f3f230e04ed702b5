"""Google Gemini ``streamGenerateContent`` (SSE; ``functionCall`` / ``functionResponse`` parts)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ModelInfo,
    StreamEnd,
    StreamEvent,
    StreamWarning,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolCallStarted,
    Usage,
    images_refused,
)
from echo_desk.common.json_text import read_json
from echo_desk.i18n import _
from echo_desk.providers.errors import error_for_status, error_for_transport, stream_error
from echo_desk.providers.images import GEMINI_IMAGE_TYPES, base64_text
from echo_desk.providers.tool_schemas import gemini_tools
from echo_desk.providers.transport import RetryPolicy, iter_sse, make_client, open_stream

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_STOP_REASONS = {"STOP": "stop", "MAX_TOKENS": "length"}


def _response_object(content: str) -> dict[str, Any]:
    """``functionResponse.response`` must be an object: our envelope JSON usually is one."""
    try:
        value = read_json(content)
    except ValueError:
        return {"content": content}
    return value if isinstance(value, dict) else {"content": value}


def _args_object(arguments: str) -> dict[str, Any]:
    try:
        value = read_json(arguments or "{}")
    except ValueError:
        return {"raw_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


class GeminiModel:
    """A ``ChatModel`` for the Gemini API. The key travels in ``x-goog-api-key``, not the URL."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.model = model.removeprefix("models/")
        self._api_key = api_key
        self.retry = retry or RetryPolicy()
        self._client = make_client(transport)
        # Gemini 2.5+/3 hand out a thoughtSignature with each functionCall and want it back
        # with that call in later turns; ToolCall has no slot for it, so remember it here.
        self._signatures: dict[str, str] = {}
        #: MIME types of the images this endpoint is sent (``inlineData`` parts; no GIF).
        self.image_types: frozenset[str] = GEMINI_IMAGE_TYPES

    @property
    def display_name(self) -> str:
        return self.model

    def __repr__(self) -> str:
        return f"GeminiModel(base_url={self.base_url!r}, model={self.model!r})"

    def _headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._api_key} if self._api_key else {}

    def contents(self, messages: Sequence[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
        """``(system instruction, contents)`` with same-role turns merged."""
        system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
        names = {c.id: c.name for m in messages for c in m.tool_calls}
        out: list[dict[str, Any]] = []
        for m in messages:
            if m.role == "system":
                continue
            parts: list[dict[str, Any]]
            if m.role == "tool":
                role = "user"
                name = m.name or names.get(m.tool_call_id, "")
                parts = [{"functionResponse": {"name": name, "response": _response_object(m.content)}}]
            elif m.role == "assistant":
                role = "model"
                parts = [{"text": m.content}] if m.content else []
                for c in m.tool_calls:
                    part: dict[str, Any] = {"functionCall": {"name": c.name, "args": _args_object(c.arguments)}}
                    if c.id in self._signatures:
                        part["thoughtSignature"] = self._signatures[c.id]
                    parts.append(part)
            else:
                role = "user"
                parts = [{"text": m.content}] if m.content or not m.images else []
                parts += [{"inlineData": {"mimeType": i.mime, "data": base64_text(i)}} for i in m.images]
            if not parts:
                continue
            if out and out[-1]["role"] == role:
                out[-1]["parts"].extend(parts)
            else:
                out.append({"role": role, "parts": parts})
        return system, out

    def request_body(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], tool_choice: str
    ) -> dict[str, Any]:
        images_refused(messages, self.image_types, self.model)
        system, contents = self.contents(messages)
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            body["tools"] = gemini_tools(tools)
            config: dict[str, Any]
            if tool_choice in ("auto", "none", "required"):
                config = {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[tool_choice]}
            else:
                config = {"mode": "ANY", "allowedFunctionNames": [tool_choice]}
            body["toolConfig"] = {"functionCallingConfig": config}
        return body

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
    ) -> AsyncIterator[StreamEvent]:
        body = self.request_body(messages, tools, tool_choice)
        url = f"{self.base_url}/v1beta/models/{self.model}:streamGenerateContent?alt=sse"
        usage: Usage | None = None
        stop_reason = "stop"
        called = False
        async with open_stream(
            self._client, url, body=body, headers=self._headers(), policy=self.retry,
            base_url=self.base_url, model=self.model,
        ) as response:
            async for sse in iter_sse(response, base_url=self.base_url):
                try:
                    chunk = read_json(sse.data)
                    if not isinstance(chunk, dict):
                        raise ValueError
                except ValueError:
                    yield StreamWarning(
                        _("Skipped a malformed chunk from the server: {chunk}").format(chunk=sse.data[:120])
                    )
                    continue
                if "error" in chunk:
                    raise stream_error(chunk)
                for candidate in chunk.get("candidates") or []:
                    for part in (candidate.get("content") or {}).get("parts") or []:
                        if part.get("text") and not part.get("thought"):
                            yield TextDelta(str(part["text"]))
                        call = part.get("functionCall")
                        if isinstance(call, dict):
                            called = True
                            call_id = str(call.get("id") or f"call_{uuid.uuid4().hex[:12]}")
                            if part.get("thoughtSignature"):
                                self._signatures[call_id] = str(part["thoughtSignature"])
                            name = str(call.get("name", ""))
                            yield ToolCallStarted(id=call_id, name=name)
                            args = json.dumps(call.get("args") or {}, ensure_ascii=False)
                            yield ToolCallReady(ToolCall(id=call_id, name=name, arguments=args))
                    reason = candidate.get("finishReason")
                    if reason:
                        stop_reason = _STOP_REASONS.get(reason, str(reason).lower())
                meta = chunk.get("usageMetadata")
                if isinstance(meta, dict):
                    usage = Usage(
                        input_tokens=int(meta.get("promptTokenCount") or 0),
                        output_tokens=int(meta.get("candidatesTokenCount") or 0),
                    )
        if usage is not None:
            yield usage
        yield StreamEnd(stop_reason="tool_calls" if called and stop_reason == "stop" else stop_reason)

    async def list_models(self) -> list[ModelInfo]:
        try:
            response = await self._client.get(f"{self.base_url}/v1beta/models", headers=self._headers())
        except httpx.TransportError as exc:
            raise error_for_transport(exc, base_url=self.base_url) from None
        if response.status_code >= 400:
            raise error_for_status(response.status_code, response.content, base_url=self.base_url, model=self.model)
        infos = []
        for m in response.json().get("models", []):
            if "generateContent" in (m.get("supportedGenerationMethods") or ["generateContent"]):
                infos.append(ModelInfo(id=str(m["name"]).removeprefix("models/"),
                                       context_length=m.get("inputTokenLimit")))
        return infos

    async def aclose(self) -> None:
        await self._client.aclose()
