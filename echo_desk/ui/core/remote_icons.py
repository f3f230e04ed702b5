"""Icons a server sent (checked PNG/JPEG/GIF/WebP bytes, see ``echo_desk.mcp.icons``) as
``QIcon``s, decoded once per image."""

from __future__ import annotations

import hashlib

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap

#: Shown at most this big; a server's 4,000-pixel "icon" is scaled down once, here.
ICON_PIXELS = 32
_decoded: dict[str, QIcon | None] = {}
_blank: QIcon | None = None


def remote_icon(data: bytes | None) -> QIcon | None:
    """The image as an icon; ``None`` when there is none or Qt cannot read it."""
    if not data:
        return None
    key = hashlib.sha256(data).hexdigest()
    if key not in _decoded:
        image = QImage.fromData(data)
        if image.isNull():
            _decoded[key] = None
        else:
            scaled = image.scaled(ICON_PIXELS, ICON_PIXELS, Qt.AspectRatioMode.KeepAspectRatio,
                                  Qt.TransformationMode.SmoothTransformation)
            _decoded[key] = QIcon(QPixmap.fromImage(scaled))
    return _decoded[key]


def blank_icon() -> QIcon:
    """A transparent icon: keeps a row's text in line with its neighbours' that have one."""
    global _blank
    if _blank is None:
        pixmap = QPixmap(ICON_PIXELS, ICON_PIXELS)
        pixmap.fill(QColor(0, 0, 0, 0))
        _blank = QIcon(pixmap)
    return _blank
