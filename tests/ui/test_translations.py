"""The zh_CN catalog is complete: no untranslated or fuzzy entry, placeholders kept."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
ZH = ROOT / "i18n" / "zh_CN" / "LC_MESSAGES" / "echo_desk.po"
POT = ROOT / "i18n" / "messages.pot"
_PLACEHOLDER = re.compile(r"\{[a-z_]*(?:![rsa])?\}")


def _catalog(path: Path):
    with path.open("rb") as f:
        return read_po(f, locale="zh_CN" if "zh_CN" in str(path) else None)


def test_every_zh_cn_entry_is_translated_and_not_fuzzy():
    untranslated = [m.id for m in _catalog(ZH) if m.id and not m.string]
    fuzzy = [m.id for m in _catalog(ZH) if m.id and m.fuzzy]
    assert untranslated == [], f"untranslated zh_CN entries: {untranslated}"
    assert fuzzy == [], f"fuzzy zh_CN entries: {fuzzy}"


def test_the_zh_cn_catalog_covers_every_extracted_string():
    # A string added to the code but not merged into the .po would show in English.
    extracted = {m.id for m in _catalog(POT) if m.id}
    translated = {m.id for m in _catalog(ZH) if m.id}
    assert extracted - translated == set(), "run: python -m echo_desk.i18n_build extract, then translate"


def _forms(message) -> list[tuple[str, str]]:
    """(English, translation) for each form: a counted message's forms answer its plural English."""
    if isinstance(message.id, str):
        return [(message.id, message.string)]
    return [(message.id[-1], form) for form in message.string]


def test_placeholders_survive_translation():
    broken = [english for m in _catalog(ZH) if m.id and m.string for english, form in _forms(m)
              if sorted(_PLACEHOLDER.findall(english)) != sorted(_PLACEHOLDER.findall(form))]
    assert broken == []


def test_a_counted_message_has_each_form_translated():
    counted = [m for m in _catalog(ZH) if m.id and not isinstance(m.id, str)]
    assert counted, "the UI counts things with ngettext"
    assert [m.id for m in counted if not all(m.string)] == []


def test_helpers_use_each_languages_own_punctuation_and_deferred_text_follows_a_switch():
    import copy

    from echo_desk import i18n

    summary = i18n.deferred(i18n.N_("Change {path}"), path="/w/shop.py")  # built while English
    assert summary == "Change /w/shop.py" and copy.copy(summary).again() == "Change /w/shop.py"
    assert i18n.list_text(["a", "b"]) == "a, b" and i18n.labelled("File", "x") == "File: x"
    try:
        i18n.set_language("zh_CN")
        assert i18n.shown(summary) == "修改 /w/shop.py"
        assert i18n.shown("plain text") == "plain text"
        assert i18n.list_text(["a", "b"]) == "a、b"
        assert i18n.clause_text(["a", "b"]) == "a；b"
        assert i18n.labelled("文件", "x") == "文件：x"
        assert i18n.aside("shop.py", "已修改") == "shop.py（已修改）"
    finally:
        i18n.set_language("en")


def test_the_approval_heading_names_who_asks_in_both_languages():
    # Echo Desk's own chat and an MCP client are told apart by the first words of the heading.
    from echo_desk import i18n

    try:
        i18n.set_language("zh_CN")
        assert i18n._("Echo Desk wants to use “{tool}”").startswith("Echo Desk ")
        assert i18n._("{client}, through MCP, wants to use “{tool}”").startswith("{client} ")
    finally:
        i18n.set_language("en")
