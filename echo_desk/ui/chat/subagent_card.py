"""The sub-agent's transcript, nested inside the parent's ``delegate`` card.

``DelegateTool`` puts a structured transcript in its envelope's metadata: ``{"call", "arguments",
"id"}`` for each call the sub-agent made, ``{"result", "envelope"}`` when it returned (a
``delegate`` call's with the transcript of the sub-agent it started, drawn nested under its step),
and ``{"assistant"}`` for the sub-agent's own text; ``card_parse.subtranscript_of`` reads it once
into typed steps. Here they become a small indented HTML block for the card's ``QTextDocument`` (the
transcript stays one model row: no widget per message). No Qt.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from echo_desk.common.json_text import read_json
from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, aside, ngettext, shown
from echo_desk.ui.chat.card_facts import SubCall, SubStep
from echo_desk.ui.chat.sandbox_card import what_it_left_lines
from echo_desk.ui.core.labels import status_colour, status_label
from echo_desk.ui.core.palette import Palette, in_use

if TYPE_CHECKING:
    from echo_desk.ui.chat.card_facts import SubTranscript

_COLLAPSED_STEPS = 3
_ARGS_CHARS = 160
_RESULT_LINES = 4
_RESULT_CHARS = 400


def _compact(arguments: str) -> str:
    try:
        text = json.dumps(read_json(arguments), ensure_ascii=False) if arguments else ""
    except ValueError:
        text = arguments
    return text if len(text) <= _ARGS_CHARS else text[:_ARGS_CHARS] + " …"


def _short(text: str) -> str:
    lines = text.splitlines()
    cut = "\n".join(lines[:_RESULT_LINES])
    if len(cut) > _RESULT_CHARS:
        cut = cut[:_RESULT_CHARS]
    return cut + (" …" if cut != text else "")


def _escaped(text: str) -> str:
    # The sub-agent's words, arguments and results are untrusted: hidden characters made visible.
    return html.escape(visible(text))


def _step_html(step: SubStep, title_for: Callable[[str], str], p: Palette, *, expanded: bool) -> tuple[str, int]:
    """A step, and how many steps of a sub-agent it started (nested under it) it leaves out."""
    if not isinstance(step, SubCall):
        who = html.escape(_("Sub-agent:"))
        return (f"<p style='margin:4px 0'><span style='color:{p.muted}; font-weight:600'>{who}</span> "
                f"<span style='white-space:pre-wrap'>{_escaped(step.text)}</span></p>"), 0
    status = step.status
    colour = status_colour(status, p)
    named = aside(f"<b>{_escaped(title_for(step.tool))}</b>",
                  f"<span style='color:{p.muted}'>{_escaped(step.tool)}</span>")
    parts = [f"<p style='margin:4px 0'>→ {named} "
             f"<span style='color:{colour}; font-weight:600'>● {html.escape(status_label(status))}</span></p>"]
    args = _compact(step.arguments)
    if args:
        parts.append(f"<pre style='margin:0 0 0 16px; color:{p.muted}; white-space:pre-wrap'>{_escaped(args)}</pre>")
    result = step.result
    if result is not None and result.error:
        parts.append(f"<pre style='margin:0 0 0 16px; color:{p.danger}; white-space:pre-wrap'>"
                     f"{_escaped(_short(shown(result.error)))}</pre>")
    elif result is not None and result.content:
        parts.append(f"<pre style='margin:0 0 0 16px; color:{p.text}; white-space:pre-wrap'>"
                     f"{_escaped(_short(result.content))}</pre>")
    if result is not None and result.sandbox is not None:
        # What its sandbox left, as its own card says it: its later check's account once it came.
        parts += [f"<p style='margin:0 0 0 16px; color:{colour}'>{html.escape(text)}</p>"
                  for text, colour in what_it_left_lines(result.sandbox, p)]
    hidden = 0
    if result is not None and result.subtranscript:
        # A sub-agent this one started: its own steps (and what their checks found), nested here.
        nested, hidden = subtranscript_html(result.subtranscript, title_for, expanded=expanded, palette=p)
        parts.append(nested)
    return "".join(parts), hidden


def subtranscript_html(sub: SubTranscript, title_for: Callable[[str], str],
                       *, expanded: bool, palette: Palette | None = None) -> tuple[str, int]:
    """The nested block and how many steps it leaves out (collapsed cards show the last few), a
    sub-agent's sub-agent's among them (its block is nested in the step that started it)."""
    steps = sub.steps
    if not steps:
        return "", 0
    p = palette or in_use()
    shown = steps if expanded else steps[-_COLLAPSED_STEPS:]
    hidden = len(steps) - len(shown)
    calls = sum(1 for s in steps if isinstance(s, SubCall))
    caption = _("Sub-agent transcript (tool calls: {calls})").format(calls=calls)
    body = []
    if hidden:
        earlier = ngettext("… {n} earlier step", "… {n} earlier steps", hidden).format(n=hidden)
        body.append(f"<p style='margin:2px 0; color:{p.muted}'>{html.escape(earlier)}</p>")
    for step in shown:
        step_html, more = _step_html(step, title_for, p, expanded=expanded)
        body.append(step_html)
        hidden += more
    block = (f"<div style='color:{p.muted}; margin-top:4px'>{html.escape(caption)}</div>"
             "<table width='100%' cellpadding='6' cellspacing='0' border='1' "
             f"style='border-color:{p.border}; border-style:solid; margin-left:12px; background:{p.base}'>"
             f"<tr><td>{''.join(body)}</td></tr></table>")
    return block, hidden
