"""Structured tool calls for the built-in model: a grammar makes every call valid JSON for its tool.

llama.cpp refuses a request-level grammar together with ``tools`` ("Cannot use custom grammar
constraints with tools"), and this build (llguidance) applies a grammar from the first token
(``grammar_lazy`` has no effect). So the built-in provider sends the tool list to the chat
template as ``chat_template_kwargs.echo_tools`` instead of ``tools`` and one grammar that allows
*either* plain text (not starting with ``{``) *or* one call object
``{"name": <a tool>, "arguments": <that tool's schema>}``. The call then arrives as message
text, which ``CallTextReader`` turns back into the usual stream events.

What else the small model gets here, each measured in ``bench/agent_tasks.py``:

- Path arguments must be relative (``relative_paths``): the 0.5B model copied the workspace's
  absolute path from the system prompt as the file to read or write in most failed jobs, and no
  wording of the prompt stopped it. With the grammar it cannot start a path with "/".
- Tool results arrive as plain text (``plain_tool_results``), not the JSON envelope: a file's
  lines stay lines (it counted ``\\n`` escapes badly) and an error reads "Error: …", which the
  chat template answers with "correct the call" instead of "answer now".
- What each turn is offered (text, any call, or a call it must make) follows what the model
  stated the request asks for (``intent``, its first step of an exchange), the tools' roles and
  the exchange so far: ``steering``.
- The tool list in the prompt is every tool the model may see, whatever the turn is offered
  (that is held by the grammar alone): the exchange's first step and its first turn then share
  one prompt, and the server's prompt cache serves the turn from the step. (The template still
  leaves the list out after a successful result: listed there, the 0.5B model answered with the
  list's own words.) The step's guide opens the system prompt of every request, the same in
  every conversation: the cache keeps it from one to the next.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import replace
from typing import Any

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import (
    ChatMessage,
    IntentProgress,
    PromptProgress,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.common.json_text import read_json
from echo_desk.providers.local.intent import (
    GUIDE,
    MAX_TOKENS,
    UNCLEAR,
    IntentMemory,
    StatedIntent,
    exchange_key,
    intent_grammar,
    parse_intent,
)
from echo_desk.providers.local.steering import exchange, next_turn, result_text
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.providers.tool_schemas import openai_tools

# Plain text must not start with "{" (that is how a call starts), white space, a backtick or "[":
# a small model otherwise slips a call in after a newline, inside a ```json fence, or as
# '["name": "edit_file", …' for an answer, unchecked.
_TEXT_RULE = r"TEXT: /[^{\[\s`][\s\S]*/"


#: Arguments that name a path in the workspace (the built-in tools' names for them).
PATH_ARGUMENTS = frozenset({"path", "source", "destination", "cwd"})
#: A relative path: not "/…", "\\…" or "~…" (a drive letter "C:" is refused by the tools).
RELATIVE_PATH = r"^[^/\\~].*$"


def _relative_paths(parameters: dict[str, Any]) -> dict[str, Any]:
    """``parameters`` with every path argument limited to a relative path."""
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return parameters
    changed = {
        name: {**spec, "pattern": RELATIVE_PATH}
        if name in PATH_ARGUMENTS and isinstance(spec, dict) and spec.get("type") == "string" else spec
        for name, spec in properties.items()
    }
    return {**parameters, "properties": changed}


#: A turn that may only be text (``tool_choice="none"``).
TEXT_ONLY_GRAMMAR = "\n".join(["%llguidance {}", "start: TEXT", _TEXT_RULE, ""])


def _call_schema(tool: ToolDefinition, relative_paths: bool = False) -> dict[str, Any]:
    arguments = tool.parameters or {"type": "object"}
    if relative_paths:
        arguments = _relative_paths(arguments)
    return {
        "type": "object",
        "properties": {"name": {"const": tool.name}, "arguments": arguments},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def tool_call_grammar(tools: Sequence[ToolDefinition], tool_choice: str = "auto", *,
                      relative_paths: bool = False) -> str | None:
    """The llguidance grammar for one turn, or ``None`` when the model may only answer in text."""
    if not tools or tool_choice == "none":
        return None
    offered = [t for t in tools if tool_choice in ("auto", "required") or t.name == tool_choice] or list(tools)
    schema = {"oneOf": [_call_schema(t, relative_paths) for t in offered]}
    start = "start: call" if tool_choice != "auto" else "start: TEXT | call"
    return "\n".join(["%llguidance {}", start, "call: %json " + json.dumps(schema), _TEXT_RULE, ""])


def structured_request(tools: Sequence[ToolDefinition], tool_choice: str, *, grammar: bool = True,
                       relative_paths: bool = False, listed: Sequence[ToolDefinition] | None = None,
                       guide: str = "", decide: bool = False) -> dict[str, Any]:
    """What goes into the request body instead of ``tools``/``tool_choice``: the tools the turn
    is offered (``tools``, held by the grammar) and the ones the prompt lists (``listed``, by
    default the same; the same on every turn keeps the prompt cache), and with them ``guide``
    (the intent step's, for a steered model). ``decide``: after a result the tools stay listed
    and the model is told to act or answer (``steering.Turn.decide``).

    ``grammar=False`` sends the same prompt without the constraint (the calls are then read
    from free text as they come): only for measuring what the grammar does.
    """
    listed = tools if listed is None else listed
    body: dict[str, Any] = {"chat_template_kwargs": _template_kwargs(listed, guide)} if listed or guide else {}
    if decide and listed:
        body["chat_template_kwargs"]["echo_decide"] = True
    rules = tool_call_grammar(tools, tool_choice, relative_paths=relative_paths)
    if rules is None:
        # Text only, and held to it: unconstrained, the small model still writes a call (as
        # text, often with a stray "}"), which then fails to parse.
        if grammar and (tools or listed or guide):
            body["grammar"] = TEXT_ONLY_GRAMMAR
        return body
    if grammar:
        body["grammar"] = rules
    return body


def _template_kwargs(listed: Sequence[ToolDefinition], guide: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"echo_tools": openai_tools(listed)} if listed else {}
    if guide:
        kwargs["echo_guide"] = guide
    return kwargs


def plain_tool_results(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """``messages`` with each tool result (the JSON envelope) as plain text."""
    return [replace(m, content=result_text(m.content)) if m.role == "tool" else m for m in messages]


_NAME = re.compile(r'^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"')


class CallTextReader:
    """Turns the message text of one constrained answer into stream events.

    Text that starts with ``{`` is a call: it is held back (never shown as prose), announced as
    ``ToolCallStarted`` once its name is complete, and handed over as ``ToolCallReady`` at the
    end. ``pending_call_chars`` lets a watcher see a call's arguments grow.
    """

    def __init__(self, call_id: str) -> None:
        self.call_id = call_id
        self._buffer: list[str] = []
        self._is_call: bool | None = None
        self._announced = ""

    @property
    def pending_call_chars(self) -> int:
        return sum(len(part) for part in self._buffer) if self._is_call else 0

    @property
    def pending_call_name(self) -> str:
        return self._announced

    def feed(self, text: str) -> Iterator[StreamEvent]:
        if self._is_call is None:
            stripped = "".join(self._buffer) + text
            if not stripped.strip():
                self._buffer.append(text)
                return
            self._is_call = stripped.lstrip().startswith("{")
            if not self._is_call:
                self._buffer.clear()
                yield TextDelta(stripped)
                return
            self._buffer = [stripped]
        elif self._is_call:
            self._buffer.append(text)
        else:
            yield TextDelta(text)
            return
        if self._announced:
            yield ToolCallDelta(id=self.call_id, text=text)
            return
        match = _NAME.match("".join(self._buffer))
        if match:
            self._announced = read_json(f'"{match.group(1)}"')
            yield ToolCallStarted(id=self.call_id, name=self._announced)

    def finish(self) -> Iterator[StreamEvent]:
        """The held-back call, once the answer is complete (or the leftover text)."""
        text = "".join(self._buffer)
        self._buffer = []
        if not self._is_call:
            if text.strip():
                yield TextDelta(text)
            return
        try:
            value = read_json(text)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            arguments = value.get("arguments", {})
            yield ToolCallReady(ToolCall(id=self.call_id, name=value["name"], arguments=json.dumps(arguments)))
            return
        # Cut off (token cap, runaway guard): passed on as it came; the dispatcher reports it.
        raw = text.partition('"arguments"')[2].lstrip(" \t\n:")
        yield ToolCallReady(ToolCall(id=self.call_id, name=self._announced, arguments=raw or "{"))


async def state_intent(
    client: OpenAICompatModel, messages: Sequence[ChatMessage], listed: Sequence[ToolDefinition],
    stated: list[StatedIntent],
) -> AsyncIterator[StreamEvent]:
    """The exchange's first step (``intent``): the model states what the request asks for, from
    the very prompt of the turn that follows. Progress only is passed on (nothing of it is shown
    as the answer); what it stated is appended to ``stated``."""
    extra: dict[str, Any] = {"grammar": intent_grammar(), "max_tokens": MAX_TOKENS}
    if listed:  # the very prompt of the turn that follows
        extra["chat_template_kwargs"] = _template_kwargs(listed, GUIDE)
    parts: list[str] = []
    yield IntentProgress()
    async for event in client.stream(messages, (), tool_choice="auto", extra=extra):
        if isinstance(event, TextDelta):
            parts.append(event.text)
            yield IntentProgress(tokens=len(parts))
        elif isinstance(event, PromptProgress):
            yield event
    result = parse_intent("".join(parts))
    stated.append(result)
    yield IntentProgress(tokens=len(parts), intent=result.intent.value)


async def constrained_stream(
    client: OpenAICompatModel,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolDefinition],
    tool_choice: str,
    *,
    grammar: bool = True,
    relative_paths: bool = False,
    steer: bool = True,
    intents: IntentMemory | None = None,
) -> AsyncIterator[StreamEvent]:
    """One turn with the tool-call grammar; events as if the server had parsed the call.
    ``steer``: what the turn is offered follows the exchange (``steering.next_turn``); on an
    exchange's first turn the model first states its intent (kept in ``intents`` for the
    exchange's later turns)."""
    plain = plain_tool_results(messages)
    stated: StatedIntent | None = None
    if steer and tool_choice == "auto" and tools:
        intents = intents if intents is not None else IntentMemory()
        key = exchange_key(messages)
        stated = intents.get(key) if key is not None else None
        if stated is None and key is not None and not any(m.role == "tool" for m in exchange(messages)[1]):
            found: list[StatedIntent] = []
            async for event in state_intent(client, plain, tools, found):
                yield event
            stated = found[0] if found else UNCLEAR
            intents.remember(key, stated)
    turn = next_turn(messages, tools, tool_choice, steer=steer, stated=stated)
    # A turn held to text lists no tools: listed, the 0.5B model answered with the list's own words.
    listed = () if turn.tool_choice == "none" else tools
    extra = structured_request(turn.tools, turn.tool_choice, grammar=grammar, relative_paths=relative_paths,
                               listed=listed, guide=GUIDE if steer else "", decide=turn.decide)
    reader = CallTextReader(f"call_{uuid.uuid4().hex[:24]}")
    async for event in client.stream(plain, (), tool_choice="auto", extra=extra):
        if isinstance(event, TextDelta):
            for item in reader.feed(event.text):
                yield item
        elif isinstance(event, StreamEnd):
            made_call = False
            for item in reader.finish():
                made_call = made_call or isinstance(item, ToolCallReady)
                yield item
            # As a server that parsed the call itself would say (a cut-off call keeps "length").
            yield StreamEnd("tool_calls") if made_call and event.stop_reason == "stop" else event
        else:
            yield event
