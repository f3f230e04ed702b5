"""The small protocol the agent loop uses to talk to a model. Providers implement it.

The messages it carries (``ChatMessage``, ``ToolCall``, ...) are ``echo_desk.chat_messages``,
below the engine, because the store keeps them too."""

from __future__ import annotations

import enum
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from echo_desk.agent.definitions import ToolDefinition

# Re-exported only because the providers, the loop, the CLI, bench and tests still import these
# two from here; once they import echo_desk.chat_messages, the aliases go.
from echo_desk.chat_messages import ChatMessage as ChatMessage
from echo_desk.chat_messages import ToolCall as ToolCall
from echo_desk.common.explain import in_english
from echo_desk.i18n import N_, Deferred, for_person


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    """The model began a call (name known, arguments still streaming). For live UI only."""

    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta:
    """More argument text of a call being written. For live progress and the runaway guard."""

    id: str
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    call: ToolCall


@dataclass(frozen=True)
class StreamWarning:
    """Something in the stream was malformed and skipped; the turn goes on."""

    message: str


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass(frozen=True)
class StreamEnd:
    stop_reason: str = "stop"


@dataclass(frozen=True)
class ModelStarting:
    """The model's own server is starting (loading the model file) before the request goes out.
    For live progress only: the built-in model sends it on first use, a remote one never."""


@dataclass(frozen=True)
class PromptProgress:
    """The server is reading the prompt: ``processed`` of ``total`` tokens, ``cached`` of them
    reused from the previous request (llama.cpp's ``prompt_progress``). For live progress only."""

    total: int
    cached: int = 0
    processed: int = 0


@dataclass(frozen=True)
class IntentProgress:
    """The model is stating what the request asks for before it is offered tools for it (the
    built-in model's first step of an exchange): ``tokens`` written so far, and once it is
    known, the ``intent`` it stated (a word of a closed set). For live progress only."""

    tokens: int = 0
    intent: str = ""


StreamEvent = (TextDelta | ToolCallStarted | ToolCallDelta | ToolCallReady | StreamWarning | Usage | StreamEnd
               | ModelStarting | PromptProgress | IntentProgress)


class ModelErrorKind(enum.StrEnum):
    CONNECTION = "connection"
    AUTH = "auth"
    NOT_FOUND = "not_found"
    RATE_LIMIT = "rate_limit"
    SERVER = "server"
    MODEL_OUTPUT = "model_output"
    BAD_REQUEST = "bad_request"


class ModelError(Exception):
    """A failure a person can act on, e.g. "no server at http://127.0.0.1:11434 — is Ollama running?".

    ``reason`` is Echo Desk's sentence (``model_said``): the window, the banner and the command
    line show it (``i18n.shown``) in the language of the moment, not the one of when it was raised.
    ``str()`` is its English, for the log, a report and a parent agent's model."""

    def __init__(self, message: str, *, kind: ModelErrorKind, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status

    @property
    def reason(self) -> str:
        """The sentence for the person (re-translatable when built with ``model_said``)."""
        reason: str = self.args[0]
        return reason

    def __str__(self) -> str:
        return in_english(self.args[0]) if self.args else ""


def model_said(msgid: str, **params: object) -> str:
    """A ``ModelError``'s sentence: ``msgid`` said when shown (``i18n.shown``), in English as a
    ``str``. A parameter that is itself ``model_said`` is said in the same language."""
    return for_person(in_english(Deferred("", msgid, params)), msgid, **params)


@dataclass(frozen=True, kw_only=True)
class ModelInfo:
    id: str
    context_length: int | None = None
    extra: dict[str, str] = field(default_factory=dict)


def images_refused(messages: Sequence[ChatMessage], accepted: frozenset[str], who: str) -> None:
    """Raise a ``BAD_REQUEST`` ``ModelError`` when ``messages`` carry an image ``who`` cannot take
    (``accepted`` = the MIME types it takes; empty = no images at all)."""
    for message in messages:
        for image in message.images:
            if not accepted:
                raise ModelError(model_said(N_("{model} cannot read images; the message was not sent. Remove "
                                               "the image or choose a model that accepts images."), model=who),
                                 kind=ModelErrorKind.BAD_REQUEST)
            if image.mime not in accepted:
                raise ModelError(model_said(N_("{model} cannot read {kind} images ({name}); the message was not "
                                               "sent."), model=who, kind=image.mime, name=image.name),
                                 kind=ModelErrorKind.BAD_REQUEST)


class ChatModel(Protocol):
    """One configured model endpoint."""

    @property
    def display_name(self) -> str: ...

    def stream(
        self,
        messages: Sequence[ChatMessage],
        tools: Sequence[ToolDefinition],
        *,
        tool_choice: str = "auto",
    ) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


def hidden_tools(model: object | None) -> frozenset[str]:
    """The tools ``model`` is not offered although enabled (its profile hides them from a small
    model); they stay in the catalog and callable by the person. Empty for most models."""
    hidden = getattr(model, "hidden_tools", None) if model is not None else None
    return frozenset(hidden) if hidden else frozenset()
