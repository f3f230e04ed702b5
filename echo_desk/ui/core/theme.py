"""The one palette of the UI: every colour a widget, card or document uses comes from here.

Two variants, light and dark. The person picks System / Light / Dark in General settings;
"System" follows Qt's colour scheme (``QStyleHints.colorScheme``, Qt 6.5+) and its changes live.
A switch needs no restart: the application palette is replaced, ``manager().changed`` fires, and
widgets that build style sheets or HTML from the palette rebuild them (see ``styled``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QFontInfo, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QWidget

# The palettes are plain data (no Qt): the card HTML is rendered from them without Qt.
from echo_desk.ui.core.field_edges import field_style_sheet, install_field_edge_style
from echo_desk.ui.core.palette import DARK as DARK
from echo_desk.ui.core.palette import LIGHT as LIGHT
from echo_desk.ui.core.palette import Palette as Palette
from echo_desk.ui.core.palette import tint as tint
from echo_desk.ui.core.palette import use


class ThemeChoice(enum.StrEnum):
    """What the person chose in General settings (``Settings.theme``)."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


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
        use(self.palette)
        if isinstance(app, QApplication):
            # The style first (a new one polishes every widget), the sheet last: Qt polishes
            # widgets again with the palette in place when a sheet is set.
            install_field_edge_style(app)
            app.setPalette(qt_palette(self.palette))
            app.setStyleSheet(field_style_sheet(self.palette))  # every field's edge (``field_edges``)
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
