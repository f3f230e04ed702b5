"""The attachments waiting above the prompt: one chip per path (a thumbnail for an image) or MCP
resource, each with a remove button, and a line that says why something could not be attached."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QStyle, QToolButton, QVBoxLayout, QWidget

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _
from echo_desk.ui.chat.attachment_thumbs import thumbnail
from echo_desk.ui.chat.resource_chip import ResourceChip
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.agent.attachments import Attachment
    from echo_desk.mcp.resources import AttachedResource

#: Thumbnail edge in the prompt, in device-independent pixels.
THUMB = 48



class AttachmentChip(QFrame):
    removed = Signal(object)

    def __init__(self, attachment: Attachment, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attachment = attachment
        self.setFrameShape(QFrame.Shape.StyledPanel)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 2, 2, 2)
        self.thumb = QLabel()
        pixmap = thumbnail(attachment.image.data, THUMB) if attachment.image is not None else None
        if pixmap is not None:
            self.thumb.setPixmap(pixmap)
        else:  # the style's own icons: an emoji may have no glyph on the system
            kind = QStyle.StandardPixmap.SP_DirIcon if attachment.is_dir else QStyle.StandardPixmap.SP_FileIcon
            self.thumb.setPixmap(self.style().standardIcon(kind).pixmap(16, 16))
        row.addWidget(self.thumb)
        self.label = QLabel(visible(attachment.mention))  # a file name is untrusted text
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setToolTip(visible(str(attachment.real)))
        row.addWidget(self.label)
        self.remove = QToolButton()
        self.remove.setText("×")
        self.remove.setAutoRaise(True)
        self.remove.clicked.connect(lambda: self.removed.emit(self))
        row.addWidget(self.remove)
        self.retranslate()

    def retranslate(self) -> None:
        self.remove.setToolTip(_("Remove this attachment"))
        self.remove.setAccessibleName(_("Remove attachment {name}").format(name=self.attachment.real.name))


class AttachmentTray(QWidget):
    """Hidden while empty."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.chips_row = QHBoxLayout()
        self.chips_row.setContentsMargins(0, 0, 0, 0)
        self.chips_row.addStretch(1)
        outer.addLayout(self.chips_row)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.problem, lambda p: f"color: {p.danger};")
        self.problem.setVisible(False)
        outer.addWidget(self.problem)
        self.chips: list[AttachmentChip] = []
        self.resource_chips: list[ResourceChip] = []
        self._refresh()

    def add(self, attachment: Attachment) -> None:
        if any(c.attachment.real == attachment.real for c in self.chips):
            return  # the same path twice is one attachment
        chip = AttachmentChip(attachment)
        chip.removed.connect(self._remove)
        self.chips.append(chip)
        self.chips_row.insertWidget(len(self.chips) - 1, chip)
        self._refresh()

    def attachments(self) -> list[Attachment]:
        return [c.attachment for c in self.chips]

    def add_resource(self, attached: AttachedResource) -> ResourceChip | None:
        """A chip for an MCP resource (``None`` when that URI of that server is already attached)."""
        part = attached.part
        if any(c.attached.part.uri == part.uri and c.attached.part.server == part.server for c in self.resource_chips):
            return None
        chip = ResourceChip(attached)
        chip.removed.connect(self._remove_resource)
        self.resource_chips.append(chip)
        self.chips_row.insertWidget(len(self.chips) + len(self.resource_chips) - 1, chip)
        self._refresh()
        return chip

    def resources(self) -> list[AttachedResource]:
        return [c.attached for c in self.resource_chips]

    def clear(self) -> None:
        for chip in list(self.chips):
            self._remove(chip)
        for resource in list(self.resource_chips):
            self._remove_resource(resource)
        self.show_problem("")

    def show_problem(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))
        self._refresh()

    def retranslate(self) -> None:
        for chip in self.chips:
            chip.retranslate()
        for resource in self.resource_chips:
            resource.retranslate()

    def _remove_resource(self, chip: ResourceChip) -> None:
        if chip in self.resource_chips:
            self.resource_chips.remove(chip)
            if chip.unsubscribe is not None:
                chip.unsubscribe()  # no more updates for what is no longer attached
            chip.setParent(None)
            chip.deleteLater()
            self._refresh()

    def _remove(self, chip: AttachmentChip) -> None:
        if chip in self.chips:
            self.chips.remove(chip)
            chip.setParent(None)
            chip.deleteLater()
            self._refresh()

    def _refresh(self) -> None:
        self.setVisible(bool(self.chips) or bool(self.resource_chips) or bool(self.problem.text()))
        self.changed.emit()
