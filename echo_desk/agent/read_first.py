"""Read before overwriting: ``write_file`` on an existing file the model has not read in this
conversation is not run; the refusal shows what the file holds now.

The system prompt says "read before changing", and a 0.5B model still replaced notes.txt with
the one line it was asked to add (bench/agent_tasks.py, append jobs): the person would have
approved a diff that deletes the file's content. Told to read first, it sent the same call
again; shown the content in the refusal, its next write can keep it. A model that read the
file (or wrote it, or was shown it in a refusal) in this conversation writes as before: the
person approves the diff, so an overwrite they asked for still happens.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.model import ChatMessage, ToolCall

#: Calls after which the model knows a file's content: it read it, or wrote all of it.
_KNOWS = frozenset({"read_file", "write_file"})
#: A file up to this size is shown in the refusal.
SHOWN_BYTES = 4000
_REFUSED = "already exists and was not read in this conversation"


def _path_argument(call: ToolCall) -> str:
    try:
        value = json.loads(call.arguments).get("path")
    except (ValueError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def _locate(raw: str, roots: Sequence[Path]) -> str:
    if not raw or not roots or "\x00" in raw:
        return ""
    return os.path.realpath(raw if os.path.isabs(raw) else os.path.join(roots[0], raw))


def _result(call_id: str, messages: Sequence[ChatMessage]) -> dict[str, object]:
    for message in messages:
        if message.role == "tool" and message.tool_call_id == call_id:
            try:
                value = json.loads(message.content)
            except ValueError:
                return {}
            return value if isinstance(value, dict) else {}
    return {}


def _content(target: str) -> str | None:
    try:
        with open(target, "rb") as handle:
            data = handle.read(SHOWN_BYTES + 1)
        return data.decode("utf-8") if len(data) <= SHOWN_BYTES else None
    except (OSError, UnicodeDecodeError):
        return None


def unread_overwrite(call: ToolCall, messages: Sequence[ChatMessage], roots: Sequence[Path]) -> str:
    """Why ``call`` is not run ("" when it may run): it overwrites an existing file unread."""
    if call.name != "write_file":
        return ""
    target = _locate(_path_argument(call), roots)
    if not target or not os.path.isfile(target):
        return ""
    for message in messages:
        for earlier in message.tool_calls:
            if earlier.name not in _KNOWS or _locate(_path_argument(earlier), roots) != target:
                continue
            result = _result(earlier.id, messages)
            # Read or written here, or shown in a refusal: the next write goes to the person's
            # approval with its diff (an overwrite they asked for is theirs to allow).
            if result.get("ok") or (earlier.name == "write_file" and _REFUSED in str(result.get("error", ""))):
                return ""
    content = _content(target)
    if content is None:
        return (f"not run: {target} {_REFUSED}. Read it with read_file first, then change it with "
                "edit_file (or write_file with its whole new content).")
    return (f"not run: {target} {_REFUSED}. It holds now:\n{content}\n[end of file] Call write_file again "
            "with the whole new content: these lines with your change made.")
