"""What the small built-in model may do on its next turn: answer, call any tool, or must call.

A 0.5B model picks its next step badly in ways that repeat (measured in ``bench/agent_tasks.py``):
it answers about a file it never opened, writes a file's content as prose, reads the file it was
asked to change and then only reports it, re-reads after a read, proposes an edit when asked a
question. The grammar (``structured``) can hold a turn to text or to a call of given tools, so
each fix is a choice of what the next turn is offered. That choice is made from three things
only — never from the person's own words, which may be in any language:

- **What the model stated** the request asks for, on the exchange's first step (``intent``): a
  word of a closed set — a question (look, list, search, answer), or run, edit, append, create,
  move, delete, or unclear.
- **The tools' declared roles** (``echo_desk.tools.ToolRole``): a question is offered only tools
  that look (read, list, search), the role it named first; an edit first what looks at one
  thing, then what changes content; an append, a new file, a move and a deletion the tools of
  that role. A plugin's or an MCP server's tool takes part through its role; one that declares
  none (``unknown``) is offered only when the intent is unclear.
- **The structure of the exchange**: what was called, whether it succeeded, failed or was
  declined by the person, whether a call repeats one already made.

The rules, turn by turn:

- First turn: the intent's first tools (for a change other than an edit, the tool that makes it
  or a look). When the request names the target, a file tool's ``path`` is one of the target's
  words the request holds (the grammar holds it; the prompt is unchanged); a search's query
  (``query_argument``) is held to the target — or, when the target has words in the form of a
  file's name, its ``path`` to those, the query left free. A change must be a call; a question
  must be one only when a look's or a search's ``path`` is so held — the call is then about
  the very file the request names. Any other question (its target a text to search for, a
  folder, something the request does not name, or nothing: the model said it needs no tool)
  is offered its looks, and the model may answer in text. A request that names a tool (``…
  using write_file``) is offered that tool when the intent allows its role — for a change, any
  tool that changes something. Unclear: every tool, the model chooses.
- After a failed call: the intent's tools again, the model may correct the call or answer (a
  change to a file that could not be read: what changes or creates one, no second look).
- After a call the person declined, or a call repeated with the same arguments: the answer.
- After a successful look in an exchange the model said asks for a change no call has made yet:
  the tools that make that change, once, and the model is told to make the change with a call,
  or to answer in text if it was asked a question — its second word on the intent, now with what
  it looked at in front of it. After anything else that succeeded: the answer.

A question never gets a change tool in its exchange. This narrows what is *offered*: every call
still goes through the dispatcher, its rules and the person's approval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.common.json_text import read_json
from echo_desk.providers.local.intent import UNCLEAR, Intent, StatedIntent
from echo_desk.tools.roles import LOOKING_ROLES, ToolRole

_LOOK = frozenset({ToolRole.LOOK})
_NOTHING: frozenset[ToolRole] = frozenset()
#: What each intent is offered first; then, after a successful look, what makes its change
#: (empty: nothing follows, the answer does). A question looks with the tool of the role the
#: model named (asked which file defines a function and offered every look, the 0.5B model read
#: a file it made up). An edit looks at the file first (given a writer at once, the 0.5B model
#: rewrote whole files and dropped lines) and then edits it (not rewrites it). Text added at the
#: end, a new file, a move, a deletion and a command may be made at once, or the model may look
#: first: the model's own choice of call is its second word on the intent (it called questions
#: about code "run" or "create" now and then, and then chose to read the file).
FIRST: dict[Intent, frozenset[ToolRole]] = {
    Intent.LOOK: _LOOK,
    Intent.LIST: frozenset({ToolRole.LIST}),
    Intent.SEARCH: frozenset({ToolRole.SEARCH}),
    Intent.ANSWER: LOOKING_ROLES,
    Intent.RUN: frozenset({ToolRole.RUN}) | _LOOK,
    Intent.EDIT: _LOOK,
    Intent.APPEND: frozenset({ToolRole.APPEND}) | _LOOK,
    Intent.CREATE: frozenset({ToolRole.CREATE}) | _LOOK,
    Intent.MOVE: frozenset({ToolRole.MOVE}) | _LOOK,
    Intent.DELETE: frozenset({ToolRole.DELETE}) | _LOOK,
}
THEN: dict[Intent, frozenset[ToolRole]] = {
    Intent.LOOK: _NOTHING,
    Intent.LIST: _NOTHING,
    Intent.SEARCH: _NOTHING,
    Intent.ANSWER: _NOTHING,
    Intent.RUN: _NOTHING,
    Intent.EDIT: frozenset({ToolRole.CHANGE}),
    Intent.APPEND: frozenset({ToolRole.APPEND}),
    Intent.CREATE: frozenset({ToolRole.CREATE}),
    Intent.MOVE: frozenset({ToolRole.MOVE}),
    Intent.DELETE: frozenset({ToolRole.DELETE}),
}
#: When an intent's own role has no tool (a profile hides it, the person switched it off): what
#: stands in for it. Text added at the end is an edit of what was read; a command not to be run
#: is answered from what can be read.
INSTEAD: dict[Intent, Intent] = {Intent.APPEND: Intent.EDIT, Intent.RUN: Intent.LOOK,
                                 Intent.LIST: Intent.ANSWER, Intent.SEARCH: Intent.ANSWER, Intent.LOOK: Intent.ANSWER}
#: The role whose tool an intent exists for (the rest of its first offer is a look).
OWN: dict[Intent, ToolRole] = {Intent.RUN: ToolRole.RUN, Intent.APPEND: ToolRole.APPEND,
                               Intent.CREATE: ToolRole.CREATE, Intent.MOVE: ToolRole.MOVE,
                               Intent.DELETE: ToolRole.DELETE}
#: After a failed look, what a change to a file may use instead: a file that could not be read may
#: not exist yet, and making it is then the change (offered the look again, the 0.5B model read
#: the missing file once more).
AFTER_FAILED_LOOK: dict[Intent, frozenset[ToolRole]] = {
    Intent.EDIT: frozenset({ToolRole.CHANGE, ToolRole.CREATE}),
    Intent.APPEND: frozenset({ToolRole.APPEND, ToolRole.CHANGE, ToolRole.CREATE}),
}


@dataclass(frozen=True)
class Turn:
    """What the next turn is offered: ``tool_choice`` ("auto", "required", "none" or a tool
    name, as a provider takes it) among ``tools``. ``decide``: the model is told to make the
    change it was asked for with a call, or to answer in text if it was asked a question (after a
    look in an exchange it said asks for a change)."""

    tool_choice: str
    tools: tuple[ToolDefinition, ...]
    decide: bool = False


def result_text(content: str) -> str:
    """One tool result as the small model reads it: the output, or "Error: …" / "Not done: …"."""
    try:
        envelope = read_json(content)
    except ValueError:
        return content
    if not isinstance(envelope, dict) or "ok" not in envelope:
        return content
    if envelope["ok"]:
        return _output_first(str(envelope.get("content") or "")) or "Done."
    if envelope.get("error_kind") == "rejected":  # the person said no: not something to retry
        return f"Not done: {envelope.get('error', '')}."
    return f"Error: {envelope.get('error', '')}"


_EXIT_LINE = re.compile(r"\Aexit code (-?\d+)\n")


def _output_first(text: str) -> str:
    """A command's output before its exit code: from "exit code 0" first the 0.5B model
    answered "it ran successfully" and left out what the command printed."""
    match = _EXIT_LINE.match(text)
    if match is None:
        return text
    return f"Output:\n{text[match.end():]}\n(exit code {match.group(1)})"


def _failed(message: ChatMessage) -> bool:
    return result_text(message.content).startswith("Error: ")


def _declined(message: ChatMessage) -> bool:
    return result_text(message.content).startswith("Not done: ")


def answer_now(messages: Sequence[ChatMessage]) -> bool:
    """The last message is a result the template asks the answer for: any but a failed call.

    A 0.5B model otherwise calls again: the same read until the turn limit (after a read it
    copied its own call instead of answering), an edit nobody asked for, or the same write.
    """
    last = messages[-1] if messages else None
    return last is not None and last.role == "tool" and not _failed(last)


def _key(call: ToolCall) -> tuple[str, str]:
    try:
        arguments = json.dumps(read_json(call.arguments), sort_keys=True)
    except ValueError:
        arguments = call.arguments
    return call.name, arguments


def repeats_a_call(messages: Sequence[ChatMessage]) -> bool:
    """The last calls the model made are all ones it had already made in this exchange."""
    assistant = [m for m in messages if m.role == "assistant" and m.tool_calls]
    if len(assistant) < 2 or messages[-1].role != "tool":
        return False
    earlier = {_key(c) for m in assistant[:-1] for c in m.tool_calls}
    return all(_key(c) in earlier for c in assistant[-1].tool_calls)


def exchange(messages: Sequence[ChatMessage]) -> tuple[str, list[ChatMessage]]:
    """The person's latest request and the messages after it."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index].content, list(messages[index + 1:])
    return "", list(messages)


def _succeeded_roles(exchange_messages: Sequence[ChatMessage], roles: dict[str, ToolRole]) -> list[ToolRole]:
    """The roles of the calls that succeeded in the exchange, in order."""
    names = {c.id: c.name for m in exchange_messages if m.role == "assistant" for c in m.tool_calls}
    done = [m.name or names.get(m.tool_call_id or "", "") for m in exchange_messages
            if m.role == "tool" and not _failed(m) and not _declined(m)]
    return [roles.get(name, ToolRole.UNKNOWN) for name in done]


def _last_role(exchange_messages: Sequence[ChatMessage], offered: Sequence[ToolDefinition]) -> ToolRole:
    """The role of the tool whose result came last."""
    roles = {t.name: t.role for t in offered}
    names = {c.id: c.name for m in exchange_messages if m.role == "assistant" for c in m.tool_calls}
    last = exchange_messages[-1]
    return roles.get(last.name or names.get(last.tool_call_id or "", ""), ToolRole.UNKNOWN)


def _having(tools: Iterable[ToolDefinition], roles: frozenset[ToolRole]) -> tuple[ToolDefinition, ...]:
    return tuple(t for t in tools if t.role in roles)


def _among(offered: Sequence[ToolDefinition], chosen: Iterable[ToolDefinition]) -> tuple[ToolDefinition, ...]:
    """The ``chosen`` tools once each, in the order they are ``offered``."""
    names = {t.name for t in chosen}
    return tuple(t for t in offered if t.name in names)


def _effective(intent: Intent, offered: Sequence[ToolDefinition]) -> Intent:
    """The intent, or what stands in for it when no offered tool has the role it is for."""
    while intent in INSTEAD and not _having(offered, frozenset({OWN[intent]}) if intent in OWN else FIRST[intent]):
        intent = INSTEAD[intent]
    return intent


def _allowed(intent: Intent) -> frozenset[ToolRole]:
    """Every role the intent's exchange may use: its own, and what looks."""
    return FIRST[intent] | THEN[intent] | LOOKING_ROLES


#: The intents that ask for a change of the person's things.
CHANGES = frozenset({Intent.EDIT, Intent.APPEND, Intent.CREATE, Intent.MOVE, Intent.DELETE})


def _named_tools(request: str, offered: Sequence[ToolDefinition], intent: Intent) -> tuple[ToolDefinition, ...]:
    """The offered tools the request names ("… using write_file"), when the intent allows them: a
    change allows any tool that changes something. Which kind of change the 0.5B model states is
    a guess between neighbours (asked to overwrite a file with write_file, it said "edit", then
    edited in reverse); the tool the person named is the kind they chose. A question never gets
    a change tool, named or not."""
    def allowed(tool: ToolDefinition) -> bool:
        return (intent is Intent.UNCLEAR or tool.role in _allowed(intent)
                or (intent in CHANGES and tool.role.changes))

    return tuple(t for t in offered if re.search(rf"(?<![\w]){re.escape(t.name)}(?![\w])", request) and allowed(t))


#: The roles whose ``path`` argument is the file the request is about.
_PATH_ROLES = frozenset({ToolRole.LOOK, ToolRole.CHANGE, ToolRole.APPEND, ToolRole.CREATE, ToolRole.DELETE})
#: What may surround a name in a sentence (quotes, brackets, a sentence's end).
_AROUND = ".,;:!?()[]{}<>\"'`“”‘’「」『』（）。，、？！：；"


def _target_names(target: str, request: str) -> list[str]:
    """The words of the model's stated target that the request itself holds, once each."""
    words = (w.strip(_AROUND) for w in target.split())
    return list(dict.fromkeys(w for w in words if w and w in request))


#: A word with the form of a file's name or path (a folder separator, or an extension).
_FILE_FORM = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,7}$")


def _hold(tool: ToolDefinition, argument: str | None, values: list[str]) -> ToolDefinition:
    """``tool`` with its string ``argument`` held to ``values`` (for the grammar only: the prompt
    keeps the tool as it is); as it is when it has no such argument or there are no values."""
    properties = tool.parameters.get("properties", {})
    schema = properties.get(argument) if argument else None
    if not values or argument is None or not isinstance(schema, dict) or schema.get("type") != "string":
        return tool
    return replace(tool, parameters={**tool.parameters,
                                     "properties": {**properties, argument: {**schema, "enum": values}}})


def _query_among(tool: ToolDefinition, names: list[str]) -> ToolDefinition:
    """A search with its query held to ``names`` (as literal text when the query is a regular
    expression). Left free, the 0.5B model searched for ``.*``."""
    if tool.role is not ToolRole.SEARCH:
        return tool
    return _hold(tool, tool.query_argument, [re.escape(n) if tool.query_is_regex else n for n in names])


def _path_among(tool: ToolDefinition, names: list[str]) -> ToolDefinition:
    """``tool`` with its ``path`` held to ``names``. Asked what README.md is about, the 0.5B model
    read "path/to/your/file.txt"."""
    return _hold(tool, "path", names) if tool.role in _PATH_ROLES else tool


def _path_held(tool: ToolDefinition) -> bool:
    path = tool.parameters.get("properties", {}).get("path")
    return isinstance(path, dict) and "enum" in path


def _search_held(tool: ToolDefinition, target: str, names: list[str]) -> ToolDefinition:
    """A search held to what the model said. A target with words in the form of a file's name
    says where to search (a search may be given one file), and the query stays free: stated as
    a search, "what does owners.txt say" was otherwise held to finding the text "owners.txt".
    Any other target is what to find, the whole of it first ("ERROR 503" is one thing to find)."""
    places = [n for n in names if _FILE_FORM.search(n)]
    if places:
        return _hold(tool, "path", places) if tool.role is ToolRole.SEARCH else tool
    return _query_among(tool, list(dict.fromkeys([target, *names])))


def _first_turn(request: str, stated: StatedIntent, offered: tuple[ToolDefinition, ...]) -> Turn:
    intent = _effective(stated.intent, offered)
    named = _named_tools(request, offered, intent)
    if named:  # the person chose the tool
        return Turn("required", named)
    if intent is Intent.UNCLEAR:
        return Turn("auto", offered)
    own = intent in OWN and _having(offered, frozenset({OWN[intent]}))
    tools = _having(offered, FIRST[intent]) if own or intent not in OWN else ()
    if not tools:
        # Nothing of the role is available (switched off): the model answers, and says so.
        return Turn("none", offered)
    held = False
    if intent is not Intent.ANSWER and stated.target_in(request):
        names = _target_names(stated.target, request)
        before, tools = tools, tuple(_path_among(t, names) for t in tools)
        if intent is Intent.SEARCH:
            # Held to where and what the model said it searches, not made a call for a text
            # to find alone: the model may still answer.
            tools = tuple(_search_held(t, stated.target.strip(), names) for t in tools)
        held = any(_path_held(after) and not _path_held(b) for b, after in zip(before, tools, strict=True))
    # A question is held to a call only when the call is held to the file the request names.
    # Its target may be any of the request's words ("France" of "the capital of France", stated
    # as a search): held to a search then, the model searched the files for general knowledge
    # and the exchange ended on the search's error instead of the answer it knew.
    return Turn("required" if held or not intent.is_question else "auto", tools)


def next_turn(messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], tool_choice: str = "auto", *,
              steer: bool = True, stated: StatedIntent | None = None) -> Turn:
    """The next turn's offer (see the module's text). A caller's own choice other than "auto"
    is kept as it is. Without ``steer`` (a larger model) only this holds: after a result other
    than a failure, or a repeated call, the turn is text. ``stated``: what the model said the
    exchange's request asks for (``None``: unclear)."""
    offered = tuple(tools)
    if tool_choice != "auto" or not offered:
        return Turn(tool_choice, offered)
    if not steer:
        return Turn("none" if repeats_a_call(messages) or answer_now(messages) else "auto", offered)
    stated = stated or UNCLEAR
    request, after = exchange(messages)
    if not any(m.role == "tool" for m in after):
        return _first_turn(request, stated, offered)
    if repeats_a_call(messages) or _declined(after[-1]):
        return Turn("none", offered)
    intent = _effective(stated.intent, offered)
    if intent is Intent.UNCLEAR:
        return Turn("none" if answer_now(messages) else "auto", offered)
    # The tool the person named stays offered wherever the exchange's change is (refused for a
    # file it had not read, write_file was then out of reach and the model edited instead).
    named = _named_tools(request, offered, intent)
    if not answer_now(messages):  # a failed call: the intent's tools again, to correct it
        roles = _allowed(intent)
        if _last_role(after, offered).looks and intent in AFTER_FAILED_LOOK:
            roles = AFTER_FAILED_LOOK[intent]
        return Turn("auto", _among(offered, _having(offered, roles) + named) or offered)
    done = _succeeded_roles(after, {t.name: t.role for t in offered})
    then = _among(offered, _having(offered, THEN[intent]) + tuple(t for t in named if t.role.changes))
    if then and all(role.looks for role in done):
        # The model decides once more, now with what it looked at: a change it makes, a question
        # it answers. (Held to a call here, a question it had called an edit became an edit.)
        return Turn("auto", then, decide=True)
    return Turn("none", offered)

