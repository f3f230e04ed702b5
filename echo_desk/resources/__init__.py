"""Files the app reads at run time (icons), found the same way from a source tree, an
installed wheel and a PyInstaller bundle: next to this module.

Qt-free on purpose (it returns paths); the UI turns them into a ``QIcon``::

    from echo_desk.resources import icon_files
    icon = QIcon()
    for path in icon_files():
        icon.addFile(str(path))
    app.setWindowIcon(icon)
"""

from __future__ import annotations

from pathlib import Path

RESOURCES_DIR = Path(__file__).resolve().parent
ICONS_DIR = RESOURCES_DIR / "icons"
ICON_NAME = "echo-desk"
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256)


def icon_path(size: int | None = None) -> Path:
    """The app icon: the SVG for ``size=None``, else the PNG of that size (one of ``ICON_SIZES``)."""
    if size is None:
        return ICONS_DIR / f"{ICON_NAME}.svg"
    if size not in ICON_SIZES:
        raise ValueError(f"no {size}px icon; sizes are {', '.join(map(str, ICON_SIZES))}")
    return ICONS_DIR / f"{ICON_NAME}-{size}.png"


def icon_files() -> list[Path]:
    """Every PNG size, smallest first, then the SVG: what a ``QIcon`` should be given, so Qt picks
    a crisp bitmap for title bars and task bars and scales the SVG only where no PNG fits."""
    return [icon_path(size) for size in ICON_SIZES] + [icon_path()]
