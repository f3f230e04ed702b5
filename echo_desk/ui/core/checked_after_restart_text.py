"""The words for a sandboxed command's (or MCP server's) check that Echo Desk made at a start
because the process that ran it was closed before it had made it (``store.owed_checks``): the start's
notice (``ui/app/checked_after_restart_notice``) and the Activity page's detail. No Qt."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _
from echo_desk.sandbox.owed_failure import OwedFailure
from echo_desk.ui.core.planted_text import put_aside_lines

if TYPE_CHECKING:
    from collections.abc import Sequence

    from echo_desk.tools.planted import Planted


#: Why the check could not be made, and what the person can do, for each kind of failure.
FAILURE_REASONS = {
    OwedFailure.REFUSED: N_("what was kept for it names something that is not part of a folder's snapshot, so it "
                            "was not read: a program other than Echo Desk changed it in Echo Desk's data folder"),
    OwedFailure.OTHER_VERSION: N_("what was kept for it was written by another version of Echo Desk, whose "
                                  "snapshots this version does not read"),
    OwedFailure.UNREADABLE: N_("what was kept for it could not be read back: it is damaged or cut short"),
    OwedFailure.CHECK_FAILED: N_("comparing the folder with what was kept for it failed: see that the folder is "
                                 "still there and that you can open it"),
}


def failure_reason(error: str) -> str:
    """The person's words for why an owed check could not be made (``error``: its kind, as kept;
    an older row's English sentence is said as a failed check, with that sentence after it)."""
    try:
        return _(FAILURE_REASONS[OwedFailure(error)])
    except ValueError:
        return _("the check failed ({detail})").format(detail=visible(error, one_line=True))


def command_lines(workspace: str, planted: Sequence[Planted], error: str, at: float, server: str = "",
                  more: int = 0) -> list[str]:
    """One command's heading (when it started, where), then its entries with their full paths
    (``server``: the check was that sandboxed MCP server's, ``workspace`` its folder; ``more``: entries
    its stored list left out, counted)."""
    where = visible(workspace, one_line=True)
    when = datetime.datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")
    if server:
        return _server_lines(visible(server, one_line=True), workspace, where, when, planted, error, more)
    if error:
        return [_("The command started on {time} in {folder}: the check could not be made ({why}). Look yourself "
                  "for what it may have left that would run code later (git hooks, .envrc, editor settings).").format(
                    time=when, folder=where, why=failure_reason(error))]
    if not planted:
        return [_("The command started on {time} in {folder} had left nothing that would run code later.").format(
            time=when, folder=where)]
    heading = _("The command started on {time} in {folder} had left what would run code later, outside the "
                "sandbox. It was taken out of the folder:").format(time=when, folder=where)
    return [heading, *("  " + line for line in put_aside_lines(workspace, planted, more))]


def _server_lines(name: str, workspace: str, where: str, when: str, planted: Sequence[Planted],
                  error: str, more: int) -> list[str]:
    if error:
        return [_("The sandboxed MCP server “{server}” started on {time} in {folder}: the check could not be made "
                  "({why}). Look yourself for what it may have left that would run code later (git hooks, .envrc, "
                  "editor settings).").format(server=name, time=when, folder=where, why=failure_reason(error))]
    if not planted:
        return [_("The sandboxed MCP server “{server}” started on {time} in {folder} had left nothing that would "
                  "run code later.").format(server=name, time=when, folder=where)]
    heading = _("The sandboxed MCP server “{server}” started on {time} in {folder} had left what would run code "
                "later, outside the sandbox. It was taken out of the folder:").format(server=name, time=when,
                                                                                       folder=where)
    return [heading, *("  " + line for line in put_aside_lines(workspace, planted, more))]
