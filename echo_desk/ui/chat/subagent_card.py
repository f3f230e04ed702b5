"""The sub-agent's transcript, nested inside the parent's ``delegate`` card.

``DelegateTool`` puts a structured transcript in its envelope's metadata: ``{"call", "arguments",
"id"}`` for each call the sub-agent made, ``{"result", "envelope"}`` when it returned, and
``{"assistant"}`` for the sub-agent's own text. Here that becomes a small indented HTML block
for the card's ``QTextDocument`` (the transcript stays one model row: no widget per message).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from echo_desk.agent.status import ToolStatus
from echo_desk.i18n import _, aside
from echo_desk.ui.core import theme
from echo_desk.ui.core.labels import status_colour, status_label

if TYPE_CHECKING:
    from echo_desk.tools.results import JsonObject

_COLLAPSED_STEPS = 3
_ARGS_CHARS = 160
_RESULT_LINES = 4
_RESULT_CHARS = 400


@dataclass
class Step:
    """One line of the nested transcript: a call (with its result once known) or the sub-agent's text."""

    text: str = ""
    call_id: str = ""
    tool: str = ""
    arguments: str = ""
    envelope: JsonObject | None = field(default=None)

    @property
    def is_call(self) -> bool:
        return bool(self.tool)

    @property
    def status(self) -> ToolStatus:
        if self.envelope is None:
            return ToolStatus.CANCELLED  # the transcript ended without this call's result
        return ToolStatus.of_result(bool(self.envelope.get("ok")), str(self.envelope.get("error_kind") or ""))


def steps_of(entries: list[JsonObject]) -> list[Step]:
    """Pair each call with its result, in the order the sub-agent worked."""
    steps: list[Step] = []
    by_id: dict[str, Step] = {}
    for entry in entries:
        if "call" in entry:
            step = Step(call_id=str(entry.get("id", "")), tool=str(entry["call"]),
                        arguments=str(entry.get("arguments", "") or ""))
            by_id[step.call_id] = step
            steps.append(step)
        elif "result" in entry:
            found = by_id.get(str(entry["result"]))
            envelope = entry.get("envelope")
            if found is not None and isinstance(envelope, dict):
                found.envelope = envelope
        elif entry.get("assistant"):
            steps.append(Step(text=str(entry["assistant"])))
    return steps


def _compact(arguments: str) -> str:
    try:
        text = json.dumps(json.loads(arguments), ensure_ascii=False) if arguments else ""
    except ValueError:
        text = arguments
    return text if len(text) <= _ARGS_CHARS else text[:_ARGS_CHARS] + " …"


def _short(text: str) -> str:
    lines = text.splitlines()
    cut = "\n".join(lines[:_RESULT_LINES])
    if len(cut) > _RESULT_CHARS:
        cut = cut[:_RESULT_CHARS]
    return cut + (" …" if cut != text else "")


def _step_html(step: Step, title_for: Callable[[str], str]) -> str:
    if not step.is_call:
        who = html.escape(_("Sub-agent:"))
        return (f"<p style='margin:4px 0'><span style='color:{theme.colour('muted')}; font-weight:600'>{who}</span> "
                f"<span style='white-space:pre-wrap'>{html.escape(step.text)}</span></p>")
    status = step.status
    colour = status_colour(status)
    named = aside(f"<b>{html.escape(title_for(step.tool))}</b>",
                  f"<span style='color:{theme.colour('muted')}'>{html.escape(step.tool)}</span>")
    parts = [f"<p style='margin:4px 0'>→ {named} "
             f"<span style='color:{colour}; font-weight:600'>● {html.escape(status_label(status))}</span></p>"]
    args = _compact(step.arguments)
    if args:
        parts.append(f"<pre style='margin:0 0 0 16px; color:{theme.colour('muted')}; white-space:pre-wrap'>{html.escape(args)}</pre>")
    env = step.envelope or {}
    if env.get("error"):
        parts.append(f"<pre style='margin:0 0 0 16px; color:{theme.colour('danger')}; white-space:pre-wrap'>"
                     f"{html.escape(_short(str(env['error'])))}</pre>")
    elif env.get("content"):
        parts.append(f"<pre style='margin:0 0 0 16px; color:{theme.colour('text')}; white-space:pre-wrap'>"
                     f"{html.escape(_short(str(env['content'])))}</pre>")
    return "".join(parts)


def subtranscript_html(entries: list[JsonObject], title_for: Callable[[str], str],
                       *, expanded: bool) -> tuple[str, int]:
    """The nested block and how many steps it leaves out (collapsed cards show the last few)."""
    steps = steps_of(entries)
    if not steps:
        return "", 0
    shown = steps if expanded else steps[-_COLLAPSED_STEPS:]
    hidden = len(steps) - len(shown)
    calls = sum(1 for s in steps if s.is_call)
    caption = _("Sub-agent transcript (tool calls: {calls})").format(calls=calls)
    body = []
    if hidden:
        earlier = _("… {n} earlier steps").format(n=hidden)
        body.append(f"<p style='margin:2px 0; color:{theme.colour('muted')}'>{html.escape(earlier)}</p>")
    body += [_step_html(step, title_for) for step in shown]
    block = (f"<div style='color:{theme.colour('muted')}; margin-top:4px'>{html.escape(caption)}</div>"
             "<table width='100%' cellpadding='6' cellspacing='0' border='1' "
             f"style='border-color:{theme.colour('border')}; border-style:solid; margin-left:12px; background:{theme.colour('base')}'>"
             f"<tr><td>{''.join(body)}</td></tr></table>")
    return block, hidden
