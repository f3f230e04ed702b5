"""Thumbnails of a message's attached images inside its transcript document."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QPixmap, QTextDocument

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.chat_messages import AttachmentRef, ImagePart, ResourcePart

#: Thumbnail edge in a message, in device-independent pixels.
MESSAGE_THUMB = 96


def thumbnail(data: bytes, edge: int) -> QPixmap | None:
    """A pixmap of at most ``edge``×``edge`` from image bytes, or ``None`` when Qt cannot decode them."""
    pixmap = QPixmap()
    if not pixmap.loadFromData(data):
        return None
    if pixmap.width() <= edge and pixmap.height() <= edge:
        return pixmap
    return pixmap.scaled(edge, edge, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)


def attachments_html(doc: QTextDocument, images: Sequence[ImagePart], attachments: Sequence[AttachmentRef],
                     resources: Sequence[ResourcePart] = ()) -> str:
    """A message's attached paths and MCP resources (a translated line each) and its images as
    thumbnails (each registered as a resource of ``doc``; an image Qt cannot decode is named instead)."""
    named = ""
    style = f"color:{theme.current().muted}; white-space:pre-wrap"
    if attachments:
        line = _("Attached: {paths}").format(paths=list_text(visible(a.mention) for a in attachments))
        named = f"<div style='{style}'>{html.escape(line)}</div>"
    for resource in resources:
        line = _("MCP resource from {server}: {uri}").format(server=visible(resource.server, one_line=True),
                                                            uri=visible(resource.uri, one_line=True))
        named += f"<div style='{style}'>{html.escape(line)}</div>"
    if not images:
        return named
    cells = []
    for number, image in enumerate(images):
        pixmap = thumbnail(image.data, MESSAGE_THUMB)
        if pixmap is None:
            cells.append(f"<span>[{html.escape(image.name or image.mime)}]</span>&nbsp;")
            continue
        url = f"attachment-image:{number}"
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(url), pixmap)
        cells.append(f"<img src='{url}' width='{pixmap.width()}' height='{pixmap.height()}'>&nbsp;")
    return named + "<div>" + "".join(cells) + "</div>"
