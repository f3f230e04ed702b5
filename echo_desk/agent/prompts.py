"""The system prompt for a conversation."""

from __future__ import annotations

from echo_desk.agent.model import ChatMessage
from echo_desk.agent.scope import Scope


def system_message(scope: Scope) -> ChatMessage:
    workspace = ", ".join(str(p) for p in scope.workspace_roots) or "(none)"
    return ChatMessage(
        role="system",
        content=(
            "You are Echo Desk, an assistant that works on the user's computer through tools. "
            f"The workspace folder is {workspace}; relative paths are inside it. "
            "Use a tool when the request needs one; otherwise answer in plain text. "
            "After a tool result, answer the user in plain text using that result. "
            "The user approves every change: if a call is rejected, do not retry it unchanged."
        ),
    )
