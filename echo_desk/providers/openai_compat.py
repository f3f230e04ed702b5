"""OpenAI-compatible chat completions: OpenAI, Ollama, llama.cpp's server, LM Studio, vLLM."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ModelInfo, StreamEnd, StreamEvent, images_refused
from echo_desk.providers.errors import error_for_status, error_for_transport
from echo_desk.providers.images import ALL_IMAGE_TYPES, data_url
from echo_desk.providers.openai_stream import ChunkMapper
from echo_desk.providers.tool_schemas import openai_tools
from echo_desk.providers.transport import RetryPolicy, iter_sse, make_client, open_stream


def normalize_base_url(base_url: str) -> str:
    """``http://host:port`` becomes ``http://host:port/v1``; a URL with a path is kept as given."""
    url = base_url.strip().rstrip("/")
    if urlsplit(url).path in ("", "/"):
        url += "/v1"
    return url


def openai_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """Our neutral messages in the chat-completions shape."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": m.content or None,
                    "tool_calls": [
                        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                        for c in m.tool_calls
                    ],
                }
            )
        elif m.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            parts += [{"type": "image_url", "image_url": {"url": data_url(i)}} for i in m.images]
            out.append({"role": m.role, "content": parts})
        else:
            out.append({"role": m.role, "content": m.content})
    return out


def openai_tool_choice(tool_choice: str) -> str | dict[str, Any]:
    if tool_choice in ("auto", "none", "required"):
        return tool_choice
    return {"type": "function", "function": {"name": tool_choice}}


class OpenAICompatModel:
    """A ``ChatModel`` speaking ``POST {base_url}/chat/completions`` with SSE streaming.

    Images go as ``image_url`` parts with a data URL (OpenAI, Ollama's ``/v1``, LM Studio, vLLM);
    a server whose model cannot see them answers with an error, which is shown.
    ``extra_body`` is merged into every request (e.g. llama.cpp's ``cache_prompt``,
    ``temperature``). The API key is sent as a bearer token and never logged.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        name: str = "",
        extra_body: Mapping[str, Any] | None = None,
        include_usage: bool = True,
        retry: RetryPolicy | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = normalize_base_url(base_url)
        self.model = model
        self._api_key = api_key
        self._name = name or model
        self.extra_body = dict(extra_body or {})
        self.include_usage = include_usage
        self.retry = retry or RetryPolicy()
        self._client = make_client(transport)
        #: MIME types of the images this endpoint is sent (empty: it refuses any image).
        self.image_types: frozenset[str] = ALL_IMAGE_TYPES

    @property
    def display_name(self) -> str:
        return self._name

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAICompatModel(base_url={self.base_url!r}, model={self.model!r})"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def request_body(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        tool_choice: str,
        extra: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The JSON sent for one turn (public so tests and the bench can inspect it);
        ``extra`` is merged last, for this request only."""
        images_refused(messages, self.image_types, self._name)
        body: dict[str, Any] = {"model": self.model, "messages": openai_messages(messages), "stream": True}
        if self.include_usage:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = openai_tools(tools)
            body["tool_choice"] = openai_tool_choice(tool_choice)
        body.update(self.extra_body)
        body.update(extra or {})
        return body

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
        extra: Mapping[str, Any] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        body = self.request_body(messages, tools, tool_choice, extra)
        mapper = ChunkMapper()
        async with open_stream(
            self._client,
            f"{self.base_url}/chat/completions",
            body=body,
            headers=self._headers(),
            policy=self.retry,
            base_url=self.base_url,
            model=self.model,
        ) as response:
            async for event in iter_sse(response, base_url=self.base_url):
                if event.data.strip() == "[DONE]":
                    break
                for item in mapper.feed(event.data):
                    yield item
        for ready in mapper.tools.finish():
            yield ready
        yield StreamEnd(stop_reason=mapper.stop_reason or "stop")

    async def list_models(self) -> list[ModelInfo]:
        """The models the server offers (``GET {base_url}/models``)."""
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        try:
            response = await self._client.get(f"{self.base_url}/models", headers=headers)
        except httpx.TransportError as exc:
            raise error_for_transport(exc, base_url=self.base_url) from None
        if response.status_code >= 400:
            raise error_for_status(response.status_code, response.content, base_url=self.base_url, model=self.model)
        data = response.json().get("data") or []
        infos = []
        for entry in data:
            if isinstance(entry, dict) and entry.get("id"):
                ctx = entry.get("context_length") or (entry.get("meta") or {}).get("n_ctx_train")
                infos.append(ModelInfo(id=str(entry["id"]), context_length=int(ctx) if ctx else None))
        return infos

    async def aclose(self) -> None:
        await self._client.aclose()
