"""Attaching MCP resources from the chat window: the panel, the chips, the subscriptions.

A resource attached with "keep it up to date" is read again whenever its server says it
changed, until the message is sent or the chip removed (then the subscription ends).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from echo_desk.common.coalesced import Coalesced
from echo_desk.i18n import _, shown
from echo_desk.ui.core import marshal

if TYPE_CHECKING:
    from echo_desk.chat_messages import ImagePart, ResourcePart
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.resources import AttachedResource
    from echo_desk.ui.chat.attachment_tray import AttachmentTray
    from echo_desk.ui.chat.resource_chip import ResourceChip
    from echo_desk.ui.chat.resource_panel import ResourcePanel


class ResourceFlow:
    def __init__(self, tray: AttachmentTray, parent: QWidget, manager: Callable[[], McpManager | None]) -> None:
        self.tray = tray
        self.parent = parent
        self._manager = manager
        self.panel: ResourcePanel | None = None

    def open_panel(self) -> None:
        from echo_desk.ui.chat.resource_panel import ResourcePanel

        manager = self._manager()
        if manager is None:
            self.tray.show_problem(_("No MCP servers are configured (Settings › MCP servers)."))
            return
        panel = ResourcePanel(manager, self.parent)
        panel.attached.connect(self.attach)
        panel.finished.connect(lambda _result: setattr(self, "panel", None))
        self.panel = panel
        panel.open()

    def attach(self, attached: AttachedResource, keep_updated: bool) -> None:
        chip = self.tray.add_resource(attached)
        if chip is not None and keep_updated:
            marshal.spawn(self._subscribe(chip))

    def parts(self) -> tuple[tuple[ResourcePart, ...], tuple[ImagePart, ...]]:
        """What the next message carries: the resources' text parts and their images."""
        attached = self.tray.resources()
        return (tuple(a.part for a in attached), tuple(a.image for a in attached if a.image is not None))

    async def _subscribe(self, chip: ResourceChip) -> None:
        from echo_desk.mcp.resources import ResourceError

        manager = self._manager()
        if manager is None:
            return

        # A server may say "changed" as often as it likes: one hop to this thread waits at a
        # time, and one read at a time, the next one after it if more came meanwhile.
        rereads = Coalesced(lambda: self._reread(chip))
        queued = threading.Event()

        def changed(_uri: str) -> None:  # on the manager's thread
            if not queued.is_set():
                queued.set()
                marshal.run_on_main(self._changed, chip, rereads, queued)

        try:
            stop = await manager.subscribe_resource(chip.attached.part.server, chip.uri, changed)
        except ResourceError as exc:
            self.tray.show_problem(_("Updates of {uri} are not available: {reason}").format(
                uri=chip.uri, reason=shown(exc.text)))
            return
        if chip in self.tray.resource_chips:
            chip.unsubscribe = stop
        else:
            stop()  # removed (or sent) while subscribing

    def _changed(self, chip: ResourceChip, rereads: Coalesced, queued: threading.Event) -> None:
        queued.clear()  # before reading: a change from now on is read after this read
        if chip in self.tray.resource_chips:
            marshal.spawn(rereads.run())

    async def _reread(self, chip: ResourceChip) -> None:
        from echo_desk.mcp.resources import ResourceError

        manager = self._manager()
        if manager is None:
            return
        part = chip.attached.part
        try:
            fresh = await manager.read_resource(part.server, part.uri)
        except ResourceError as exc:
            self.tray.show_problem(_("{uri} changed but could not be read again: {reason}").format(
                uri=part.uri, reason=shown(exc.text)))
            return
        if chip in self.tray.resource_chips:
            chip.replace(fresh)
