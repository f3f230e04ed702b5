"""Read before overwriting: ``write_file`` on an existing workspace file the model has not read
in this conversation is not run; the refusal shows what the file holds now.

The system prompt says "read before changing", and a 0.5B model still replaced notes.txt with
the one line it was asked to add (bench/agent_tasks.py, append jobs): the person would have
approved a diff that deletes the file's content. Told to read first, it sent the same call
again; shown the content in the refusal, its next write can keep it. A model that read the
file (or wrote it, or was shown it in a refusal) in this conversation writes as before: the
person approves the diff, so an overwrite they asked for still happens.

What the refusal shows comes from a real ``read_file`` call through the dispatcher (see
``AgentLoop``), never from reading the disk here: a disabled ``read_file``, a protected file, a
rule or a path outside the workspace keep it out exactly as they would keep out the model's own
read. The rule itself only looks at files inside the workspace, so it says nothing about whether
a path elsewhere exists.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.common import fs
from echo_desk.common.json_text import read_json
from echo_desk.tools import ToolError

#: Calls after which the model knows a file's content: it read it, or wrote all of it.
_KNOWS = frozenset({"read_file", "write_file"})
#: A read result up to this many characters is shown in the refusal.
SHOWN_CHARS = 4000
_REFUSED = "already exists and was not read in this conversation"


def _path_argument(call: ToolCall) -> str:
    try:
        value = read_json(call.arguments).get("path")
    except (ValueError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def _inside(raw: str, roots: Sequence[Path]) -> str:
    """The file ``raw`` names, as the file tools resolve it, when that is inside the workspace;
    "" for a path elsewhere or one they would refuse."""
    try:
        return str(fs.resolve(raw, roots).path) if raw else ""
    except ToolError:
        return ""


def _result(call_id: str, messages: Sequence[ChatMessage]) -> dict[str, object]:
    for message in messages:
        if message.role == "tool" and message.tool_call_id == call_id:
            try:
                value = read_json(message.content)
            except ValueError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def unread_target(call: ToolCall, messages: Sequence[ChatMessage], roots: Sequence[Path]) -> str:
    """The path ``call`` gave when it would overwrite an existing workspace file unread ("" when
    it may run, or when the file is not in the workspace: the dispatcher rules on that)."""
    if call.name != "write_file":
        return ""
    raw = _path_argument(call)
    target = _inside(raw, roots)
    if not target or not os.path.isfile(target):
        return ""
    for message in messages:
        for earlier in message.tool_calls:
            if earlier.name not in _KNOWS or _inside(_path_argument(earlier), roots) != target:
                continue
            result = _result(earlier.id, messages)
            # Read or written here, or shown in a refusal: the next write goes to the person's
            # approval with its diff (an overwrite they asked for is theirs to allow).
            if result.get("ok") or (earlier.name == "write_file" and _REFUSED in str(result.get("error", ""))):
                return ""
    return raw


def read_call(call: ToolCall, path: str) -> ToolCall:
    """The ``read_file`` call whose result the refusal shows (run through the dispatcher)."""
    return ToolCall(id=f"{call.id}-read-first", name="read_file", arguments=json.dumps({"path": path}))


def asks_nobody() -> ScriptedHost:
    """The host of that read: it never puts a question to the person (they did not ask for this
    read), so a read that would need their approval is declined and nothing is shown."""
    return ScriptedHost(choice=ApprovalChoice.DENY,
                        message="not asked: Echo Desk only wanted to show the file before a write")


def refusal(path: str, shown: str | None) -> str:
    """Why the write is not run, with the file's content when the read was allowed and short."""
    if shown is None or len(shown) > SHOWN_CHARS:
        return (f"not run: {path} {_REFUSED}. Read it with read_file first, then change it with "
                "edit_file (or write_file with its whole new content).")
    return (f"not run: {path} {_REFUSED}. It holds now:\n{shown}\n[end of file] Call write_file again "
            "with the whole new content: these lines with your change made.")
