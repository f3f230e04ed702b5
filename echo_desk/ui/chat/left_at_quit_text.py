"""The words for what sandboxed MCP servers left that was put aside as Echo Desk quit: printed by
the CLI as it quits, shown by the app at its next start (``ui/app/left_at_quit_notice``). No Qt."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.core.planted_text import put_aside_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from echo_desk.tools.planted import Planted


def server_lines(server: str, folder: str, planted: Sequence[Planted], at: float | None = None) -> list[str]:
    """"The sandboxed MCP server “x” had left in <folder> …", then every entry with its full path."""
    name, where = visible(server, one_line=True), visible(folder, one_line=True)
    if at is None:
        heading = _("As it stopped, the sandboxed MCP server “{name}” had left in {folder} what would run code "
                    "later, outside the sandbox. It was taken out of the folder:")
    else:
        heading = _("When Echo Desk quit on {time}, the sandboxed MCP server “{name}” had left in {folder} what "
                    "would run code later, outside the sandbox. It was taken out of the folder:")
    when = datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M") if at is not None else ""
    return [heading.format(name=name, folder=where, time=when), *("  " + line for line in put_aside_lines(folder, planted))]


def advice() -> str:
    return _("Nothing that was put aside runs. Read it before you move any of it back.")
