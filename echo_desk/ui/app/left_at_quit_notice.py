"""At start-up: what sandboxed MCP servers left in the person's folders that was put aside as
Echo Desk last quit (``store.left_at_quit``). No call's card could say it then, so one notice
says it now, with every full path and where each is kept; it counts as told once closed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox, QWidget

from echo_desk.i18n import _
from echo_desk.ui.app.start_notice_box import start_notice_box
from echo_desk.ui.chat.card_parse import planted_of
from echo_desk.ui.chat.left_at_quit_text import advice, server_lines
from echo_desk.ui.core.marshal import BackgroundOp

if TYPE_CHECKING:
    from echo_desk.store.left_at_quit import LeftAtQuit, LeftAtQuitStore


def notice_text(records: list[LeftAtQuit]) -> str:
    """Every server's lines, one block each (plain text: server names and paths are untrusted)."""
    blocks = ["\n".join(server_lines(r.server, r.folder, planted_of(list(r.planted)), r.at)) for r in records]
    return "\n\n".join(blocks)


def left_at_quit_box(records: list[LeftAtQuit], parent: QWidget | None) -> QMessageBox:
    return start_notice_box(
        _("Put aside when Echo Desk last quit"),
        _("Files that would run code later, outside the sandbox, were taken out of your folders."),
        f"{notice_text(records)}\n\n{advice()}", parent)


class LeftAtQuitNotice:
    """Reads the untold records off the UI thread; shows them, if any, and marks them told when
    the person closes the notice (quitting before that leaves them for the next start)."""

    def __init__(self, store: LeftAtQuitStore, parent: QWidget) -> None:
        self._store = store
        self._parent = parent
        self.box: QMessageBox | None = None

    def check(self) -> None:
        BackgroundOp(self._store.untold).on_success(self._show).run()

    def _show(self, records: list[LeftAtQuit]) -> None:
        if not records:
            return
        self.box = left_at_quit_box(records, self._parent)
        ids = [r.id for r in records]
        self.box.finished.connect(lambda _result: BackgroundOp(self._store.mark_told, ids).run())
        self.box.show()
