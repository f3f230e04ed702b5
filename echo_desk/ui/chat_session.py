"""One conversation's turn-taking: runs the agent loop, feeds the transcript, stores messages.

The agent loop runs on the main (qasync) loop; its listener callbacks and the host's
notifications reach the transcript through ``marshal``. Stop cancels the turn's task, which
cancels the model stream and running tools, and answers open dialogs negatively.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.i18n import _
from echo_desk.ui import marshal
from echo_desk.ui.controller import QtHost
from echo_desk.ui.result_grid import grid_of
from echo_desk.ui.transcript import TranscriptModel

log = logging.getLogger(__name__)


def _envelope_dict(envelope: Any) -> dict[str, Any] | None:
    to_json = getattr(envelope, "to_json", None)
    if not callable(to_json):
        return None
    raw = to_json()
    value: dict[str, Any] = raw if isinstance(raw, dict) else json.loads(raw)
    # The model never sees metadata; a sub-agent's transcript is kept so the card can show it again.
    metadata = getattr(envelope, "metadata", None)
    if isinstance(metadata, dict) and isinstance(metadata.get("transcript"), list):
        value = {**value, "transcript": metadata["transcript"]}
    # A database result's grid, bounded as the card shows it (not every returned row).
    grid = grid_of(metadata)
    if grid is not None:
        value = {**value, "grid": grid}
    return value


class _Listener:
    """Agent-loop events → transcript rows and the store (any thread → main thread).

    Each complete message is saved as soon as the loop hands it over, so a crash loses at
    most the message being streamed.
    """

    def __init__(self, session: ChatSession, conversation: Any) -> None:
        self._session = session
        self._conversation = conversation
        self.envelopes: dict[str, Any] = {}

    def on_text(self, delta: str) -> None:
        marshal.run_on_main(self._session.transcript.append_text, delta)

    def on_tool_call(self, call: ToolCall) -> None:
        marshal.run_on_main(self._session.transcript.add_tool_call, call.id, call.name, call.arguments)

    def on_tool_status(self, call_id: str, status: str) -> None:
        marshal.run_on_main(self._session.transcript.set_tool_status, call_id, status)

    def on_tool_result(self, call_id: str, envelope: Any) -> None:
        self.envelopes[call_id] = envelope
        marshal.run_on_main(self._session.transcript.set_tool_result, call_id, envelope)

    def on_message(self, message: ChatMessage) -> None:
        marshal.run_on_main(self._session._on_message, self._conversation, message,
                            self.envelopes.get(message.tool_call_id) if message.role == "tool" else None)

    def on_error(self, message: str) -> None:
        marshal.run_on_main(self._session.transcript.add_notice, message, error=True)

    def on_progress(self, progress: Any) -> None:
        marshal.run_on_main(self._session.progress.emit, progress)


class ChatSession(QObject):
    """Owns the transcript of the open conversation and at most one running turn."""

    busy_changed = Signal(bool)
    #: The open conversation's title changed (named after its first message).
    retitled = Signal(str)
    #: What the model is doing now (``agent.progress.Progress``), while a turn runs.
    progress = Signal(object)

    def __init__(self, host: QtHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.transcript = TranscriptModel(self)
        host.transcript = self.transcript
        self.store: Any = None
        self.runtime: Any = None
        self.model: Any = None
        self.conversation: Any = None
        self.history: list[ChatMessage] = []
        self.scope: Scope | None = None
        self._task: asyncio.Task[Any] | None = None

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def open(self, conversation: Any) -> None:
        """Show ``conversation`` (stops a running turn first)."""
        self.stop()
        self.conversation = conversation
        self.flush_writes()
        stored = self.store.messages(conversation.id) if (self.store is not None and conversation) else []
        self.history = [getattr(s, "message", s) for s in stored]
        self.scope = self._make_scope(conversation)
        self.transcript.load_history(stored)

    def _make_scope(self, conversation: Any) -> Scope | None:
        if conversation is None:
            return None
        workspace = getattr(conversation, "workspace", "") or ""
        roots = (Path(workspace),) if workspace else ()
        return Scope(label=conversation.title, conversation_id=str(conversation.id), workspace_roots=roots)

    def can_send(self) -> bool:
        return self.model is not None and self.runtime is not None and self.conversation is not None

    def send(self, text: str) -> bool:
        """Start a turn with ``text``. Returns ``False`` (and says why) when it cannot."""
        text = text.strip()
        if not text or self.busy:
            return False
        if self.conversation is None:
            return False
        message = ChatMessage(role="user", content=text)
        if not self.history:
            self._title_from(text)
        self.transcript.add_user(text)
        self._save(message)
        self.history.append(message)
        if not self.can_send():
            self.transcript.add_notice(_("No model is connected, so nobody can answer yet. Open Settings › "
                                         "Models to connect one."), error=True)
            return False
        self._task = marshal.spawn(self._turn())
        # Not in _turn's finally: a turn stopped before it ever ran has no finally to run.
        self._task.add_done_callback(self._turn_ended)
        self.busy_changed.emit(True)
        return True

    def _turn_ended(self, task: asyncio.Task[Any]) -> None:
        if task.cancelled():
            self._mark_unfinished("cancelled")
            self.transcript.add_notice(_("Stopped. Anything still running was cancelled."))
        self.transcript.end_assistant()
        self.busy_changed.emit(False)

    async def _turn(self) -> None:
        from echo_desk.agent.loop import AgentLoop  # engine module: loaded after the first frame

        listener = _Listener(self, self.conversation)
        assert self.scope is not None  # set with the conversation; send() requires one
        try:
            loop = AgentLoop(self.model, self.runtime.dispatcher, self.runtime.schema_factory,
                             max_turns=self.runtime.settings.current.max_turns)
            outcome = await loop.run(list(self.history), self.scope, self.host, listener)
            if outcome.unbacked_claim:  # the engine found the answer claims a change none made
                marshal.run_on_main(self.transcript.add_notice, _("No file was changed in this turn."))
        except Exception as exc:  # a failing turn is shown, never a crash of the window
            log.exception("agent turn failed")
            self._mark_unfinished("failed")
            self.transcript.add_notice(_("The turn failed: {error}").format(error=exc), error=True)

    def _on_message(self, conversation: Any, message: ChatMessage, envelope: Any) -> None:
        if message.role == "assistant":
            self.transcript.end_assistant()
        self._save(message, _envelope_dict(envelope) if envelope is not None else None, conversation)
        if conversation is self.conversation:
            self.history.append(message)

    def _title_from(self, text: str) -> None:
        """A conversation still called "New conversation" takes its first message as title."""
        if self.store is None or self.conversation is None or self.conversation.title != _("New conversation"):
            return
        title = " ".join(text.split())
        title = title if len(title) <= 48 else title[:47] + "…"
        self.store.rename(self.conversation.id, title)
        self.retitled.emit(str(self.conversation.id))

    def _mark_unfinished(self, status: str) -> None:
        for item in self.transcript.items():
            if item.kind == "tool" and item.status in ("pending", "running", "waiting_approval"):
                self.transcript.set_tool_status(item.call_id, status)

    def _save(self, message: ChatMessage, envelope: dict[str, Any] | None = None, conversation: Any = None) -> None:
        conversation = conversation or self.conversation
        if self.store is None or conversation is None:
            return

        def failed(exc: BaseException) -> None:  # storage trouble is shown; the message stays on screen
            log.error("saving a message failed", exc_info=exc)
            self.transcript.add_notice(_("This message could not be saved: {error}").format(error=exc), error=True)

        # SQLite commits (fsync) stay off the UI thread; one writer keeps the order.
        marshal.BackgroundOp(self.store.append, conversation.id, message, envelope).on_failure(failed).run(serial=True)

    def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            self.host.cancel_dialogs()

    def flush_writes(self, timeout: float = 10.0) -> None:
        """Block until queued message writes are done (before reading the store back)."""
        marshal.BackgroundOp(lambda: None).run(serial=True).result(timeout)

    async def wait_idle(self) -> None:
        """Until the turn has ended and every message is written."""
        if self._task is not None and not self._task.done():
            await asyncio.wait([self._task])
        await marshal.BackgroundOp(lambda: None).run_async_serial()
