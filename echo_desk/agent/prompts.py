"""The system prompt for a conversation.

Short on purpose: with the built-in model every token of it is prompt processing on a CPU at
every turn. Each sentence is there because a small model got that wrong without it (invented a
file's content instead of reading it, rewrote a whole file to change one line, answered a
Chinese question in English, retried a call the person had denied).

The workspace sentence is the one measured best in bench/agent_tasks.py: the 0.5B model often
sends the workspace's own path (or name) as the file to read or write, and neither "give paths
relative to it (notes.txt)", nor naming the folder only, nor a closing "never the folder
itself" reduced that (19-job runs, Dec 2026).
"""

from __future__ import annotations

import datetime
import platform

from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope


def _platform_name() -> str:
    return f"{platform.system() or 'unknown'} {platform.release()}".strip()


def system_message(scope: Scope, *, today: datetime.date | None = None, system: str | None = None) -> ChatMessage:
    """The system message for ``scope``; ``today`` and ``system`` are fixed by tests."""
    workspace = ", ".join(str(p) for p in scope.workspace_roots) or "(none)"
    day = (today or datetime.date.today()).isoformat()
    return ChatMessage(
        role="system",
        content=(
            f"You are Echo Desk, an assistant working on the user's computer through tools. "
            f"Workspace: {workspace} (relative paths are inside it). Today: {day}. "
            f"System: {system or _platform_name()}.\n"
            "- Read a file before answering about it or changing it; never invent its content.\n"
            "- Change an existing file with edit_file, add at its end with append_to_file; write_file only "
            "creates new files.\n"
            "- Rename or move files with run_command (mv).\n"
            "- Find which file contains a text with search_files (regex).\n"
            "- After a tool result, answer briefly in plain text from that result.\n"
            "- If the user denies a call, say it was not done; do not retry it.\n"
            "- Answer in the user's language."
        ),
    )
