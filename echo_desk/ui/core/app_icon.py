"""The app's identity towards the desktop: its icon on every window, and its desktop-entry id.

The id is what Wayland compositors (and GNOME on X11) match to ``<id>.desktop`` to show the
right name and icon in the dock and the task switcher; see ``packaging/``.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication, QIcon

from echo_desk.resources import icon_files

APP_ID = "io.github.echodesk.EchoDesk"


def app_icon() -> QIcon:
    """Every PNG size plus the SVG: Qt picks a crisp bitmap per size (files load lazily)."""
    icon = QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    return icon


def apply_app_identity(app: QGuiApplication) -> None:
    """Set the icon every window inherits and the desktop-entry id."""
    app.setWindowIcon(app_icon())
    app.setDesktopFileName(APP_ID)
