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
- After a result the turn is text, held to it by the grammar (only a failed call may be
  followed by another); a call repeated with the same arguments is not offered a third time.
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
    StreamEnd,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallDelta,
    ToolCallReady,
    ToolCallStarted,
)
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.providers.tool_schemas import openai_tools

# Plain text must not start with "{" (that is how a call starts), white space or a backtick: a
# small model otherwise slips a call in after a newline or inside a ```json fence, unchecked.
_TEXT_RULE = r"TEXT: /[^{\s`][\s\S]*/"


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
                       relative_paths: bool = False) -> dict[str, Any]:
    """What goes into the request body instead of ``tools``/``tool_choice``.

    ``grammar=False`` sends the same prompt without the constraint (the calls are then read
    from free text as they come): only for measuring what the grammar does.
    """
    rules = tool_call_grammar(tools, tool_choice, relative_paths=relative_paths)
    if rules is None:
        # Text only, and held to it: unconstrained, the small model still writes a call (as
        # text, often with a stray "}"), which then fails to parse.
        return {"grammar": TEXT_ONLY_GRAMMAR} if grammar and tools else {}
    body: dict[str, Any] = {"chat_template_kwargs": {"echo_tools": openai_tools(tools)}}
    if grammar:
        body["grammar"] = rules
    return body


_EXIT_LINE = re.compile(r"\Aexit code (-?\d+)\n")


def _output_first(text: str) -> str:
    """A command's output before its exit code: from "exit code 0" first the 0.5B model
    answered "it ran successfully" and left out what the command printed."""
    match = _EXIT_LINE.match(text)
    if match is None:
        return text
    return f"Output:\n{text[match.end():]}\n(exit code {match.group(1)})"


def _result_text(content: str) -> str:
    """One tool result as the small model reads it: the output, or "Error: …"."""
    try:
        envelope = json.loads(content)
    except ValueError:
        return content
    if not isinstance(envelope, dict) or "ok" not in envelope:
        return content
    if envelope["ok"]:
        return _output_first(str(envelope.get("content") or "")) or "Done."
    if envelope.get("error_kind") == "rejected":  # the person said no: not something to retry
        return f"Not done: {envelope.get('error', '')}."
    return f"Error: {envelope.get('error', '')}"


def plain_tool_results(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """``messages`` with each tool result (the JSON envelope) as plain text."""
    return [replace(m, content=_result_text(m.content)) if m.role == "tool" else m for m in messages]


def _key(call: ToolCall) -> tuple[str, str]:
    try:
        arguments = json.dumps(json.loads(call.arguments), sort_keys=True)
    except ValueError:
        arguments = call.arguments
    return call.name, arguments


def answer_now(messages: Sequence[ChatMessage]) -> bool:
    """The last message is a result the template asks the answer for: any but a failed call.

    A 0.5B model otherwise calls again: the same read until the turn limit (after a read it
    copied its own call instead of answering), an edit nobody asked for, or the same write.
    """
    last = messages[-1] if messages else None
    return last is not None and last.role == "tool" and not _result_text(last.content).startswith("Error: ")


def repeats_a_call(messages: Sequence[ChatMessage]) -> bool:
    """The last calls the model made are all ones it had already made in this exchange."""
    assistant = [m for m in messages if m.role == "assistant" and m.tool_calls]
    if len(assistant) < 2 or messages[-1].role != "tool":
        return False
    earlier = {_key(c) for m in assistant[:-1] for c in m.tool_calls}
    return all(_key(c) in earlier for c in assistant[-1].tool_calls)


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
            self._announced = json.loads(f'"{match.group(1)}"')
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
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            arguments = value.get("arguments", {})
            yield ToolCallReady(ToolCall(id=self.call_id, name=value["name"], arguments=json.dumps(arguments)))
            return
        # Cut off (token cap, runaway guard): passed on as it came; the dispatcher reports it.
        raw = text.partition('"arguments"')[2].lstrip(" \t\n:")
        yield ToolCallReady(ToolCall(id=self.call_id, name=self._announced, arguments=raw or "{"))


async def constrained_stream(
    client: OpenAICompatModel,
    messages: Sequence[ChatMessage],
    tools: Sequence[ToolDefinition],
    tool_choice: str,
    *,
    grammar: bool = True,
    relative_paths: bool = False,
) -> AsyncIterator[StreamEvent]:
    """One turn with the tool-call grammar; events as if the server had parsed the call."""
    if tool_choice == "auto" and (repeats_a_call(messages) or answer_now(messages)):
        tool_choice = "none"
    extra = structured_request(tools, tool_choice, grammar=grammar, relative_paths=relative_paths)
    reader = CallTextReader(f"call_{uuid.uuid4().hex[:24]}")
    async for event in client.stream(plain_tool_results(messages), (), tool_choice="auto", extra=extra):
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
