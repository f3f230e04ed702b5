"""Opening a search result: its conversation, scrolled to the message, the words highlighted."""

from __future__ import annotations

from typing import TYPE_CHECKING

from echo_desk.i18n import _
from echo_desk.ui.chat.transcript_find import reveal_row, row_of_message

if TYPE_CHECKING:
    from echo_desk.store.message_search import SearchHit
    from echo_desk.ui.chat.chat_window import MainWindow


def open_hit(window: MainWindow, hit: SearchHit, query: str) -> bool:
    """Open ``hit``'s conversation, show its message, and find ``query``'s longest word in the
    transcript from that message on. The open conversation is not reopened (that would stop its
    turn). Returns ``False`` when the conversation no longer exists."""
    store = window.services.conversations if window.services is not None else None
    if store is None or store.get(hit.conversation_id) is None:
        window.statusBar().showMessage(_("That conversation no longer exists."), 6000)
        return False
    shown = window.session.conversation
    if shown is None or shown.id != hit.conversation_id:
        # Selecting it in the list opens it, as a click would.
        window.conversations.reload(hit.conversation_id)
    row = row_of_message(window.transcript, hit.message_id)
    if row < 0 and hit.message_id and not window.session.busy:
        row = _show_branch_of(window, hit)
    words = sorted(query.split(), key=len, reverse=True)
    if words:
        window.find_bar.open_find(words[0], near_row=max(row, 0))
    finder = window.find_bar.finder
    if row >= 0 and (finder.index < 0 or finder.matches[finder.index].row != row):
        reveal_row(window.transcript, row)  # the word is not shown as typed there (a folded card)
    window.transcript.setFocus()
    return True


def _show_branch_of(window: MainWindow, hit: SearchHit) -> int:
    """The message is in a version of the conversation not shown (an edit or a regenerated answer
    moved past it): show that version, as its ‹ › switcher would. Returns the message's row."""
    store = window.session.store
    node = store.node_of(hit.message_id) if store is not None else None
    if store is None or node is None:
        return -1
    stored = store.choose(hit.conversation_id, node)
    window.session.core.adopt(stored)
    window.session.transcript.load_history(stored, window.session.core.branch_position)
    window.message_actions.switched.emit()
    return row_of_message(window.transcript, hit.message_id)
