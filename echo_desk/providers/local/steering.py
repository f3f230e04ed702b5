"""What the small built-in model may do on its next turn: answer, call any tool, or must call.

A 0.5B model picks its next step badly in a few ways that repeat, each measured in
``bench/agent_tasks.py`` (30 jobs): it answers about a file it never opened (it invented a
README's project), writes a file's whole content as prose instead of a call (a runaway),
reads the file it was asked to change and then only reports what it read, re-reads after a
read, and reaches for ``read_file`` with a made-up path when asked *which* file holds a text.
The grammar (``structured``) can hold a turn to text, or to a call of given tools, so each
fix is a choice of what the next turn is offered:

- A request that names a tool ("… using write_file"): the first turn is a call of that tool.
- A request that names a file (``notes.txt``): the first turn must be a call (not a listing),
  and a file tool's path is one of the names. A question about it is offered only what looks
  (and runs, when it says to run something). A request to change what is in it: the first call reads
  it before anything is changed, and the change is an edit, not a rewrite (a function or a
  variable renamed is such an edit, not a move of the file); text to add at its end is appended
  at once; a new file with the content the request gives is written at once; a file renamed or
  moved is moved.
- A request asking which file holds or defines something: the first turn is a search by text.
- After a look in an exchange that asks for a change, the next turn must be a call of the tool
  that makes that kind of change (edit, new file, move; all file-changing tools when the words
  do not say which) — once: after that it answers.
- After any other successful result, or a call repeated with the same arguments, the turn is
  text; after a failed call the model may call again.

This narrows what is *offered*: every call still goes through the dispatcher, its rules and the
person's approval as any other. "Asks for a change" is read from words in the request
(English and Chinese), so it can be wrong both ways; wrong, it offers a change the person is
still asked about, or a text answer instead of a second call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ToolCall

#: The built-in tools that only look (what a change is made after, not with).
LOOKING_TOOLS = frozenset({"read_file", "list_dir", "search_files"})
#: The built-in tools that change files: what a change request is offered after a look. Not
#: ``run_command``: after reading name.txt the 0.5B model ran ``echo`` in it instead of writing.
CHANGING_TOOLS = frozenset({"write_file", "edit_file", "append_to_file", "move_path", "delete_path", "copy_path",
                            "create_folder"})
#: The file tools whose ``path`` is the file itself: on a first turn led by a named file, it is
#: one of the names (asked what README.md is about, the model read "read_file.txt").
NAMED_PATH_TOOLS = frozenset({"read_file", "write_file", "edit_file", "append_to_file"})
SEARCH_TOOL = "search_files"
READ_TOOL = "read_file"
LIST_TOOL = "list_dir"
RUN_TOOL = "run_command"
#: What a request to change a file's content is offered after reading it: given ``write_file``
#: too, the 0.5B model rewrote the whole file and dropped or reordered lines ("add a line").
EDIT_TOOL = "edit_file"
NEW_FILE_TOOL = "write_file"
MOVE_TOOL = "move_path"
#: What a request to add at the end of a file is offered, at once: nothing has to be read first.
APPEND_TOOL = "append_to_file"

# A file name with an extension ("notes.txt", "src/main.py"); not a version ("1.4.2"), a
# sentence's full stop ("end. Then") nor part of an absolute path (that is not a relative name).
_FILE_NAME = re.compile(r"(?<![\w./~\\])[A-Za-z_][\w./-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b")
_NOT_FILES = frozenset({"e.g", "i.e"})
# Words of a request to change what is there: the file is read first. Not "set" or "make":
# they open questions ("what port is set").
# "Set" only as an order ("Set the port to 9090"), at the start of a sentence.
_MODIFY_WORDS = re.compile(
    r"\b(add|append|change|edit|fix|replace|delete|remove|increase|decrease|bump|update|insert)\b"
    r"|(?:^|[.!;]\s+|\bplease\s+)set\b"
    r"|(改|加一|添加|追加|删除|删掉|去掉|替换|更新|修复|增加)",
    re.IGNORECASE,
)
# Not "最后" alone: it also opens a last step ("最后，告诉我…").
_APPEND_WORDS = re.compile(
    r"\b(append|at the end|to the end|at the bottom|to the bottom|add a line|add the line)\b"
    r"|(末尾|结尾|追加|最后(?:面)?(?:加|添加|增加)|(?:加|添加|增加)一行)",
    re.IGNORECASE,
)
# Words of a request for a change that needs no reading first.
_NEW_FILE_WORDS = re.compile(
    r"\b(create|write|overwrite|save|new file|make (?:a |an )?(?:new )?file)\b|(创建|新建|写入|写一|覆盖|保存|新文件)",
    re.IGNORECASE,
)
# A rename inside a file's content (a function, a variable): an edit, not a move of the file.
_RENAME_IN_CODE = re.compile(
    r"\brename\s+(?:the\s+|a\s+)?(?:function|method|class|variable|field|parameter|argument|constant|attribute|"
    r"property|key|identifier|setting)s?\b"
    r"|(?:函数|方法|类|变量|参数|常量|字段|属性)[^，。,.;；]{0,40}?(?:重命名|改名)",
    re.IGNORECASE,
)
_MOVE_WORDS = re.compile(r"\b(rename|move)\b|(重命名|移动|移到)", re.IGNORECASE)
_CREATE_WORDS = re.compile(f"{_NEW_FILE_WORDS.pattern}|{_MOVE_WORDS.pattern}", re.IGNORECASE)
# Words saying a new file is made from something to look at first.
_LOOK_WORDS = re.compile(
    r"\b(read|look|summar\w*|based on|from|according|copy|list|search|find)\b|(读|看|总结|根据|基于|复制|列出|查找|搜索)",
    re.IGNORECASE,
)
_RUN_WORDS = re.compile(r"\b(run|execute|start|launch)\b|(运行|执行|启动)", re.IGNORECASE)
_WHICH_FILE_HOLDS = re.compile(
    r"\bwhich\b[^.?!]*\bfiles?\b[^.?!]*\b(contains?|defines?|mentions?|has|have|uses?|holds?|imports?|calls?|"
    r"references?|includes?|declares?|exports?|prints?|says?)\b"
    r"|(哪个|哪些)文件[^。？?]*(包含|定义|提到|含有|用到|导入|引用|调用|声明|有)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Turn:
    """What the next turn is offered: ``tool_choice`` ("auto", "required", "none" or a tool
    name, as a provider takes it) among ``tools``."""

    tool_choice: str
    tools: tuple[ToolDefinition, ...]


def result_text(content: str) -> str:
    """One tool result as the small model reads it: the output, or "Error: …" / "Not done: …"."""
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


def answer_now(messages: Sequence[ChatMessage]) -> bool:
    """The last message is a result the template asks the answer for: any but a failed call.

    A 0.5B model otherwise calls again: the same read until the turn limit (after a read it
    copied its own call instead of answering), an edit nobody asked for, or the same write.
    """
    last = messages[-1] if messages else None
    return last is not None and last.role == "tool" and not _failed(last)


def _key(call: ToolCall) -> tuple[str, str]:
    try:
        arguments = json.dumps(json.loads(call.arguments), sort_keys=True)
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


def _exchange(messages: Sequence[ChatMessage]) -> tuple[str, list[ChatMessage]]:
    """The person's latest request and the messages after it."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            return messages[index].content, list(messages[index + 1:])
    return "", list(messages)


def _answered(exchange: Sequence[ChatMessage]) -> list[str]:
    """Names of the tools whose calls got a result in the exchange, in order: done, or
    declined by the person (not a failure to correct: what was declined is not offered again)."""
    names = {c.id: c.name for m in exchange if m.role == "assistant" for c in m.tool_calls}
    return [m.name or names.get(m.tool_call_id or "", "") for m in exchange if m.role == "tool" and not _failed(m)]


# What is not a word of the request's own: file names and code ("add.py", "add(a, b)").
_NOT_WORDS = re.compile(r"(?<![\w./~\\])[A-Za-z_][\w./-]*\.[A-Za-z][A-Za-z0-9]{0,7}\b|\w+\(")


def _words(request: str) -> str:
    return _NOT_WORDS.sub(" ", request)


def asks_to_modify(request: str) -> bool:
    """A change to what is there (read first), not a new file ("create add.py with add(a, b)"),
    nor a move: a function or a variable renamed is an edit of the file."""
    words = _words(request)
    if _RENAME_IN_CODE.search(words) is not None:
        return True
    return _MODIFY_WORDS.search(words) is not None and _CREATE_WORDS.search(words) is None


def asks_to_append(request: str) -> bool:
    return _APPEND_WORDS.search(_words(request)) is not None


def asks_for_change(request: str) -> bool:
    words = _words(request)
    return _MODIFY_WORDS.search(words) is not None or _CREATE_WORDS.search(words) is not None


def named_files(request: str) -> list[str]:
    """The file names the request mentions, in order, once each."""
    names = [m.group(0).rstrip(".") for m in _FILE_NAME.finditer(request)]
    return list(dict.fromkeys(n for n in names if n.lower() not in _NOT_FILES))


def asks_which_file(request: str) -> bool:
    return _WHICH_FILE_HOLDS.search(request) is not None


def _with_parameters(tool: ToolDefinition, properties: dict[str, Any], required: list[str]) -> ToolDefinition:
    parameters = {**tool.parameters, "properties": properties, "required": required}
    return replace(tool, parameters=parameters)


def _search_by_text(tool: ToolDefinition) -> ToolDefinition:
    """``search_files`` offered with its ``regex`` only, and said so: asked which log holds a
    text, the model copied the description's ``'*.py'`` into ``glob`` and found nothing."""
    regex = tool.parameters.get("properties", {}).get("regex")
    if not isinstance(regex, dict):
        return tool
    text = {**regex, "description": "The text to look for: a name or words from the question (a regular expression)."}
    return replace(_with_parameters(tool, {"regex": text}, ["regex"]),
                   description="Find the files whose lines contain a text. Answers 'path:line: text' for each match.")


def _path_among(tool: ToolDefinition, names: list[str]) -> ToolDefinition:
    properties = tool.parameters.get("properties", {})
    path = properties.get("path")
    if tool.name not in NAMED_PATH_TOOLS or not isinstance(path, dict):
        return tool
    return _with_parameters(tool, {**properties, "path": {**path, "enum": names}},
                            list(tool.parameters.get("required", [])))


def _changer_for(request: str) -> str:
    """The one file-changing tool a change request is offered after a look ("" when unclear):
    offered all of them, the model edited a file it was asked to create, and rewrote one it was
    asked to edit."""
    words = _words(request)
    if asks_to_modify(request):
        return EDIT_TOOL
    if _NEW_FILE_WORDS.search(words) and not _MOVE_WORDS.search(words):
        return NEW_FILE_TOOL
    if _MOVE_WORDS.search(words) and not _NEW_FILE_WORDS.search(words):
        return MOVE_TOOL
    return ""


def _first_turn(request: str, offered: tuple[ToolDefinition, ...]) -> Turn:
    names = named_files(request)
    asked_for = tuple(_path_among(t, names) if names else t for t in offered
                      if re.search(rf"(?<![\w]){re.escape(t.name)}(?![\w])", request))
    if asked_for:  # "… using write_file": the person chose the tool
        return Turn("required", asked_for)
    search = tuple(_search_by_text(t) for t in offered if t.name == SEARCH_TOOL)
    if search and asks_which_file(request):
        return Turn("required", search)
    if not names:
        return Turn("auto", offered)
    # Not list_dir: asked about notes.txt (in Chinese), the model listed "notes.txt", twice.
    tools = tuple(_path_among(t, names) for t in offered if t.name != LIST_TOOL)
    append = tuple(t for t in tools if t.name == APPEND_TOOL)
    if append and asks_to_append(request):
        return Turn("required", append)
    changer = _changer_for(request)
    if asks_to_modify(request):  # read what is there before changing it (not list it: it did)
        tools = tuple(t for t in tools if t.name == READ_TOOL) or tools
    elif changer == MOVE_TOOL:
        # A file renamed or moved: the move itself (asked to rename draft.txt, the model edited it).
        tools = tuple(t for t in tools if t.name == MOVE_TOOL) or tools
    elif len(names) == 1 and changer == NEW_FILE_TOOL and not _LOOK_WORDS.search(_words(request)):
        # A new file with what the request says: written at once (asked to make ideas.md, the
        # model read the file that did not exist yet, twice). Not when it is to say what another
        # file holds: that is read first.
        tools = tuple(t for t in tools if t.name == NEW_FILE_TOOL) or tools
    elif not asks_for_change(request):
        # A question about the file: nothing that changes files (asked what README.md is about,
        # the model appended a sentence to it), and a command only when one is asked for.
        runs = _RUN_WORDS.search(_words(request)) is not None
        tools = tuple(t for t in tools if t.name in LOOKING_TOOLS or (runs and t.name == RUN_TOOL)) or tools
    return Turn("required", tools)


def next_turn(messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition], tool_choice: str = "auto", *,
              steer: bool = True) -> Turn:
    """The next turn's offer (see the module's text). A caller's own choice other than "auto"
    is kept as it is. Without ``steer`` (a larger model) only this holds: after a result other
    than a failure, or a repeated call, the turn is text."""
    offered = tuple(tools)
    if tool_choice != "auto" or not offered:
        return Turn(tool_choice, offered)
    if not steer:
        return Turn("none" if repeats_a_call(messages) or answer_now(messages) else "auto", offered)
    request, exchange = _exchange(messages)
    if not any(m.role == "tool" for m in exchange):
        return _first_turn(request, offered)
    if repeats_a_call(messages):
        return Turn("none", offered)
    if not answer_now(messages):
        return Turn("auto", offered)
    done = _answered(exchange)
    changers = tuple(t for t in offered if t.name in CHANGING_TOOLS)
    wanted = _changer_for(request)
    changers = tuple(t for t in changers if t.name == wanted) or changers
    if changers and asks_for_change(request) and done and all(name in LOOKING_TOOLS for name in done):
        return Turn("required", changers)
    return Turn("none", offered)
