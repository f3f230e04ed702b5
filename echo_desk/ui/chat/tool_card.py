"""The HTML of a tool card: a pure function of the row, its title and a palette.

What one call looks like to the person: status, localized title, arguments, live output, the
result (or a database grid), the sandbox line, a sub-agent's steps, file changes with their first
diff lines, and any part of the result that could not be read. Rendered from the typed row
(``TranscriptItem``, its result read once by ``card_facts``); the delegate in ``transcript_view``
lays the HTML out in a ``QTextDocument``. No Qt here, so every card is tested without a display.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

from echo_desk.agent.status import ToolStatus
from echo_desk.common.json_text import read_json
from echo_desk.common.visible_text import visible, visible_path
from echo_desk.i18n import _, aside, for_model, labelled, list_text, ngettext, shown
from echo_desk.tools.results import FileChange
from echo_desk.ui.chat.card_facts import PART_LABELS, Unreadable
from echo_desk.ui.chat.result_grid import grid_html
from echo_desk.ui.chat.sandbox_card import planted_mark, sandbox_html
from echo_desk.ui.chat.subagent_card import subtranscript_html
from echo_desk.ui.chat.transcript_item import TranscriptItem
from echo_desk.ui.core.labels import CHANGE_LABELS, status_colour, status_label
from echo_desk.ui.core.palette import Palette, in_use, tint
from echo_desk.ui.widgets.diffparse import ADD, DELETE, HUNK, parse_unified

_CARD_DIFF_LINES = 400
_COLLAPSED_LINES = 6
_COLLAPSED_ARGS = 160
#: What a card shows of a part it could not read (collapsed / expanded); Copy gives all of it.
_UNREADABLE_CHARS = 300
_UNREADABLE_EXPANDED_CHARS = 20_000
#: The href of the "Revert" link in a card with file changes.
REVERT_ANCHOR = "echo-desk:revert"


def _lines(text: str, limit: int | None) -> tuple[str, int]:
    lines = text.split("\n")  # "\n" only: a "\r" or U+2029 stays in its line, shown visibly
    if limit is None or len(lines) <= limit:
        return text, 0
    return "\n".join(lines[:limit]), len(lines) - limit


def _pretty_args(arguments: str) -> str:
    try:
        return json.dumps(read_json(arguments), indent=2, ensure_ascii=False) if arguments else ""
    except ValueError:
        return arguments


def _div(text: str, colour: str) -> str:
    # Tool arguments and output are untrusted: escaped, and hidden characters made visible.
    return f"<div style='color:{colour}'>{html.escape(visible(text))}</div>"


def _compact_args(arguments: str) -> str:
    try:
        return json.dumps(read_json(arguments), ensure_ascii=False) if arguments else ""
    except ValueError:
        return arguments


def _bold(text: str) -> str:
    return f"<b>{html.escape(text)}</b>"


def _muted(text: str, p: Palette) -> str:
    return f"<span style='color:{p.muted}'>{html.escape(text)}</span>"


def _pre(text: str, colour: str) -> str:
    return f"<pre style='margin:2px 0; color:{colour}; white-space:pre-wrap'>{html.escape(visible(text))}</pre>"


def status_chip(status: ToolStatus, palette: Palette | None = None) -> str:
    """The status as a small tinted label (running, done, failed, denied …)."""
    p = palette or in_use()
    colour = status_colour(status, p)
    background = tint(colour, p.card, 0.16)
    return (f"<span style='background:{background}; color:{colour}; font-weight:600'>"
            f"&nbsp;{html.escape(status_label(status))}&nbsp;</span>")


def _change_html(change: FileChange, expanded: bool, p: Palette) -> tuple[list[str], int]:
    """One file change of a card: its path, kind and counts, and (expanded) its first lines; with
    how many parts a collapsed card hides."""
    parsed = parse_unified(change.diff)
    kind = _(CHANGE_LABELS[change.kind.value])
    parts = [f"<div>{aside(_bold(visible(change.path, one_line=True)), html.escape(kind))} "
             f"<span style='color:{p.ok}'>+{parsed.added}</span> <span style='color:{p.danger}'>−{parsed.deleted}</span></div>"]
    if not len(parsed):
        return parts, 0
    if not expanded:
        return parts, 1
    colours = {ADD: p.diff_add, DELETE: p.diff_delete, HUNK: p.diff_hunk}
    rows = [f"<div style='background:{colours.get(parsed.kinds[i], p.base)}; white-space:pre'>"
            f"{html.escape(parsed.lines[i]) or ' '}</div>" for i in range(min(len(parsed), _CARD_DIFF_LINES))]
    parts.append("<div style='font-family:monospace'>" + "".join(rows) + "</div>")  # not prose: HTML rows
    if len(parsed) > _CARD_DIFF_LINES:
        more = len(parsed) - _CARD_DIFF_LINES
        more_text = ngettext("{n} more line: double-click to open the whole diff",
                             "{n} more lines: double-click to open the whole diff", more)
        parts.append(_div(more_text.format(n=more), p.muted))
    if change.truncated:
        parts.append(_div(_("The tool shortened this diff."), p.warn))
    return parts, 0


def unreadable_html(part: Unreadable, *, expanded: bool, palette: Palette | None = None) -> tuple[str, int]:
    """"Could not show …" and the raw JSON as received (cut unless expanded); with how many
    parts a collapsed card hides."""
    p = palette or in_use()
    what = _(PART_LABELS[part.part])
    limit = _UNREADABLE_EXPANDED_CHARS if expanded else _UNREADABLE_CHARS
    raw = part.raw if len(part.raw) <= limit else part.raw[:limit] + " …"
    parts = [_div(_("Could not show {what}: it is not in a form Echo Desk can read. As received:").format(what=what),
                  p.warn), _pre(raw, p.muted)]
    if len(part.raw) > limit:
        parts.append(_div(ngettext("{n} more character (Copy takes them all)", "{n} more characters (Copy takes them all)",
                                   len(part.raw) - limit).format(n=len(part.raw) - limit), p.muted))
    return "".join(parts), int(len(part.raw) > _UNREADABLE_CHARS and not expanded)


def _failure_parts(item: TranscriptItem, p: Palette) -> list[str]:
    """Why the call failed: a denial by the person in their language (the model got the English
    words), else the engine's error: in the person's language when it was written for them too
    (``i18n.for_person``), else as it came."""
    if item.denied_note is not None:
        parts = [_div(_("You denied this call."), p.danger)]
        if item.denied_note:
            parts.append(_pre(labelled(_("Your note to the agent"), item.denied_note), p.muted))
        return parts
    return [_pre(shown(item.error), p.danger)] if item.error else []


def _changed_before_stop(item: TranscriptItem) -> tuple[str, ...]:
    """The files a stopped call changed, by name: the check after a stop compares each file with
    what Revert kept and makes no diff, so there are no lines to count (a stopped call's changes
    read "+0 −0" otherwise)."""
    if item.status == ToolStatus.CANCELLED and item.file_changes:
        return tuple(change.path for change in item.file_changes)
    return () if item.file_changes else item.changed_before_stop


def _revert_parts(item: TranscriptItem, p: Palette) -> list[str]:
    """What Revert can do for the call's changes: a link, that it was done, or why it cannot."""
    parts: list[str] = []
    before_stop = _changed_before_stop(item)
    if before_stop:
        parts.append(_div(_("Changed before the stop: {files}").format(
            files=list_text(visible_path(path) for path in before_stop)), p.text))
    if not ((item.file_changes and item.status in ("done", "failed")) or before_stop):
        return parts  # a call out of time, or stopped, may have written: those offer it too
    if item.reverted:
        parts.append(_div(_("Reverted"), p.muted))
    elif item.not_recorded is not None:
        parts.append(_div(_("Revert cannot undo this change: Echo Desk could not record it ({cause}).").format(
            cause=shown(item.not_recorded)), p.danger))
    else:
        parts.append(f"<div><a href='{REVERT_ANCHOR}' style='color:{p.link}'>↶ {html.escape(_('Revert'))}</a></div>")
    return parts


def card_html(item: TranscriptItem, title: str, title_for: Callable[[str], str] | None = None,
              icon: str = "", palette: Palette | None = None) -> str:
    """The tool card for ``item`` (what the person sees of one call). ``title_for`` names the
    tools inside a sub-agent's nested transcript; ``icon`` is the family's ``<img>`` tag;
    ``palette`` is the one in use unless given."""
    p = palette or in_use()
    parts: list[str] = []
    limit = None if item.expanded else _COLLAPSED_LINES
    hidden = 0
    if item.expanded:
        args = _pretty_args(item.arguments)
    else:
        # Collapsed: the arguments on one line, cut at a readable length.
        args = _compact_args(item.arguments)
        if len(args) > _COLLAPSED_ARGS:
            args = args[:_COLLAPSED_ARGS] + " …"
            hidden += 1
    if args:
        parts.append(_pre(args, p.muted))
    if item.subtranscript:
        # A finished delegate: its sub-agent's steps, structured, instead of the raw live stream.
        nested, more = subtranscript_html(item.subtranscript, title_for or (lambda name: name),
                                          expanded=item.expanded, palette=p)
        hidden += more
        parts.append(nested)
    elif item.output:
        out_lines = item.output.rstrip("\n").split("\n")  # as _lines: "\n" only
        kept_lines = out_lines if item.expanded else out_lines[-12:]
        hidden += len(out_lines) - len(kept_lines)
        parts.append(_div(_("Output"), p.muted))
        parts.append(_pre("\n".join(kept_lines), p.text))
    parts.extend(_failure_parts(item, p))
    if item.sandbox is not None:
        parts.append(sandbox_html(item.sandbox, p))
    if item.grid is not None:
        # A database result: the grid instead of the model's text table (Copy still gives the text).
        table, more_hidden = grid_html(item.grid, expanded=item.expanded, palette=p)
        hidden += int(more_hidden)
        parts.append(table)
    elif item.result:
        result, more = _lines(item.result, limit)
        hidden += more
        parts.append(_pre(result, p.text))
    for change in () if item.status == ToolStatus.CANCELLED else item.file_changes:  # (named by _revert_parts)
        html_part, more = _change_html(change, item.expanded, p)
        parts.extend(html_part)
        hidden += more
    for unreadable in item.unreadable:
        shown_part, more = unreadable_html(unreadable, expanded=item.expanded, palette=p)
        parts.append(shown_part)
        hidden += more
    parts.extend(_revert_parts(item, p))
    # The expander: a chevron in the header (the whole card toggles on click, Enter or Space).
    chevron = "▾" if item.expanded else ("▸" if hidden else "")
    header = (f"<div><span style='color:{p.muted}'>{chevron or '&nbsp;'}</span>&nbsp;{icon}&nbsp;"
              f"{aside(_bold(title), _muted(item.tool_name, p))}&nbsp;&nbsp;{status_chip(item.status, p)}"
              f"{_planted_part(item, p)}</div>")
    if hidden and not item.expanded:
        show_all = _("Show all")
        parts.append(f"<div style='color:{p.muted}'>▸ {html.escape(show_all)}</div>")
    return header + "".join(parts)  # not prose: HTML blocks one under another


def _planted_part(item: TranscriptItem, p: Palette) -> str:
    # A delegate card counts what its sub-agent's calls planted: its steps may be folded away.
    count = item.sandbox.planted_count if item.sandbox is not None else item.subtranscript.planted_count
    mark = planted_mark(count, p)
    return f"&nbsp;&nbsp;{mark}" if mark else ""


def copy_text(item: TranscriptItem) -> str:
    """What "Copy" puts on the clipboard for a card: the whole of it, unreadable parts as received."""
    parts = [f"{item.tool_name} {item.arguments}", item.output, *_error_copied(item.error), item.result]
    parts += [c.diff for c in item.file_changes]
    parts += [u.raw for u in item.unreadable]
    return "\n\n".join(p for p in parts if p)


def _error_copied(error: str) -> list[str]:
    """The error as the card shows it, then the agent's own English words when they differ (a
    report quotes both), alike on the live card and on one reopened from storage."""
    if not error:
        return []
    said, read = shown(error), for_model(error)
    return [said] if read == said else [said, labelled(_("What the agent read"), read)]
