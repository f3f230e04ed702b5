"""Run-time language switching for the Qt side.

Our own strings go through gettext (``echo_desk.i18n``); Qt's own buttons and dialogs
("OK", "Cancel", file dialogs) through ``qtbase_<lang>.qm`` with a ``QTranslator``. Widgets
connect ``bus().language_changed`` to their ``retranslate`` so a switch needs no restart.
"""

from __future__ import annotations

import re
import sys

from PySide6.QtCore import QLibraryInfo, QLocale, QObject, QTranslator, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication

from echo_desk import i18n


class LanguageBus(QObject):
    language_changed = Signal(str)


_bus: LanguageBus | None = None
_qt_translator: QTranslator | None = None


def bus() -> LanguageBus:
    global _bus
    if _bus is None:
        _bus = LanguageBus()
    return _bus


def apply_language(language: str | None) -> str:
    """Switch gettext and Qt's own translations; returns the language chosen (``en``/``zh_CN``)."""
    global _qt_translator
    chosen = i18n.set_language(language)
    app = QApplication.instance()
    if app is not None:
        if _qt_translator is not None:
            app.removeTranslator(_qt_translator)
            _qt_translator = None
        if chosen != "en":
            translator = QTranslator(app)
            folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
            if translator.load(f"qtbase_{chosen}", folder):
                app.installTranslator(translator)
                _qt_translator = translator
        QLocale.setDefault(QLocale(chosen))
    bus().language_changed.emit(chosen)
    return chosen


def qt_translation_loaded() -> bool:
    return _qt_translator is not None


#: Qt's portable key names written as VS Code writes them, in both languages (Enter, ←): Qt's own
#: Chinese names (回车, 左方向) are not what developers read on their keyboards.
_KEY_NAMES = {"Return": "Enter", "Left": "←", "Right": "→", "Up": "↑", "Down": "↓"}
_KEY_PART = re.compile(r"\b(" + "|".join(_KEY_NAMES) + r")\b")


def key_text(key: str | QKeySequence) -> str:
    """A shortcut as people read it: ``Ctrl+Enter``, ``Alt+←``; macOS keeps its own symbols (⌘⇧F)."""
    sequence = key if isinstance(key, QKeySequence) else QKeySequence(key)
    if sys.platform == "darwin":
        return sequence.toString(QKeySequence.SequenceFormat.NativeText)
    return _KEY_PART.sub(lambda m: _KEY_NAMES[m.group(1)], sequence.toString(QKeySequence.SequenceFormat.PortableText))
