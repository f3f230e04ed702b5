"""A child Echo Desk process for test_owed_checks.py: runs one sandboxed command that plants an
``.envrc`` in the workspace, keeping its check as owed in the data folder's store.

``kill``: the command then sleeps; the test kills this process (SIGKILL) while it runs.
``quit``: the command ends, but its sandbox is taken as still running at the bound, so its check
is left to a late check; the call's message is saved (as the chat saves it, with its sandbox
facts) and the process quits before the late check ended.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from sandbox_helpers import context, run, tool_with

from echo_desk.builtins import RunCommand
from echo_desk.chat_messages import ChatMessage
from echo_desk.sandbox import ending
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore


async def main(mode: str, workspace: Path, data: Path, token: str) -> None:
    settings = tool_with()._settings
    tool = RunCommand(settings, OwedChecksStore(data / OWED_CHECKS_FILE))
    ctx = context(workspace)
    ctx.conversation_id, ctx.call_id = "conversation-1", "call-1"
    if mode == "kill":
        await run(tool, {"command": f"echo evil > .envrc; : > started; sleep 3600 # {token}",
                         "timeout_seconds": 600}, ctx)
        return

    async def never_gone(inside: ending.Inside | None, wait_seconds: float = 0.0) -> bool:
        await asyncio.sleep(0.01)
        return False  # still running at the bound, and until the quit

    ending.gone = never_gone  # (the module run_command asks)
    store = ConversationStore(data / "conversations.sqlite3")
    ctx.conversation_id = store.create("a chat").id
    result = await run(tool, {"command": "echo evil > .envrc"}, ctx)
    assert result.metadata.get("sandbox", {}).get("checked_later") is True, (result.output, result.metadata)
    store.append(ctx.conversation_id, ChatMessage(role="tool", content=result.output, tool_call_id="call-1",
                                                  name="run_command"),
                 {"ok": True, "tool": "run_command", "sandbox": result.metadata["sandbox"]})
    store.close()
    print(ctx.conversation_id, flush=True)
    # Returning quits: asyncio.run cancels the late check, still waiting for the sandbox.


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]))
