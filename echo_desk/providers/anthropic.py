"""Anthropic messages API (streaming, ``tool_use`` / ``tool_result`` blocks)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ModelError,
    ModelErrorKind,
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
    model_said,
)
from echo_desk.common.json_text import read_json
from echo_desk.i18n import _
from echo_desk.providers.errors import MID_ANSWER, error_for_status, error_for_transport
from echo_desk.providers.images import ALL_IMAGE_TYPES, base64_text
from echo_desk.providers.tool_schemas import anthropic_tools
from echo_desk.providers.transport import RetryPolicy, iter_sse, make_client, open_stream

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"
_STOP_REASONS = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "stop_sequence": "stop"}


def _input_object(arguments: str) -> dict[str, Any]:
    """``tool_use.input`` must be an object; keep unparsable text so the history stays honest."""
    try:
        value = read_json(arguments or "{}")
    except ValueError:
        return {"raw_arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def anthropic_messages(messages: Sequence[ChatMessage]) -> tuple[str, list[dict[str, Any]]]:
    """``(system, messages)``: tool results ride in user turns; same-role turns are merged."""
    system = "\n\n".join(m.content for m in messages if m.role == "system" and m.content)
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        blocks: list[dict[str, Any]]
        if m.role == "tool":
            role = "user"
            blocks = [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}]
        elif m.role == "assistant":
            role = "assistant"
            blocks = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [
                {"type": "tool_use", "id": c.id, "name": c.name, "input": _input_object(c.arguments)}
                for c in m.tool_calls
            ]
        else:
            role = "user"
            blocks = [{"type": "text", "text": m.content}] if m.content or not m.images else []
            blocks += [{"type": "image", "source": {"type": "base64", "media_type": i.mime, "data": base64_text(i)}}
                       for i in m.images]
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return system, out


def anthropic_tool_choice(tool_choice: str) -> dict[str, Any]:
    mapping = {"auto": {"type": "auto"}, "required": {"type": "any"}, "none": {"type": "none"}}
    return mapping.get(tool_choice) or {"type": "tool", "name": tool_choice}


class AnthropicModel:
    """A ``ChatModel`` for ``POST /v1/messages`` with ``stream: true``."""

    def __init__(
        self,
        *,
        model: str,
        api_key: str | None,
        base_url: str = DEFAULT_BASE_URL,
        max_tokens: int = 4096,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.model = model
        self.max_tokens = max_tokens
        self._api_key = api_key
        self.retry = retry or RetryPolicy()
        self._client = make_client(transport)
        #: MIME types of the images this endpoint is sent (``image`` blocks, base64).
        self.image_types: frozenset[str] = ALL_IMAGE_TYPES

    @property
    def display_name(self) -> str:
        return self.model

    def __repr__(self) -> str:
        return f"AnthropicModel(base_url={self.base_url!r}, model={self.model!r})"

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION, "Accept": "text/event-stream"}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def request_body(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], tool_choice: str
    ) -> dict[str, Any]:
        images_refused(messages, self.image_types, self.model)
        system, msgs = anthropic_messages(messages)
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.max_tokens, "messages": msgs, "stream": True}
        if system:
            body["system"] = system
        if tools:
            body["tools"] = anthropic_tools(tools)
            body["tool_choice"] = anthropic_tool_choice(tool_choice)
        return body

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
    ) -> AsyncIterator[StreamEvent]:
        body = self.request_body(messages, tools, tool_choice)
        blocks: dict[int, dict[str, Any]] = {}
        input_tokens = output_tokens = 0
        stop_reason = "stop"
        async with open_stream(
            self._client,
            f"{self.base_url}/v1/messages",
            body=body,
            headers=self._headers(),
            policy=self.retry,
            base_url=self.base_url,
            model=self.model,
        ) as response:
            async for sse in iter_sse(response, base_url=self.base_url):
                try:
                    event = read_json(sse.data)
                    kind = event["type"]
                except (ValueError, KeyError, TypeError):
                    yield StreamWarning(
                        _("Skipped a malformed chunk from the server: {chunk}").format(chunk=sse.data[:120])
                    )
                    continue
                if kind == "message_start":
                    usage = (event.get("message") or {}).get("usage") or {}
                    input_tokens = int(usage.get("input_tokens") or 0)
                elif kind == "content_block_start":
                    block = dict(event.get("content_block") or {})
                    blocks[int(event.get("index", 0))] = block
                    if block.get("type") == "tool_use":
                        block["json"] = []
                        yield ToolCallStarted(id=str(block.get("id", "")), name=str(block.get("name", "")))
                elif kind == "content_block_delta":
                    delta = event.get("delta") or {}
                    block = blocks.get(int(event.get("index", 0)), {})
                    if delta.get("type") == "text_delta" and delta.get("text"):
                        yield TextDelta(str(delta["text"]))
                    elif delta.get("type") == "input_json_delta" and "json" in block:
                        block["json"].append(str(delta.get("partial_json", "")))
                elif kind == "content_block_stop":
                    block = blocks.pop(int(event.get("index", 0)), {})
                    if block.get("type") == "tool_use":
                        args = "".join(block.get("json", [])) or "{}"
                        call = ToolCall(id=str(block.get("id", "")), name=str(block.get("name", "")), arguments=args)
                        yield ToolCallReady(call)
                elif kind == "message_delta":
                    reason = (event.get("delta") or {}).get("stop_reason")
                    if reason:
                        stop_reason = _STOP_REASONS.get(reason, reason)
                    output_tokens = int((event.get("usage") or {}).get("output_tokens") or output_tokens)
                elif kind == "error":
                    err = event.get("error") or {}
                    kind_ = ModelErrorKind.RATE_LIMIT if err.get("type") == "overloaded_error" else ModelErrorKind.SERVER
                    raise ModelError(model_said(MID_ANSWER, detail=str(err.get("message", ""))), kind=kind_)
                elif kind == "message_stop":
                    break
                # "ping" and unknown future event types are ignored on purpose.
        yield Usage(input_tokens=input_tokens, output_tokens=output_tokens)
        yield StreamEnd(stop_reason=stop_reason)

    async def list_models(self) -> list[ModelInfo]:
        try:
            response = await self._client.get(f"{self.base_url}/v1/models", headers=self._headers())
        except httpx.TransportError as exc:
            raise error_for_transport(exc, base_url=self.base_url) from None
        if response.status_code >= 400:
            raise error_for_status(response.status_code, response.content, base_url=self.base_url, model=self.model)
        return [ModelInfo(id=str(m["id"])) for m in response.json().get("data", []) if m.get("id")]

    async def aclose(self) -> None:
        await self._client.aclose()
