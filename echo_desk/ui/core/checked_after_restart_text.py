"""The words for a sandboxed command's check that Echo Desk made at a start because the process
that ran the command was closed before it had made it (``store.owed_checks``): the start's
notice (``ui/app/checked_after_restart_notice``) and the Activity page's detail. No Qt."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.core.planted_text import put_aside_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from echo_desk.tools.planted import Planted


def command_lines(workspace: str, planted: Sequence[Planted], error: str, at: float) -> list[str]:
    """One command's heading (when it started, where), then every entry with its full path."""
    where = visible(workspace, one_line=True)
    when = datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")
    if error:
        return [_("The command started on {time} in {folder}: the check could not be made ({why}). Look yourself "
                  "for what it may have left that would run code later (git hooks, .envrc, editor settings).").format(
                    time=when, folder=where, why=visible(error, one_line=True))]
    if not planted:
        return [_("The command started on {time} in {folder} had left nothing that would run code later.").format(
            time=when, folder=where)]
    heading = _("The command started on {time} in {folder} had left what would run code later, outside the "
                "sandbox. It was taken out of the folder:").format(time=when, folder=where)
    return [heading, *("  " + line for line in put_aside_lines(workspace, planted))]
