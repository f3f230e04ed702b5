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


def test_chinese_phrases_space_names_from_chinese_and_set_quotes_against_it() -> None:
    """A client's name is Latin text: a space either side in Chinese ("针对 Cursor 的规则"); a quoted
    pattern sits against Chinese with none ("授权“git status **”"), as the built-in rule's does."""
    from pathlib import Path

    from echo_desk.agent.permissions.model import Effect, Examples, Family, Layer, Rule, RuleSource
    from echo_desk.store.grants import Grant, GrantScope
    from echo_desk.ui.core.rules_text import decided_by, rule_phrase, rule_tool

    rule = Rule(effect=Effect.ALLOW, tool="shell", family=Family.SHELL, pattern="git status **", reason="",
                examples=Examples(), source=RuleSource(layer=Layer.USER, path=Path("/c/permissions.toml"), line=4),
                clients=("cursor",))
    grant = Grant(id="g", tool="shell", pattern="git status **", scope=GrantScope.CONVERSATION, created_at=0.0,
                  created_by_call="c")
    try:
        i18n.set_language("zh_CN")
        assert rule_tool(rule) == "shell（针对 Cursor）"
        assert "中针对 Cursor 的规则“git status **”" in rule_phrase(rule)
        assert decided_by(Provenance(kind=Decider.GRANT, grant=grant)).startswith("授权“git status **”")
    finally:
        i18n.set_language("en")
