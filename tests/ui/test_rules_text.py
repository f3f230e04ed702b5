"""Every reason the engine gives for a command it cannot allow has words in the person's language."""

from __future__ import annotations

from echo_desk import i18n
from echo_desk.agent.permissions import Opaque, Part, Provenance
from echo_desk.agent.permissions.model import Decider
from echo_desk.ui.core.rules_text import OPAQUE_LABELS, part_reason


def test_every_opaque_reason_is_worded_in_english_and_chinese() -> None:
    assert set(OPAQUE_LABELS) == set(Opaque)
    part = Part(text="echo $(id)", effect=None, opaque=Opaque.DYNAMIC_ARGUMENT,
                provenance=Provenance(kind=Decider.OPAQUE, detail=Opaque.DYNAMIC_ARGUMENT.value))
    english = part_reason(part)
    try:
        i18n.set_language("zh_CN")
        for why in Opaque:
            worded = i18n._(OPAQUE_LABELS[why])
            assert worded != OPAQUE_LABELS[why] and any("\u4e00" <= c <= "\u9fff" for c in worded), why
        assert part_reason(part) != english
    finally:
        i18n.set_language("en")


def test_every_reason_a_part_asks_is_shown() -> None:
    """(s193: ``ruff check .`` showed only the write deny below ``.``, not the settings the agent
    may write, which make it ask as well.)"""
    part = Part(text="ruff check .", effect=None, also=(Opaque.AGENT_SETTINGS,),
                provenance=Provenance(kind=Decider.DEFAULT, detail="no rule matches"))
    assert i18n._(OPAQUE_LABELS[Opaque.AGENT_SETTINGS]) in part_reason(part)
