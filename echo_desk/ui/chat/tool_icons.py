"""One small icon per tool family for the tool cards, drawn with ``QPainter`` (no image files,
no dependence on which emoji font is installed) at twice the size, so they stay sharp on
high-DPI screens.

The family comes from what the tool declares (``permissions.grammar_of`` of the built-in's
class) and its ``ToolSource``: the UI does not guess what a tool does from its name.
"""

from __future__ import annotations

import enum
from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import QColor, QImage, QPainter, QPainterPath, QPen, QTextDocument

from echo_desk.agent.sources import SourceKind, ToolSource

#: Shown size in device-independent pixels; drawn at ``_SCALE`` times that.
ICON_SIZE = 14
_SCALE = 3
_SEARCH_TOOLS = frozenset({"search_files", "web_search"})


class ToolFamily(enum.StrEnum):
    FILES = "files"
    EDIT = "edit"
    SHELL = "shell"
    WEB = "web"
    SEARCH = "search"
    MCP = "mcp"
    DATABASE = "database"
    AGENT = "agent"
    OTHER = "other"


_FROM_ENGINE = {"read": ToolFamily.FILES, "write": ToolFamily.EDIT, "shell": ToolFamily.SHELL,
                "fetch": ToolFamily.WEB, "mcp": ToolFamily.MCP, "db": ToolFamily.DATABASE}


def tool_family(name: str, source: ToolSource | None = None) -> ToolFamily:
    """The icon family of tool ``name`` (``source``: where the registry says it comes from)."""
    if source is not None and source.kind is SourceKind.MCP:
        return ToolFamily.MCP
    if name in _SEARCH_TOOLS:
        return ToolFamily.SEARCH
    if name == "delegate":
        return ToolFamily.AGENT
    if name.startswith("db_"):
        return ToolFamily.DATABASE
    # Imported here: the permission engine (and its shell parser) loads when the first card is
    # drawn, not before the window's first frame.
    from echo_desk.agent.permissions import grammar_of
    from echo_desk.builtins import BUILTIN_CLASSES

    declared = next((cls for cls in BUILTIN_CLASSES if cls.name == name), None)
    if declared is None:
        return ToolFamily.OTHER
    return _FROM_ENGINE.get(grammar_of(declared).value, ToolFamily.OTHER)


def icon_url(family: ToolFamily, colour: str) -> QUrl:
    """The resource name of ``family``'s icon in ``colour`` (see ``add_icon``)."""
    return QUrl(f"echo-desk-icon:{family.value}/{colour.lstrip('#')}")


def add_icon(doc: QTextDocument, family: ToolFamily, colour: str) -> str:
    """Register the icon on ``doc`` and return the ``<img>`` tag that shows it."""
    url = icon_url(family, colour)
    doc.addResource(QTextDocument.ResourceType.ImageResource, url, icon_image(family, colour))
    return (f"<img src='{url.toString()}' width='{ICON_SIZE}' height='{ICON_SIZE}' "
            "style='vertical-align:middle'>")


@lru_cache(maxsize=64)
def icon_image(family: ToolFamily, colour: str) -> QImage:
    """The icon, drawn at ``_SCALE``× its shown size with a transparent background."""
    side = ICON_SIZE * _SCALE
    image = QImage(side, side, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(_SCALE, _SCALE)
    pen = QPen(QColor(colour), 1.3)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    _DRAW.get(family, _draw_other)(painter)
    painter.end()
    return image


def _draw_files(p: QPainter) -> None:
    path = QPainterPath()
    path.moveTo(3, 1.5)
    path.lineTo(8.5, 1.5)
    path.lineTo(11.5, 4.5)
    path.lineTo(11.5, 12.5)
    path.lineTo(3, 12.5)
    path.closeSubpath()
    p.drawPath(path)
    p.drawPolyline([QPointF(8.5, 1.5), QPointF(8.5, 4.5), QPointF(11.5, 4.5)])
    for y in (7.0, 9.5):
        p.drawLine(QPointF(5, y), QPointF(9.5, y))


def _draw_edit(p: QPainter) -> None:
    path = QPainterPath()
    path.moveTo(2, 12)
    path.lineTo(2.8, 9)
    path.lineTo(9.5, 2.3)
    path.lineTo(11.7, 4.5)
    path.lineTo(5, 11.2)
    path.closeSubpath()
    p.drawPath(path)
    p.drawLine(QPointF(8.2, 3.6), QPointF(10.4, 5.8))


def _draw_shell(p: QPainter) -> None:
    p.drawRoundedRect(QRectF(1.2, 2, 11.6, 10), 1.5, 1.5)
    p.drawPolyline([QPointF(3.5, 5), QPointF(5.5, 7), QPointF(3.5, 9)])
    p.drawLine(QPointF(7, 9.2), QPointF(10, 9.2))


def _draw_web(p: QPainter) -> None:
    p.drawEllipse(QRectF(1.5, 1.5, 11, 11))
    p.drawEllipse(QRectF(4.5, 1.5, 5, 11))
    p.drawLine(QPointF(1.5, 7), QPointF(12.5, 7))


def _draw_search(p: QPainter) -> None:
    p.drawEllipse(QRectF(1.5, 1.5, 7.5, 7.5))
    p.drawLine(QPointF(8, 8), QPointF(12.3, 12.3))


def _draw_mcp(p: QPainter) -> None:
    # A plug: two prongs, a body, a cable.
    p.drawLine(QPointF(5, 1.5), QPointF(5, 4.5))
    p.drawLine(QPointF(9, 1.5), QPointF(9, 4.5))
    p.drawRoundedRect(QRectF(3, 4.5, 8, 4.5), 1.5, 1.5)
    p.drawLine(QPointF(7, 9), QPointF(7, 12.5))


def _draw_database(p: QPainter) -> None:
    p.drawEllipse(QRectF(2.5, 1.5, 9, 3.5))
    p.drawLine(QPointF(2.5, 3.25), QPointF(2.5, 10.75))
    p.drawLine(QPointF(11.5, 3.25), QPointF(11.5, 10.75))
    p.drawArc(QRectF(2.5, 9, 9, 3.5), 180 * 16, 180 * 16)
    p.drawArc(QRectF(2.5, 5.5, 9, 3.5), 180 * 16, 180 * 16)


def _draw_agent(p: QPainter) -> None:
    p.drawEllipse(QRectF(4.5, 1.5, 5, 5))
    p.drawArc(QRectF(2, 8, 10, 8), 0, 180 * 16)


def _draw_other(p: QPainter) -> None:
    p.drawEllipse(QRectF(2, 2, 10, 10))
    p.drawEllipse(QRectF(5.5, 5.5, 3, 3))


_DRAW = {ToolFamily.FILES: _draw_files, ToolFamily.EDIT: _draw_edit, ToolFamily.SHELL: _draw_shell,
         ToolFamily.WEB: _draw_web, ToolFamily.SEARCH: _draw_search, ToolFamily.MCP: _draw_mcp,
         ToolFamily.DATABASE: _draw_database, ToolFamily.AGENT: _draw_agent, ToolFamily.OTHER: _draw_other}
