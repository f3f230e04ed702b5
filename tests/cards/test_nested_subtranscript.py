"""A sub-agent's sub-agent: its transcript, kept with the ``delegate`` step that started it, is
read into that step's result, its sandboxes counted in the outer card's header mark, and drawn
nested under the step, folded as the outer one is. Deeper than sub-agents may nest is not read
as a transcript (kept raw as an unreadable part). No Qt (runs in the Qt-blocked pass)."""

from __future__ import annotations

from typing import Any

from echo_desk.agent.subagents import MAX_DEPTH
from echo_desk.ui.chat.card_facts import Part, SubCall
from echo_desk.ui.chat.card_parse import subtranscript_of
from echo_desk.ui.chat.subagent_card import subtranscript_html
from echo_desk.ui.core.palette import LIGHT

PLANTED = {"sandboxed": True, "planted": [{"path": ".envrc", "change": "created", "kept": "/aside/.envrc"}]}


def _delegating(call_id: str, inner: list[dict[str, Any]], words: str = "Passed on.") -> list[dict[str, Any]]:
    return [{"call": "delegate", "arguments": "{}", "id": call_id},
            {"result": call_id, "envelope": {"ok": True, "tool": "delegate", "content": words}, "transcript": inner},
            {"assistant": words}]


def _running(call_id: str = "k1", steps: int = 1) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for n in range(steps):
        entries += [{"call": "run_command", "arguments": "{}", "id": f"{call_id}-{n}"},
                    {"result": f"{call_id}-{n}", "envelope": {"ok": True, "tool": "run_command", "content": "ran"},
                     "sandbox": PLANTED}]
    return [*entries, {"assistant": "It ran."}]


def test_the_inner_transcript_is_read_into_its_delegate_step_and_counted_in_the_mark() -> None:
    sub, bad = subtranscript_of(_delegating("e1", _running()))
    assert bad == ()
    step = sub.steps[0]
    assert isinstance(step, SubCall) and step.result is not None and step.result.subtranscript is not None
    inner = step.result.subtranscript.steps[0]
    assert isinstance(inner, SubCall) and inner.call_id == "k1-0"
    assert sub.planted_count == 1 and len(sub.sandboxes) == 1


def test_deeper_than_sub_agents_may_nest_is_unreadable_not_read() -> None:
    transcript = _running()
    for depth in range(MAX_DEPTH):
        transcript = _delegating(f"e{depth}", transcript)
    sub, bad = subtranscript_of(transcript)
    assert [b.part for b in bad] == [Part.SUB_TRANSCRIPT]
    assert sub.planted_count == 0  # (the too deep one's plants are not read from it)


def test_the_inner_steps_are_drawn_nested_and_folded_with_the_outer() -> None:
    sub, _bad = subtranscript_of(_delegating("e1", _running(steps=3)))
    folded, hidden = subtranscript_html(sub, lambda name: name, expanded=False, palette=LIGHT)
    assert folded.count("<table") == 2 and "It ran." in folded
    assert hidden == 1  # the inner sub-agent's first call: of its four steps (three calls, its words) three show
    unfolded, none = subtranscript_html(sub, lambda name: name, expanded=True, palette=LIGHT)
    assert none == 0 and unfolded.count("<b>run_command</b>") == 3
