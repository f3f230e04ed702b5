"""What a call tried to plant, in the person's language: the mark that says how many entries
were blocked, and each entry with what was done and where it is kept. Shared by the chat's tool
card (``chat/sandbox_card.py``) and the Activity tab, from the typed ``Planted`` values. No Qt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, ngettext
from echo_desk.tools.planted import Change, Planted
from echo_desk.tools.planted_told import the_named

if TYPE_CHECKING:
    from collections.abc import Sequence

#: How each change is said after its path, by (change, whether the earlier version is back or,
#: for something new, whether it was kept).
_DONE = {
    (Change.CREATED, True): N_("new: put aside"),
    (Change.CREATED, False): N_("new: removed"),
    (Change.CHANGED, True): N_("changed: put aside, your earlier version is back"),
    (Change.CHANGED, False): N_("changed: put aside, your earlier version could not be put back"),
    (Change.REMOVED, True): N_("removed: put back"),
    (Change.REMOVED, False): N_("removed: could not be put back"),
}

#: What the guard could not take out of the workspace (whatever the change): the warning first.
_STILL_THERE = N_("could not be removed: it is still in the workspace, do not use it")


def done_text(p: Planted) -> str:
    """What was done with one entry."""
    if p.still_there:
        return _(_STILL_THERE)
    return _(_DONE[(p.change, bool(p.kept) if p.change is Change.CREATED else p.put_back)])


def planted_label(count: int) -> str:
    """'⚠ 2 plants blocked': the mark on a call that planted something."""
    return ngettext("⚠ {n} plant blocked", "⚠ {n} plants blocked", count).format(n=count)


def folders_checked_line(count: int) -> str:
    """The sandbox's search for planted files stopped at its bound (``count`` folders): said on the
    card and in Activity, since "nothing blocked" then covers only the folders looked at."""
    return _("Only the first {count} folders of this workspace were checked for planted files: what the command "
             "left in the others (a git hook, an .envrc) was not looked at").format(count=f"{count:,}")


def put_aside_lines(folder: str, planted: Sequence[Planted], more: int = 0) -> list[str]:
    """Each entry with its full path and what was done, and where what it left is kept: for a
    notice, a tooltip or Activity's details. Up to ``MOST_NAMED`` of them (the most telling, when
    there are more), then how many more (with ``more``: entries a stored list already left out):
    an audit row keeps up to 500, and a tooltip of a thousand lines covers the screen."""
    shown = the_named(planted)
    lines = []
    for item in shown:
        path = visible(item.full(folder), one_line=True)
        lines.append(_("{path} ({what})").format(path=path, what=done_text(item)))
        if item.kept and not item.still_there:
            lines.append("    " + _("kept, never run, at {path}").format(path=visible(item.kept, one_line=True)))
    unnamed = len(planted) - len(shown) + more
    if unnamed:
        lines.append(_("{count} more").format(count=unnamed))
    return lines


def planted_tooltip(planted: Sequence[Planted], *, server: bool = False, sub_agent: bool = False,
                    more: int = 0) -> str:
    """The mark's tooltip (plain text): what was blocked, each entry and where it is kept;
    ``more``: entries past the cap kept with the conversation (counted, not named)."""
    if not planted:
        return ""
    if sub_agent:
        heading = _("The sub-agent's calls tried to plant what would run code later, outside the sandbox:")
    elif server:
        heading = _("The sandboxed server left in its folder what would run code later, outside the sandbox:")
    else:
        heading = _("The command tried to plant what would run code later, outside the sandbox:")
    return "\n".join([heading, *put_aside_lines("", planted, more)])
