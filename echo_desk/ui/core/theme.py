"""The one palette of the UI: every colour a widget, card or document uses comes from here.

Two variants, light and dark. The person picks System / Light / Dark in General settings;
"System" follows Qt's colour scheme (``QStyleHints.colorScheme``, Qt 6.5+) and its changes live.
A switch needs no restart: the application palette is replaced, ``manager().changed`` fires, and
widgets that build style sheets or HTML from the palette rebuild them (see ``styled``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFontInfo, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget


class ThemeChoice(enum.StrEnum):
    """What the person chose in General settings (``Settings.theme``)."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


@dataclass(frozen=True)
class Palette:
    """Named colour roles (``#rrggbb`` strings, usable in style sheets, HTML and ``QColor``)."""

    name: str
    window: str
    base: str
    text: str
    muted: str
    faint: str
    border: str
    accent: str
    link: str
    ok: str
    warn: str
    danger: str
    denied: str
    warn_bg: str
    warn_border: str
    danger_bg: str
    danger_text: str
    user_bubble: str
    user_border: str
    assistant_bubble: str
    assistant_border: str
    card: str
    card_border: str
    code_bg: str
    code_border: str
    inline_code_bg: str
    table_header: str
    diff_add: str
    diff_delete: str
    diff_hunk: str
    diff_meta: str
    diff_filler: str
    selection: str
    #: Find in the conversation: every match, and the current one.
    find_match: str
    find_current: str
    # Syntax colours for code blocks (Pygments token families, see ``code_highlight``).
    syn_keyword: str
    syn_string: str
    syn_comment: str
    syn_number: str
    syn_function: str
    syn_type: str
    syn_operator: str

    def qcolor(self, role: str) -> QColor:
        """The colour of ``role`` (a field name) as a ``QColor``."""
        return QColor(str(getattr(self, role)))


LIGHT = Palette(
    name="light", window="#f6f8fa", base="#ffffff", text="#1f2328", muted="#57606a", faint="#8c959f",
    border="#d0d7de", accent="#0969da", link="#0969da", ok="#1a7f37", warn="#9a6700", danger="#cf222e",
    denied="#8250df", warn_bg="#fff8c5", warn_border="#d4a72c", danger_bg="#ffebe9", danger_text="#82071e",
    user_bubble="#ddf4ff", user_border="#b6e3ff", assistant_bubble="#ffffff", assistant_border="#ffffff",
    card="#f6f8fa", card_border="#d0d7de", code_bg="#f6f8fa", code_border="#d0d7de", inline_code_bg="#eff1f3",
    table_header="#eaeef2", diff_add="#e6ffec", diff_delete="#ffebe9", diff_hunk="#ddf4ff", diff_meta="#f6f8fa",
    diff_filler="#f0f0f0", selection="#b6e3ff", find_match="#fff8c5", find_current="#ffb77c",
    syn_keyword="#cf222e", syn_string="#0a3069", syn_comment="#6e7781", syn_number="#0550ae",
    syn_function="#8250df", syn_type="#953800", syn_operator="#24292f",
)

DARK = Palette(
    name="dark", window="#161b22", base="#0d1117", text="#e6edf3", muted="#9198a1", faint="#6e7681",
    border="#30363d", accent="#4493f8", link="#4493f8", ok="#3fb950", warn="#d29922", danger="#f85149",
    denied="#ab7df8", warn_bg="#3a2e05", warn_border="#9e6a03", danger_bg="#490202", danger_text="#ffa198",
    user_bubble="#122d4f", user_border="#1f6feb", assistant_bubble="#0d1117", assistant_border="#0d1117",
    card="#161b22", card_border="#30363d", code_bg="#161b22", code_border="#30363d", inline_code_bg="#262c36",
    table_header="#21262d", diff_add="#12261e", diff_delete="#25171c", diff_hunk="#121d2f", diff_meta="#161b22",
    diff_filler="#1c2128", selection="#1f6feb", find_match="#5c4700", find_current="#9e4c00",
    syn_keyword="#ff7b72", syn_string="#a5d6ff", syn_comment="#8b949e", syn_number="#79c0ff",
    syn_function="#d2a8ff", syn_type="#ffa657", syn_operator="#e6edf3",
)


def _system_is_dark() -> bool:
    app = QGuiApplication.instance()
    if app is None:
        return False
    hints = QGuiApplication.styleHints()
    return bool(hints.colorScheme() == Qt.ColorScheme.Dark)


def resolve(choice: ThemeChoice | str | None) -> Palette:
    """The palette for ``choice``; ``system`` (or nothing) asks Qt's colour scheme."""
    value = ThemeChoice(choice) if choice else ThemeChoice.SYSTEM
    if value is ThemeChoice.DARK or (value is ThemeChoice.SYSTEM and _system_is_dark()):
        return DARK
    return LIGHT


def qt_palette(p: Palette) -> QPalette:
    """The ``QPalette`` that gives plain widgets (buttons, lists, edits) the same colours."""
    pal = QPalette()
    roles = {
        QPalette.ColorRole.Window: p.window, QPalette.ColorRole.WindowText: p.text,
        QPalette.ColorRole.Base: p.base, QPalette.ColorRole.AlternateBase: p.window,
        QPalette.ColorRole.Text: p.text, QPalette.ColorRole.Button: p.window,
        QPalette.ColorRole.ButtonText: p.text, QPalette.ColorRole.ToolTipBase: p.base,
        QPalette.ColorRole.ToolTipText: p.text, QPalette.ColorRole.PlaceholderText: p.faint,
        QPalette.ColorRole.Highlight: p.accent, QPalette.ColorRole.HighlightedText: p.base,
        QPalette.ColorRole.Link: p.link, QPalette.ColorRole.LinkVisited: p.denied,
        QPalette.ColorRole.Mid: p.border, QPalette.ColorRole.Midlight: p.border,
        QPalette.ColorRole.Dark: p.faint, QPalette.ColorRole.Light: p.base,
    }
    for role, colour in roles.items():
        pal.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(p.faint))
    return pal


class ThemeManager(QObject):
    """Holds the current palette and the person's choice; ``changed`` fires after a switch."""

    changed = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.choice = ThemeChoice.SYSTEM
        self.palette = LIGHT
        self._watching = False

    def apply(self, choice: ThemeChoice | str | None = None) -> Palette:
        """Use ``choice`` (or the current one again) for the whole application, at once."""
        if choice is not None:
            self.choice = ThemeChoice(choice)
        app = QApplication.instance()
        if app is not None and not self._watching:
            # "System" follows the desktop when it switches between light and dark.
            QGuiApplication.styleHints().colorSchemeChanged.connect(self._on_system_scheme)
            self._watching = True
        self.palette = resolve(self.choice)
        if isinstance(app, QApplication):
            app.setPalette(qt_palette(self.palette))
            _add_cjk_fallbacks(app)
        self.changed.emit(self.palette)
        return self.palette

    def _on_system_scheme(self, *_args: object) -> None:
        if self.choice is ThemeChoice.SYSTEM:
            self.apply()


#: Chinese fonts behind the UI font, best matching first (Noto/Source Han share their design
#: with the Latin sans fonts of most desktops; WenQuanYi is what Debian installs here).
CJK_FALLBACKS = ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
                 "WenQuanYi Micro Hei")


def _add_cjk_fallbacks(app: QApplication) -> None:
    font = app.font()
    if CJK_FALLBACKS[0] in font.families():
        return
    # The family the system really resolved ("Sans Serif" is an alias): named first, so Latin
    # text keeps the desktop's font and only Chinese falls through to the CJK ones.
    latin = QFontInfo(font).family()
    font.setFamilies([latin, *(f for f in CJK_FALLBACKS if f != latin)])
    app.setFont(font)


_manager: ThemeManager | None = None


def manager() -> ThemeManager:
    """The application's one theme manager."""
    global _manager
    if _manager is None:
        _manager = ThemeManager()
    return _manager


def current() -> Palette:
    """The palette in use now (read it when rendering, never cache it in a module)."""
    return manager().palette


def apply_theme(choice: ThemeChoice | str | None) -> Palette:
    """Switch the whole application to ``choice`` (General settings, start-up)."""
    return manager().apply(choice)


class _Restyler(QObject):
    # A child of the widget: when the widget goes, so does the connection.
    def __init__(self, widget: QWidget, build: Callable[[Palette], str]) -> None:
        super().__init__(widget)
        self._widget = widget
        self._build = build
        manager().changed.connect(self.restyle)

    def restyle(self, palette: Palette) -> None:
        self._widget.setStyleSheet(self._build(palette))


def styled(widget: QWidget, build: Callable[[Palette], str]) -> None:
    """Give ``widget`` the style sheet ``build(palette)`` now and again after every switch."""
    widget.setStyleSheet(build(current()))
    _Restyler(widget, build)


def on_change(owner: QObject, callback: Callable[[Palette], None]) -> None:
    """Call ``callback(palette)`` after every switch while ``owner`` lives."""
    relay = _Relay(owner, callback)
    manager().changed.connect(relay.fire)


class _Relay(QObject):
    def __init__(self, owner: QObject, callback: Callable[[Palette], None]) -> None:
        super().__init__(owner)
        self._callback = callback

    def fire(self, palette: Palette) -> None:
        self._callback(palette)


def colour(role: str) -> str:
    """The ``#rrggbb`` of palette ``role`` (a ``Palette`` field name) in the current theme."""
    return str(getattr(current(), role))


def tint(colour_hex: str, over: str, amount: float) -> str:
    """``colour_hex`` laid at ``amount`` (0–1) opacity over ``over``: a chip's background."""
    a, b = QColor(colour_hex), QColor(over)
    mix = QColor(round(a.red() * amount + b.red() * (1 - amount)),
                 round(a.green() * amount + b.green() * (1 - amount)),
                 round(a.blue() * amount + b.blue() * (1 - amount)))
    return str(mix.name())
