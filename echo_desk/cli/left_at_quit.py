"""The CLI quitting: what its sandboxed MCP servers left that was put aside as they closed is
printed (stderr), since no call's result will say it. Shown on a terminal, it is kept as told;
printed where nobody may read it (a pipe, a log), the app's next start shows it too."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from echo_desk.runtime import keep_untold
from echo_desk.ui.chat.left_at_quit_text import advice, server_lines

if TYPE_CHECKING:
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.untold import Untold
    from echo_desk.runtime import Runtime


def read_by_a_person(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


async def close_and_tell(runtime: Runtime, stream: TextIO | None = None) -> None:
    """``runtime.close_mcp``, then print what was put aside."""
    out = stream or sys.stderr
    print_untold(await runtime.close_mcp(shown_here=read_by_a_person(out)), out)


async def close_manager_and_tell(runtime: Runtime, manager: McpManager, stream: TextIO | None = None) -> None:
    """The same for a manager of the CLI's own (``echo-desk mcp``), kept in the runtime's store."""
    out = stream or sys.stderr
    await manager.aclose()
    untold = manager.left_untold()
    keep_untold(runtime.left_at_quit, untold, shown_here=read_by_a_person(out), audit=runtime.audit)
    print_untold(untold, out)


def print_untold(untold: list[Untold], out: TextIO) -> None:
    for left in untold:
        for line in server_lines(left.server, left.folder, left.planted):
            print(line, file=out)
    if untold:
        print(advice(), file=out)
