"""Run-time translation: gettext catalogs compiled from ``i18n/`` into ``echo_desk/locale``.

Strings are marked with ``N_()`` where declared and translated with ``_()`` where shown, so
switching the language at run time only needs ``set_language`` and a repaint.
"""

from __future__ import annotations

import gettext
import locale
import os
import string
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Literal, get_args

DOMAIN = "echo_desk"
LOCALE_DIR = Path(__file__).parent / "locale"
#: The languages Echo Desk speaks; settings store one of them (the one list: ``LANGUAGES``).
Language = Literal["en", "zh_CN"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
#: Each language named in itself, for the language choice (never translated).
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"
_listeners: list[Callable[[str], None]] = []
_domains: dict[tuple[str, str], gettext.NullTranslations] = {}
_locale_dirs: dict[str, Path | None] = {}


def system_language() -> str:
    """``zh_CN`` for a Chinese system locale, otherwise ``en``."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "zh_CN" if value.lower().startswith("zh") else "en"
    try:
        code = locale.getlocale()[0] or ""
    except ValueError:
        code = ""
    return "zh_CN" if code.lower().startswith("zh") else "en"


def set_language(language: str | None) -> str:
    """Switch every ``_()`` to ``language`` (``None`` = the system's). Returns the one chosen."""
    global _translation, _language
    chosen = language if language in LANGUAGES else system_language()
    # Pass the plain "zh_CN": Babel's own name zh_Hans_CN finds no catalog and falls back silently.
    _translation = gettext.translation(DOMAIN, LOCALE_DIR, languages=[chosen], fallback=True)
    _language = chosen
    _domains.clear()
    for listener in list(_listeners):
        listener(chosen)
    return chosen


def current_language() -> str:
    return _language


def on_language_changed(listener: Callable[[str], None]) -> Callable[[], None]:
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def _(message: str) -> str:
    return _translation.gettext(message) if message else message


def N_(message: str) -> str:
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a counted message that fits ``n`` ("1 rule", "2 rules"); Chinese has one form."""
    return _translation.ngettext(singular, plural, n)


def translate_in(domain: str, message: str, localedir: Path | None = None) -> str:
    """Translate a plugin's catalog text from its own gettext domain (falls back to ours).

    ``localedir`` holds ``<lang>/LC_MESSAGES/<domain>.mo`` or, with no build step, the ``.po``
    itself (see ``locale_dir_of``)."""
    if domain == DOMAIN or not message:
        return _(message)
    key = (domain, _language)
    if key not in _domains:
        _domains[key] = _plugin_catalog(domain, localedir, _language)
    translated = _domains[key].gettext(message)
    return translated if translated != message else _(message)


def said_by_tool(tool: object, text: str) -> str:
    """What a tool says to the person (why it is not ready), in the language of the moment:
    Echo Desk's own (``deferred``, ``for_person``: its ``str`` is the model's English) with
    ``shown``; a plugin's plain message id through the plugin's own catalog (``translate_in``)."""
    if isinstance(text, Deferred):
        return shown(text)
    return translate_in(getattr(tool, "translation_domain", DOMAIN), text, locale_dir_of(type(tool)))


def locale_dir_of(tool_class: type) -> Path | None:
    """Where a plugin ships its catalogs: the ``locale`` folder of the package defining the tool."""
    name = tool_class.__module__
    if name not in _locale_dirs:  # asked for every title the catalog draws
        _locale_dirs[name] = _find_locale_dir(name)
    return _locale_dirs[name]


def _find_locale_dir(module_name: str) -> Path | None:
    module = sys.modules.get(module_name)
    top = sys.modules.get(module_name.split(".")[0])
    for candidate in (module, top):
        file = getattr(candidate, "__file__", None)
        if file and (Path(file).parent / "locale").is_dir():
            return Path(file).parent / "locale"
    return None


class _PoTranslations(gettext.NullTranslations):
    """A plugin's ``.po`` read as it is (translated, non-fuzzy entries), so a plugin needs no build step."""

    def __init__(self, po: Path) -> None:
        super().__init__()
        from babel.messages.pofile import read_po  # only for plugins that ship a .po

        with po.open("rb") as f:
            catalog = read_po(f)
        self._strings = {m.id: m.string for m in catalog
                         if m.id and isinstance(m.id, str) and isinstance(m.string, str) and m.string and not m.fuzzy}

    def gettext(self, message: str) -> str:
        return self._strings.get(message, message)


def _plugin_catalog(domain: str, localedir: Path | None, language: str) -> gettext.NullTranslations:
    if localedir is not None:
        po = localedir / language / "LC_MESSAGES" / f"{domain}.po"
        if not (po.with_suffix(".mo")).exists() and po.exists():
            return _PoTranslations(po)
    return gettext.translation(domain, localedir, languages=[language], fallback=True)


def list_text(items: Iterable[str]) -> str:
    """Names in a row, with the language's own separator ("a, b" / "a、b")."""
    return _(", ").join(items)


def clause_text(items: Iterable[str]) -> str:
    """Clauses in a row ("a; b" / "a；b")."""
    return _("; ").join(items)


def labelled(label: str, value: str) -> str:
    """"Label: value" with the language's own colon ("标签：值")."""
    return _("{label}: {value}").format(label=label, value=value)


def sentences(*parts: str) -> str:
    """Sentences in a row: a space between them in English, none after Chinese 。."""
    text = ""
    for part in parts:
        text = _("{first} {second}").format(first=text, second=part) if text else part
    return text


def quoted(code: str) -> str:
    """A pattern, a command or an id inside a sentence, in the language's quotes (“git status **”):
    a Qt label shows Markdown backticks as they are."""
    return _("“{code}”").format(code=code)


def quoted_later(code: str) -> str:
    """``quoted(code)`` kept re-translatable (``deferred``): a name inside a text the person reads
    later (an error's words for them, ``for_person``)."""
    return deferred("“{code}”", code=code)


def aside(text: str, note: str) -> str:
    """"text (note)" with the language's own brackets ("文本（注）")."""
    return _("{text} ({note})").format(text=text, note=note)


class Deferred(str):
    """Text translated now that can be translated again after a language switch.

    The engine builds some text shown much later (an approval's summary line); it passes a
    ``Deferred`` (a plain ``str`` to everything else) so the UI can show it in the language of
    the moment with ``shown()``.
    """

    msgid: str
    params: dict[str, object]
    #: Whether the text itself is already the model's English (``for_person``), not a translation.
    is_for_model: bool = False

    def __new__(cls, text: str, msgid: str = "", params: dict[str, object] | None = None) -> Deferred:
        made = super().__new__(cls, text)
        made.msgid, made.params = msgid or text, dict(params or {})
        return made

    def again(self) -> str:
        return _(self.msgid).format(**_shown_params(self.params)) if self.params else _(self.msgid)


def deferred(msgid: str, **params: object) -> str:
    """``_(msgid).format(**params)``, kept re-translatable (see ``Deferred``); a parameter that is
    itself deferred is shown in the same language."""
    return Deferred(_(msgid).format(**_shown_params(params)) if params else _(msgid), msgid, params)


def for_person(model_text: str, msgid: str, **params: object) -> str:
    """``model_text`` as it is (English: the model reads it), shown to the person as ``msgid`` in
    the language of the moment (``shown``): an error's words for the person, without the hints
    written for the model."""
    made = Deferred(model_text, msgid, params)
    made.is_for_model = True
    return made


def for_model(text: str) -> str:
    """What the model (or an MCP client's model) reads for ``text``: English whatever the
    person's language. A ``for_person`` text's own words; a ``deferred`` one's message id with
    its parameters alike (its ``str`` is the translation of the moment); plain text as it is."""
    if not isinstance(text, Deferred) or text.is_for_model:
        return str(text)
    if not text.params:
        return text.msgid
    params = {key: ", ".join(for_model(v) if isinstance(v, str) else str(v) for v in value)
              if isinstance(value, tuple) else
              for_model(value) if isinstance(value, Deferred) else value for key, value in text.params.items()}
    try:
        return text.msgid.format(**params)
    except (KeyError, IndexError, ValueError):  # a message id that is not a format after all
        return str(text)


def _shown_params(params: dict[str, object]) -> dict[str, object]:
    # A tuple of names is listed with the language's own separator ("a, b" / "a、b").
    return {k: v.again() if isinstance(v, Deferred) else list_text(shown(x) for x in v) if isinstance(v, tuple) else v
            for k, v in params.items()}


def shown(text: str) -> str:
    """``text`` in the current language if it was built with ``deferred``, else as it is."""
    return text.again() if isinstance(text, Deferred) else text


def deferred_as_json(text: str) -> dict[str, object] | None:
    """What makes ``text`` re-translatable, as JSON (stored with a conversation, so a reopened
    card speaks the language of the moment too); ``None`` for plain text."""
    if not isinstance(text, Deferred):
        return None
    kept: dict[str, object] = {"msgid": text.msgid, "params": {k: _param_as_json(v) for k, v in text.params.items()}}
    if text.is_for_model:  # its words are the model's own English, not the message id's
        kept["for_model"] = True
    return kept


def _param_as_json(value: object) -> object:
    if isinstance(value, Deferred):
        return {"deferred": {"text": str(value), **(deferred_as_json(value) or {})}}
    if isinstance(value, tuple | list):
        return {"list": [_param_as_json(v) for v in value]}
    if value is None or isinstance(value, bool | int | float):
        return value
    return str(value)


def deferred_from_json(text: str, stored: object) -> str:
    """``text`` made re-translatable again from what ``deferred_as_json`` stored (a ``for_person``
    text stays one: ``for_model`` reads its own words); ``text`` as it is when the stored value
    does not read back. It comes from a file the person can edit, so
    a message is only formatted when each of its fields is a plain name given a value: a field
    such as ``{x.__class__}`` would read attributes, a missing one would raise."""
    if not isinstance(stored, dict):
        return text
    msgid, params = stored.get("msgid"), stored.get("params")
    if not isinstance(msgid, str) or not isinstance(params, dict):
        return text
    restored = {k: _param_from_json(v) for k, v in params.items() if isinstance(k, str)}
    if not all(_formats_safely(m, restored) for m in (msgid, _(msgid))):
        return text
    made = Deferred(text, msgid, restored)
    made.is_for_model = stored.get("for_model") is True
    return made


def _param_from_json(value: object) -> object:
    if isinstance(value, dict) and isinstance(value.get("list"), list):
        return tuple(_param_from_json(v) for v in value["list"])
    if isinstance(value, dict) and isinstance(value.get("deferred"), dict):
        inner = value["deferred"]
        text = inner.get("text")
        return deferred_from_json(text, inner) if isinstance(text, str) else ""
    return value if value is None or isinstance(value, str | bool | int | float) else str(value)


def _formats_safely(message: str, params: dict[str, object]) -> bool:
    try:
        fields = [(name, spec, conversion) for _text, name, spec, conversion in string.Formatter().parse(message)
                  if name is not None]
    except ValueError:
        return False
    return all(name in params and name.isidentifier() and not spec and conversion is None
               for name, spec, conversion in fields)
