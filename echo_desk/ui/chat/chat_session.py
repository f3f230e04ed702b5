"""The open conversation in the window: a Qt adapter over the engine's ConversationSession.

The engine keeps the history, the system prompt, the title and stop; this class turns its
events into transcript rows and signals. The agent loop runs on the main (qasync) loop; listener
callbacks and the host's notifications reach the transcript through ``marshal``, and message
writes go to one background writer. Stop cancels the turn's task, which cancels the model stream
and running tools, and answers open dialogs negatively.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from echo_desk.i18n import N_, deferred, list_text
from echo_desk.store.not_saved import storage_failure_text
from echo_desk.ui.chat.transcript import ItemKind, TranscriptModel
from echo_desk.ui.core import marshal
from echo_desk.ui.widgets.failure_text import failure_said

if TYPE_CHECKING:
    # The engine loads after the window's first frame (see ``ChatSession.core``).
    import asyncio

    from echo_desk.agent.envelope import Envelope
    from echo_desk.agent.loop import Outcome
    from echo_desk.agent.model import ChatModel
    from echo_desk.agent.progress import Progress
    from echo_desk.agent.runaway import Runaway
    from echo_desk.agent.scope import Scope
    from echo_desk.agent.session import ConversationSession, Placement
    from echo_desk.agent.status import ToolStatus
    from echo_desk.chat_messages import AttachmentRef, ChatMessage, ImagePart, ResourcePart, ToolCall
    from echo_desk.runtime import Runtime
    from echo_desk.store.changes import ChangeRecord
    from echo_desk.store.conversations import Conversation, ConversationStore
    from echo_desk.tools.results import JsonObject
    from echo_desk.ui.approval.host import QtHost

log = logging.getLogger(__name__)


def _envelope_dict(envelope: Envelope) -> JsonObject:
    """What is stored with a tool message: the envelope, plus what only the card needs."""
    from echo_desk.agent.envelope import DENIED_KEY, UNDO_NOT_RECORDED_KEY
    from echo_desk.ui.chat.card_parse import grid_of, sandbox_of

    value = envelope.to_stored_json()  # with the error's words for the person, for the reopened card
    # The model never sees metadata; a sub-agent's transcript is kept so the card can show it again.
    metadata = envelope.metadata
    if isinstance(metadata.get("transcript"), list):
        value = {**value, "transcript": metadata["transcript"]}
    # A database result's grid, bounded as the card shows it (not every returned row).
    grid = grid_of(metadata)
    if grid is not None:
        value = {**value, "grid": grid.to_json()}
    sandbox = sandbox_of(metadata)
    if sandbox is not None:
        value = {**value, "sandbox": sandbox.to_json()}
    for key in (DENIED_KEY, UNDO_NOT_RECORDED_KEY):
        if isinstance(metadata.get(key), dict):
            value = {**value, key: metadata[key]}
    return value


class _Listener:
    """Agent-loop events → transcript rows (any thread → main thread)."""

    def __init__(self, session: ChatSession) -> None:
        self._session = session

    def on_text(self, delta: str) -> None:
        marshal.run_on_main(self._session.transcript.append_text, delta)

    def on_tool_call(self, call: ToolCall) -> None:
        marshal.run_on_main(self._session.transcript.add_tool_call, call.id, call.name, call.arguments)

    def on_tool_status(self, call_id: str, status: ToolStatus) -> None:
        marshal.run_on_main(self._session.transcript.set_tool_status, call_id, status)

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        marshal.run_on_main(self._session.transcript.set_tool_result, call_id, envelope)

    def on_checked_later(self, call_id: str, envelope: Envelope) -> None:
        """The call's sandbox was checked after its result went: its card, if still shown, says
        what it left (the check may end on any thread, or after the turn)."""
        marshal.run_on_main(self._session.transcript.set_tool_result, call_id, envelope)

    def on_saved(self, message: ChatMessage, placement: Placement) -> None:
        if message.role == "assistant":  # its row gets the footer, and the switcher of a regenerated one
            branch = self._session.core.branch_position(placement.node)
            marshal.run_on_main(self._session.transcript.answer_saved, placement.node, placement.stats,
                                [c.id for c in message.tool_calls], branch)

    def on_message(self, message: ChatMessage) -> None:
        if message.role == "assistant":
            marshal.run_on_main(self._session.transcript.end_assistant)

    def on_error(self, message: str) -> None:
        marshal.run_on_main(self._session.transcript.add_notice, message, error=True)

    def on_progress(self, progress: Progress) -> None:
        marshal.run_on_main(self._session.progress.emit, progress)

    def on_runaway(self, runaway: Runaway) -> None:
        """Not an error row: the turn's end shows the Retry card instead (``stopped_early``)."""


class ChatSession(QObject):
    """The Qt face of the engine's :class:`ConversationSession`: the transcript, busy and title
    signals, and message writes kept off the UI thread."""

    busy_changed = Signal(bool)
    #: The open conversation's title changed (named after its first message).
    retitled = Signal(str)
    #: What the model is doing now (``agent.progress.Progress``), while a turn runs.
    progress = Signal(object)
    #: The turn ended with its answer cut (``agent.runaway.Runaway``): the window offers Retry.
    stopped_early = Signal(object)

    def __init__(self, host: QtHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.transcript = TranscriptModel(self)
        host.transcript = self.transcript
        self.runtime: Runtime | None = None
        self.model: ChatModel | None = None

    @functools.cached_property
    def core(self) -> ConversationSession:
        """The engine's session, made on first use: the window paints its first frame before the
        agent and the conversation store are imported."""
        from echo_desk.agent.session import ConversationSession

        return ConversationSession(writer=self._write, envelope_writer=self._write_envelope)

    @property
    def store(self) -> ConversationStore | None:
        return self.core.store

    @store.setter
    def store(self, store: ConversationStore | None) -> None:
        self.core.store = store

    @property
    def conversation(self) -> Conversation | None:
        return self.core.conversation

    @property
    def history(self) -> list[ChatMessage]:
        return self.core.history

    @property
    def scope(self) -> Scope | None:
        return self.core.scope

    @property
    def busy(self) -> bool:
        return self.core.busy

    def open(self, conversation: Conversation | None) -> None:
        """Show ``conversation`` (stops a running turn first)."""
        self.stop()
        self.flush_writes()
        self.transcript.load_history(self.core.open(conversation), self.core.branch_position)

    def refresh(self, conversation: Conversation) -> None:
        """The open conversation was renamed in the store."""
        self.core.refresh(conversation)

    def can_send(self) -> bool:
        return self.model is not None and self.runtime is not None and self.conversation is not None

    def send(self, text: str, images: tuple[ImagePart, ...] = (), attachments: tuple[AttachmentRef, ...] = (),
             resources: tuple[ResourcePart, ...] = ()) -> bool:
        """Start a turn with ``text`` (and attached paths and ``images``). Returns ``False`` (and
        says why) when it cannot; a model that cannot read the images refuses before anything is
        recorded."""
        text = text.strip()
        if not (text or attachments or resources) or self.busy or self.conversation is None:
            return False
        if images and self.model is not None:
            from echo_desk.agent.model import ModelError, images_refused
            from echo_desk.chat_messages import ChatMessage

            try:
                images_refused([ChatMessage(role="user", images=images)],
                               getattr(self.model, "image_types", frozenset()), self.model.display_name)
            except ModelError as exc:
                self.transcript.add_notice(exc.reason, error=True)
                return False
        row = self.transcript.add_user(text, images, attachments, resources=resources)
        if self.core.add_user(text, images, attachments, resources):
            self.retitled.emit(str(self.conversation.id))
        row.node = self.core.last_node or ""  # now it can be edited
        self.transcript.update(row)
        return self.start_turn()

    def retry(self, runaway: Runaway) -> bool:
        """Run the turn again after it was cut; the model is told what went wrong (``retry_note``)."""
        if self.busy or self.conversation is None:
            return False
        from echo_desk.agent.retry import retry_note

        self.core.add_note(retry_note(runaway))
        self.transcript.add_notice(deferred(N_("Trying again; the model was told why its last answer was stopped.")))
        return self.start_turn()

    def start_turn(self) -> bool:
        """Answer the history as it stands (after a message was sent, edited, or an answer is to be
        regenerated or retried). Returns ``False`` (and says why) when it cannot."""
        if self.busy or self.conversation is None:
            return False
        if self.runtime is None:  # the engine did not start: a model alone cannot answer
            self.transcript.add_notice(deferred(N_("The tool engine is not running, so nobody can answer; the "
                                                   "notice at the top of the window says why.")), error=True)
            return False
        if self.model is None:
            self.transcript.add_notice(deferred(N_("No model is connected, so nobody can answer yet. Open "
                                                   "Settings › Models to connect one.")), error=True)
            return False
        task = self.core.start_turn(self.model, self.runtime.dispatcher, self.runtime.schema_factory, self.host,
                                    _Listener(self), max_turns=self.runtime.settings.current.max_turns,
                                    spawn=marshal.spawn)
        # A done callback, not a finally: a turn stopped before it ever ran has no finally to run.
        task.add_done_callback(self._turn_ended)
        self.busy_changed.emit(True)
        return True

    def _turn_ended(self, task: asyncio.Task[Outcome]) -> None:
        from echo_desk.agent.status import ToolStatus

        if task.cancelled():
            self._mark_unfinished(ToolStatus.CANCELLED)
            self.transcript.add_notice(deferred(N_("Stopped. Anything still running was cancelled.")))
            self._say_what_stopped_calls_changed(self._cancelled_in_last_turn())
        elif (exc := task.exception()) is not None:  # shown, never a crash of the window (spawn logs it)
            self._mark_unfinished(ToolStatus.FAILED)
            self.transcript.add_notice(deferred(
                N_("The turn failed: {reason}. The answer stops here. Regenerate the last answer to try "
                   "again; started from a terminal, Echo Desk prints the technical detail there."),
                reason=failure_said(exc)), error=True)
        elif (runaway := task.result().runaway) is not None:
            self.stopped_early.emit(runaway)
        else:
            outcome = task.result()
            if outcome.unbacked_claim:  # the engine found the answer claims a change none made
                self.transcript.add_notice(deferred(N_("No file was changed in this turn.")))
            if outcome.count_mismatch is not None:  # a number beside what a tool counted

                self.transcript.add_notice(outcome.count_mismatch.note())
        self.transcript.end_assistant()
        self.busy_changed.emit(False)

    def _mark_unfinished(self, status: ToolStatus) -> None:
        for item in self.transcript.items():
            if item.kind is ItemKind.TOOL and not item.status.finished:
                self.transcript.set_tool_status(item.call_id, status)

    def _cancelled_in_last_turn(self) -> list[str]:
        """The calls cancelled since the person's last message."""
        from echo_desk.agent.status import ToolStatus

        cancelled = []
        for item in reversed(self.transcript.items()):
            if item.kind is ItemKind.USER:
                break
            if item.kind is ItemKind.TOOL and item.status is ToolStatus.CANCELLED:
                cancelled.append(item.call_id)
        return cancelled

    def _say_what_stopped_calls_changed(self, call_ids: list[str]) -> None:
        """A call stopped while its tool ran may already have written (the engine records it in
        the change log before the stop ends the turn): name those files, and how to undo them."""
        undo = self.runtime.undo if self.runtime is not None else None
        if undo is None or not call_ids or self.conversation is None:
            return
        conversation_id = str(self.conversation.id)

        def say(records: list[ChangeRecord]) -> None:
            ours = [r for r in records if r.conversation_id == conversation_id]
            by_call: dict[str, dict[str, None]] = {}
            for record in ours:
                by_call.setdefault(record.call_id, {})[record.path] = None
            for call_id, paths in by_call.items():
                self.transcript.set_changed_before_stop(call_id, tuple(paths))
            files = list_text(dict.fromkeys(r.path for r in ours))
            if files:
                self.transcript.add_notice(deferred(
                    N_("Before the stop, these files were already changed: {files}. To undo that, "
                       "press Revert on the stopped card, or right-click the message and choose Revert this turn."),
                    files=files))

        marshal.BackgroundOp(undo.changes.for_calls, call_ids).on_success(say).run()

    def _write(self, conversation_id: str, message: ChatMessage, envelope: Envelope | None,
               placement: Placement) -> None:
        store = self.core.store
        if store is None:
            return
        record = _envelope_dict(envelope) if envelope is not None else None

        def failed(exc: BaseException) -> None:  # storage trouble is shown; the message stays on screen
            log.error("saving a message failed", exc_info=exc)
            self.transcript.add_notice(deferred(N_("This message could not be saved: {error}"),
                                                error=storage_failure_text(exc)), error=True)

        # SQLite commits (fsync) stay off the UI thread; one writer keeps the order.
        append = functools.partial(store.append, node=placement.node, parent=placement.parent,
                                   stats=placement.stats)
        marshal.BackgroundOp(append, conversation_id, message, record).on_failure(failed).run(serial=True)

    def _write_envelope(self, conversation_id: str, node: str, envelope: Envelope) -> None:
        """A saved call's newer envelope (its sandbox checked later), behind the queued writes."""
        store = self.core.store
        if store is None:
            return
        record = _envelope_dict(envelope)

        def failed(exc: BaseException) -> None:  # the card on screen says it; only a reopened one will not
            log.error("saving what the later check of a call found failed", exc_info=exc)

        marshal.BackgroundOp(store.replace_envelope, conversation_id, node, record).on_failure(failed).run(serial=True)

    def show_updated_card(self, conversation_id: str, call_id: str, stored: JsonObject) -> None:
        """A call's saved result was brought up to date outside this session (its check made after
        a restart): the card shows it now, if this conversation is the one open."""
        if self.conversation is not None and str(self.conversation.id) == conversation_id:
            self.transcript.set_stored_result(call_id, stored)

    def stop(self) -> None:
        if self.core.busy:
            self.core.stop()
            self.host.cancel_dialogs()

    def flush_writes(self, timeout: float = 10.0) -> None:
        """Block until queued message writes are done (before reading the store back)."""
        marshal.BackgroundOp(lambda: None).run(serial=True).result(timeout)

    async def wait_idle(self) -> None:
        """Until the turn has ended and every message is written."""
        import asyncio

        task = self.core.task
        if task is not None and not task.done():
            await asyncio.wait([task])
        await marshal.BackgroundOp(lambda: None).run_async_serial()
