"""At start-up: the checks of sandboxed commands that Echo Desk owed when it was last closed
(killed, or quit before a late check ended) are made (``agent.owed_checks``), off the UI thread,
and one notice says what each found and that it was found only now, after a restart. They count
as told once the notice is closed (quitting before that leaves them for the next start). A chat
already open on a call whose saved card a check brought up to date shows the new card at once,
and so does one whose card a sandboxed MCP server's start brought up to date (it makes the owed
checks first, maybe before this pass: ``Runtime.cards_to_show``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMessageBox, QWidget

from echo_desk.i18n import _
from echo_desk.tools.planted import planted_of
from echo_desk.ui.app.start_notice_box import start_notice_box
from echo_desk.ui.chat.left_at_quit_text import advice
from echo_desk.ui.core.checked_after_restart_text import command_lines
from echo_desk.ui.core.marshal import BackgroundOp, run_on_main

if TYPE_CHECKING:
    from collections.abc import Callable

    from echo_desk.agent.owed_checks import UpdatedCard
    from echo_desk.runtime import Runtime
    from echo_desk.store.conversations import ConversationStore
    from echo_desk.store.owed_checks import CheckedAfterRestart


def notice_text(records: list[CheckedAfterRestart]) -> str:
    """Every command's lines, one block each (plain text: paths are untrusted)."""
    return "\n\n".join("\n".join(command_lines(r.workspace, planted_of(list(r.planted)), r.error, r.at, r.server))
                       for r in records)


def checked_after_restart_box(records: list[CheckedAfterRestart], parent: QWidget | None) -> QMessageBox:
    found = any(r.planted for r in records)
    if any(r.server for r in records):
        intro = _("Echo Desk was closed while sandboxed commands or MCP servers ran, before it had checked what "
                  "they left in your folders. It checked that now, at this start.")
    else:
        intro = _("Echo Desk was closed while sandboxed commands ran, before it had checked what they left "
                  "in your folders. It checked that now, at this start.")
    return start_notice_box(_("Checked after a restart"), intro,
                            notice_text(records) + (f"\n\n{advice()}" if found else ""), parent)


class CheckedAfterRestartNotice:
    """Makes the owed checks off the UI thread; shows what they found, if any were owed."""

    def __init__(self, runtime: Runtime, conversations: ConversationStore | None, parent: QWidget,
                 on_card: Callable[[UpdatedCard], None] | None = None) -> None:
        self._runtime = runtime
        self._conversations = conversations
        self._parent = parent
        #: Told (on the UI thread) of each saved card a check brought up to date.
        self._on_card = on_card
        self.box: QMessageBox | None = None
        #: The owed checks were made and what they found was taken (shown, if anything was).
        self.done = False

    def check(self) -> None:
        on_card = self._on_card
        if on_card is not None:
            # A server's start makes them on its own thread: each card crosses to the UI thread.
            self._runtime.cards_to_show.listen(lambda card: run_on_main(on_card, card))
        BackgroundOp(self._make).on_success(self._show).run()

    def _make(self) -> tuple[list[CheckedAfterRestart], list[UpdatedCard]]:
        updated: list[UpdatedCard] = []
        self._runtime.make_owed_checks(self._conversations, updated)
        store = self._runtime.owed_checks
        return (store.untold() if store is not None else []), updated

    def _show(self, made: tuple[list[CheckedAfterRestart], list[UpdatedCard]]) -> None:
        records, updated = made
        if self._on_card is not None:
            for card in updated:
                self._on_card(card)
        self.done = True
        store = self._runtime.owed_checks
        if not records or store is None:
            return
        self.box = checked_after_restart_box(records, self._parent)
        ids = [r.id for r in records]
        self.box.finished.connect(lambda _result: BackgroundOp(store.mark_told, ids).run())
        self.box.show()
