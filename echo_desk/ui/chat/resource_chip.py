"""An attached MCP resource waiting above the prompt: its URI (plain, visible text), a thumbnail
for an image, "updated" when the server said it changed (the content is read again), and ×."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QStyle, QToolButton, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.chat.attachment_thumbs import thumbnail
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.mcp.resources import AttachedResource

THUMB = 48


class ResourceChip(QFrame):
    removed = Signal(object)

    def __init__(self, attached: AttachedResource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attached = attached
        #: Ends the subscription to the server's updates (set when subscribed).
        self.unsubscribe: Callable[[], None] | None = None
        self.updated_at: float | None = None
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 2, 2)
        self.thumb = QLabel()
        row.addWidget(self.thumb)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a URI is the server's: untrusted text
        row.addWidget(self.label)
        self.updated = QLabel()
        self.updated.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.updated, lambda p: f"color: {p.accent};")
        row.addWidget(self.updated)
        self.remove = QToolButton()
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(self.remove)
        self._show()
        self.retranslate()

    @property
    def uri(self) -> str:
        return self.attached.part.uri

    def replace(self, attached: AttachedResource) -> None:
        """The server said the resource changed: the new content goes with the message."""
        self.attached = attached
        self.updated_at = time.time()
        self._show()
        self.retranslate()

    def _show(self) -> None:
        part = self.attached.part
        pixmap = thumbnail(self.attached.image.data, THUMB) if self.attached.image is not None else None
        if pixmap is None:
            pixmap = self.style().standardIcon(QStyle.StandardPixmap.SP_FileLinkIcon).pixmap(16, 16)
        self.thumb.setPixmap(pixmap)
        self.label.setText(visible(part.uri, one_line=True))
        self.label.setToolTip(visible(f"{part.server}: {part.uri}"))

    def retranslate(self) -> None:
        if self.updated_at is not None:
            self.updated.setText(_("updated {time}").format(time=time.strftime("%H:%M:%S",
                                                                                   time.localtime(self.updated_at))))
        self.remove.setToolTip(_("Remove this attachment"))
        self.remove.setAccessibleName(_("Remove attachment {name}").format(name=visible(self.uri, one_line=True)))
