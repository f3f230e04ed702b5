"""What the transcript's message actions do: copy a message, edit a sent one and resend it as a
new branch, regenerate the last answer, switch between versions.

The engine's session decides and stores the branches; this object turns the view's
``message_action`` into those calls and keeps the transcript in step with them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from echo_desk.i18n import _
from echo_desk.ui.chat.message_bar import MessageAction
from echo_desk.ui.chat.transcript import ASSISTANT, USER, TranscriptItem
from echo_desk.ui.core import marshal

if TYPE_CHECKING:
    from echo_desk.store.conversations import StoredMessage
    from echo_desk.ui.chat.chat_session import ChatSession
    from echo_desk.ui.chat.edit_message_dialog import EditMessageDialog
    from echo_desk.ui.chat.transcript_view import TranscriptView

log = logging.getLogger(__name__)


class MessageActions(QObject):
    #: Another version is shown (its rows were rebuilt from the store, as when a conversation opens).
    switched = Signal()

    def __init__(self, view: TranscriptView, session: ChatSession) -> None:
        super().__init__(view)
        self.view = view
        self.session = session
        self.dialog: EditMessageDialog | None = None
        view.message_action.connect(self.run)
        # Regenerate is offered on the last answer only, and not while a turn runs.
        session.busy_changed.connect(lambda _busy: self.mark_last_answer())
        session.transcript.modelReset.connect(self.mark_last_answer)

    def run(self, item: TranscriptItem, action: MessageAction) -> None:
        if action is MessageAction.COPY:
            self.view.copy_item(item)
        elif action is MessageAction.EDIT:
            self.ask_edit(item)
        elif action is MessageAction.REGENERATE:
            self.regenerate()
        elif action in (MessageAction.PREVIOUS_BRANCH, MessageAction.NEXT_BRANCH):
            self.switch(item, -1 if action is MessageAction.PREVIOUS_BRANCH else +1)

    # -- edit ----------------------------------------------------------------------------------
    def ask_edit(self, item: TranscriptItem) -> None:
        if self.session.busy:
            self._say(_("Stop the agent before editing a message."))
            return
        from echo_desk.ui.chat.edit_message_dialog import EditMessageDialog  # opened rarely

        dialog = EditMessageDialog(item.text, self.view.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(lambda: self.edit(item, dialog.text()))
        self.dialog = dialog
        dialog.open()

    def edit(self, item: TranscriptItem, text: str) -> bool:
        """Send ``text`` instead of ``item``'s message, as a new branch; then answer it."""
        transcript = self.session.transcript
        row = transcript.row_of(item)
        if self.session.busy or row < 0 or not item.node or not text.strip():
            return False
        # The attachments go with the edited message (the person edited the words, not them).
        node = self.session.core.edit_user(item.node, text.strip(), item.images, item.attachments, item.resources)
        transcript.truncate(row)
        transcript.add_user(text.strip(), item.images, item.attachments, resources=item.resources, node=node,
                            branch=self.session.core.branch_position(node))
        return self.session.start_turn()

    # -- regenerate ----------------------------------------------------------------------------
    def regenerate(self) -> bool:
        """Answer the last message again; the old answer stays as the other version."""
        if self.session.busy or not self.session.core.regenerate():
            return False
        transcript = self.session.transcript
        rows = transcript.items()
        last_user = max((r for r, item in enumerate(rows) if item.kind == USER), default=-1)
        transcript.truncate(last_user + 1)
        return self.session.start_turn()

    def mark_last_answer(self) -> None:
        transcript = self.session.transcript
        rows = transcript.items()
        # Regenerate answers the person's last message again: it is offered on the answer to that
        # message, or on the message itself when its turn left no answer (failed or stopped early).
        last_user = max((r for r, item in enumerate(rows) if item.kind == USER), default=-1)
        last = -1
        if not self.session.busy and last_user >= 0:
            last = max((r for r, item in enumerate(rows) if item.kind == ASSISTANT and r > last_user),
                       default=last_user)
        for row, item in enumerate(rows):
            if item.last_answer != (row == last):
                item.last_answer = row == last
                transcript.update(item)

    # -- versions ------------------------------------------------------------------------------
    def switch(self, item: TranscriptItem, delta: int) -> None:
        """Show the previous or next version of ``item``'s message (stored as the chosen one)."""
        session, conversation = self.session, self.session.conversation
        target = session.core.branch_step(item.node, delta) if item.node else None
        store = session.store
        if target is None or conversation is None or store is None:
            return
        if session.busy:
            self._say(_("Stop the agent before switching versions."))
            return

        def show(stored: list[StoredMessage]) -> None:
            if session.conversation is None or session.conversation.id != conversation.id or session.busy:
                return  # the person moved on meanwhile; the store already remembers the choice
            session.core.adopt(stored)
            session.transcript.load_history(stored, session.core.branch_position)
            self.switched.emit()
            self._focus(target)

        def failed(exc: BaseException) -> None:
            log.error("switching versions failed", exc_info=exc)
            self._say(_("This version could not be shown: {error}").format(error=exc))

        # After the queued message writes, so the store knows every message the session does.
        marshal.BackgroundOp(store.choose, conversation.id, target).on_success(show).on_failure(failed).run(
            serial=True)

    def _focus(self, node: str) -> None:
        model = self.session.transcript
        for row, item in enumerate(model.items()):
            if item.node == node:
                index = model.index(row)
                self.view.setCurrentIndex(index)
                self.view.scrollTo(index)
                return

    def _say(self, text: str) -> None:
        self.session.transcript.add_notice(text)
