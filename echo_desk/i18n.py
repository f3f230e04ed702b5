"""Run-time translation: gettext catalogs compiled from ``i18n/`` into ``echo_desk/locale``.

Strings are marked with ``N_()`` where declared and translated with ``_()`` where shown, so
switching the language at run time only needs ``set_language`` and a repaint.
"""

from __future__ import annotations

import gettext
import locale
import os
from collections.abc import Callable
from pathlib import Path

DOMAIN = "echo_desk"
LOCALE_DIR = Path(__file__).parent / "locale"
LANGUAGES = ("en", "zh_CN")
#: Each language named in itself, for the language choice (never translated).
LANGUAGE_NAMES = {"en": "English", "zh_CN": "简体中文"}

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = "en"
_listeners: list[Callable[[str], None]] = []
_domains: dict[tuple[str, str], gettext.NullTranslations] = {}


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


def translate_in(domain: str, message: str, localedir: Path | None = None) -> str:
    """Translate a plugin's catalog text from its own gettext domain (falls back to ours)."""
    if domain == DOMAIN or not message:
        return _(message)
    key = (domain, _language)
    if key not in _domains:
        _domains[key] = gettext.translation(domain, localedir, languages=[_language], fallback=True)
    translated = _domains[key].gettext(message)
    return translated if translated != message else _(message)
