"""The "Local (built-in)" provider: a ``ChatModel`` that runs its own llama.cpp server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    ChatModel,
    ModelError,
    ModelErrorKind,
    ModelStarting,
    StreamEvent,
    images_refused,
    model_said,
)
from echo_desk.i18n import N_, _
from echo_desk.providers.local.intent import IntentMemory
from echo_desk.providers.local.profiles import ModelProfile
from echo_desk.providers.local.server import LlamaServer
from echo_desk.providers.local.structured import constrained_stream
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.providers.transport import RetryPolicy


def _with_progress(defaults: dict[str, Any]) -> dict[str, Any]:
    # The server reports how far it has read the prompt (``PromptProgress``): on a CPU that is
    # the long silent part of a turn.
    return {**defaults, "return_progress": True}


class LocalModel:
    """Starts the server on first use (and again if it died), then talks OpenAI-compatible to it."""

    def __init__(self, model_path: Path, profile: ModelProfile, *, threads: int | None = None) -> None:
        self.model_path = Path(model_path)
        self.profile = profile
        self.server = LlamaServer(self.model_path, profile, threads=threads)
        self._client: OpenAICompatModel | None = None
        self._lock = asyncio.Lock()
        #: The built-in model reads text only: a message with an image is refused, never sent without it.
        self.image_types: frozenset[str] = frozenset()
        #: What the model stated each recent exchange asks for (steered profiles; ``intent``).
        self.intents = IntentMemory()

    @property
    def display_name(self) -> str:
        return _("Local (built-in) · {model}").format(model=self.model_path.stem)

    @property
    def hidden_tools(self) -> frozenset[str]:
        """Not offered to this model (see ``agent.model.hidden_tools``)."""
        return self.profile.hidden_tools

    async def ensure_started(self) -> OpenAICompatModel:
        async with self._lock:
            if self._client is not None and self.server.running:
                return self._client
            if self._client is not None:
                await self._client.aclose()
                self._client = None
            info = await self.server.start()
            self._client = OpenAICompatModel(
                base_url=info.url,
                model=self.model_path.name,
                name=self.display_name,
                extra_body=_with_progress(self.profile.request_defaults),
                # The server is ours and on loopback: a 5xx is not "busy", so do not retry.
                retry=RetryPolicy(attempts=1),
            )
            return self._client

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
    ) -> AsyncIterator[StreamEvent]:
        images_refused(messages, self.image_types, self.display_name)
        pid_before = self.server.pid
        if not self.server.running:
            yield ModelStarting()  # loading the model can take a while: the window says so
        client = await self.ensure_started()
        fresh = self.server.pid != pid_before  # (re)started for this very request
        started = False
        try:
            async for event in self._turn(client, messages, tools, tool_choice):
                started = True
                yield event
        except ModelError as exc:
            # Nothing went out yet and the connection failed: try once more if the child died
            # (start it again), or if it was just started for this very request and dropped it
            # (seen in CI right after a crash restart). A settled server's failure is reported.
            if started or exc.kind != ModelErrorKind.CONNECTION or (self.server.running and not fresh):
                raise
            if not self.server.running:
                yield ModelStarting()
            client = await self.ensure_started()
            async for event in self._turn(client, messages, tools, tool_choice):
                yield event

    def _turn(
        self, client: OpenAICompatModel, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition],
        tool_choice: str,
    ) -> AsyncIterator[StreamEvent]:
        tools = self.offered(tools)
        if self.profile.structured_calls:
            return constrained_stream(client, messages, tools, tool_choice, grammar=self.profile.call_grammar,
                                      relative_paths=self.profile.relative_paths, steer=self.profile.steer_turns,
                                      intents=self.intents)
        return client.stream(messages, tools, tool_choice=tool_choice)

    def offered(self, tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
        """The tools as this model is offered them: none it hides, and for a small model each
        with only its basic parameters."""
        basic = self.profile.basic_parameters_only
        return [t.basic() if basic else t for t in tools if t.name not in self.profile.hidden_tools]

    def sibling(self) -> ChatModel:
        """A model that talks to this same server from another event loop (a sub-agent runs
        on a tool worker's loop). It never starts or stops the server: the owner does."""
        return _SiblingModel(self)

    async def aclose(self) -> None:
        async with self._lock:
            if self._client is not None:
                await self._client.aclose()
                self._client = None
            await self.server.stop()


class _SiblingModel:
    def __init__(self, owner: LocalModel) -> None:
        self.owner = owner
        self._client: OpenAICompatModel | None = None

    @property
    def display_name(self) -> str:
        return self.owner.display_name

    @property
    def hidden_tools(self) -> frozenset[str]:
        return self.owner.hidden_tools

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
    ) -> AsyncIterator[StreamEvent]:
        info = self.owner.server.info
        if info is None or not self.owner.server.running:
            raise ModelError(model_said(N_("The local model is not running.")), kind=ModelErrorKind.CONNECTION)
        if self._client is None:  # created here, on the loop that uses it
            self._client = OpenAICompatModel(
                base_url=info.url,
                model=self.owner.model_path.name,
                name=self.owner.display_name,
                extra_body=_with_progress(self.owner.profile.request_defaults),
                retry=RetryPolicy(attempts=1),
            )
        async for event in self.owner._turn(self._client, messages, tools, tool_choice):
            yield event

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
