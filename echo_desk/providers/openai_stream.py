"""Mapping OpenAI-style chat-completion chunks to stream events.

Tool calls arrive in pieces (``tool_calls`` deltas keyed by ``index``: id and name first, then
argument fragments). ``ToolCallAssembler`` glues them into complete ``ToolCall``s. Argument
text that is not valid JSON is passed on as it came: the dispatcher turns it into a
validation envelope the model can read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from echo_desk.agent.model import (
    PromptProgress,
    StreamEvent,
    StreamWarning,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
    Usage,
)
from echo_desk.common.json_text import read_json
from echo_desk.i18n import _
from echo_desk.providers.errors import stream_error


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    announced: bool = False


class ToolCallAssembler:
    """Collects ``tool_calls`` deltas; ``finish()`` returns the complete calls in order."""

    def __init__(self) -> None:
        self._calls: dict[int, _PartialCall] = {}
        self._done = False

    def add(self, delta: dict[str, Any], position: int) -> Iterator[StreamEvent]:
        index = delta.get("index")
        key = index if isinstance(index, int) else position
        part = self._calls.setdefault(key, _PartialCall())
        if delta.get("id"):
            part.id = str(delta["id"])
        function = delta.get("function") or {}
        if function.get("name") and not part.name:
            part.name = str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            part.arguments.append(arguments)
        elif arguments is not None:
            # Some servers (older Ollama) send the arguments as an object, not text.
            part.arguments.append(json.dumps(arguments))
        if part.name and not part.announced:
            part.announced = True
            yield ToolCallStarted(id=part.id or self._fallback_id(key), name=part.name)
        if part.announced and isinstance(arguments, str) and arguments:
            yield ToolCallDelta(id=part.id or self._fallback_id(key), text=arguments)

    @staticmethod
    def _fallback_id(key: int) -> str:
        return f"call_{key}"

    def finish(self) -> list[ToolCallReady]:
        """The assembled calls, once; later calls return nothing."""
        if self._done:
            return []
        self._done = True
        ready = []
        for key in sorted(self._calls):
            part = self._calls[key]
            args = "".join(part.arguments)
            ready.append(
                ToolCallReady(
                    ToolCall(id=part.id or self._fallback_id(key), name=part.name, arguments=args or "{}")
                )
            )
        return ready


class ChunkMapper:
    """Feeds parsed SSE ``data`` payloads; yields the events each one carries."""

    def __init__(self) -> None:
        self.tools = ToolCallAssembler()
        self.stop_reason = ""

    def feed(self, data: str) -> Iterator[StreamEvent]:
        try:
            chunk = read_json(data)
        except ValueError:
            yield StreamWarning(_("Skipped a malformed chunk from the server: {chunk}").format(chunk=data[:120]))
            return
        if not isinstance(chunk, dict):
            yield StreamWarning(_("Skipped a malformed chunk from the server: {chunk}").format(chunk=data[:120]))
            return
        if "error" in chunk:
            raise stream_error(chunk)
        progress = chunk.get("prompt_progress")  # llama.cpp with "return_progress": true
        if isinstance(progress, dict) and isinstance(progress.get("total"), int):
            yield PromptProgress(total=progress["total"], cached=int(progress.get("cache") or 0),
                                 processed=int(progress.get("processed") or 0))
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                yield TextDelta(text)
            for position, call in enumerate(delta.get("tool_calls") or []):
                if isinstance(call, dict):
                    yield from self.tools.add(call, position)
            if choice.get("finish_reason"):
                self.stop_reason = str(choice["finish_reason"])
                yield from self.tools.finish()
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            yield Usage(
                input_tokens=int(usage.get("prompt_tokens") or 0),
                output_tokens=int(usage.get("completion_tokens") or 0),
            )
