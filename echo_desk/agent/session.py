"""One conversation without Qt: its history, system prompt, title, persistence and stop.

The desktop app (``ui/chat/chat_session.py``, a thin adapter to signals) and ``echo-desk ask`` both
run their turns through :class:`ConversationSession`, so what reaches the model — the system
prompt with the workspace folder first, then the history — is the same in both.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from echo_desk.agent.attachments.core import with_attachments_named
from echo_desk.agent.metered_model import MeteredModel
from echo_desk.agent.model import ChatModel
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.chat_messages import AttachmentRef, ChatMessage, ImagePart, ResourcePart, ToolCall
from echo_desk.store.answer_stats import AnswerStats
from echo_desk.store.conversations import Conversation, ConversationStore, StoredMessage
from echo_desk.store.message_tree import BranchPosition, MessageTree, TreeNode

if TYPE_CHECKING:  # the loop and dispatcher load on the first turn, not with the window
    from echo_desk.agent.dispatcher import Dispatcher
    from echo_desk.agent.envelope import Envelope
    from echo_desk.agent.host import Host
    from echo_desk.agent.loop import LoopListener, Outcome
    from echo_desk.agent.progress import Progress
    from echo_desk.agent.runaway import Runaway
    from echo_desk.agent.schema import SchemaFactory
    from echo_desk.agent.status import ToolStatus

T = TypeVar("T")


@dataclass(frozen=True)
class Placement:
    """Where a message goes in its conversation's tree, and how its answer was produced."""

    node: str
    #: The message it follows (``None``: it starts the conversation).
    parent: str | None
    stats: AnswerStats | None = None


#: Saves one complete message of a conversation (with its tool envelope, for a tool message).
MessageWriter = Callable[[str, ChatMessage, "Envelope | None", Placement], None]
#: Stores a newer envelope with a saved tool message (conversation id, the message's node): its
#: call learned more after the message was saved. Queued behind the writes of ``MessageWriter``.
EnvelopeWriter = Callable[[str, str, "Envelope"], None]
#: Starts a coroutine as a task (the app passes its own, which keeps and logs tasks).
Spawner = Callable[[Awaitable[T]], "asyncio.Task[T]"]

#: The longest title taken from a first message.
TITLE_LENGTH = 48


def title_from_text(text: str) -> str:
    """A conversation title from its first message: whitespace folded, cut at ``TITLE_LENGTH``."""
    title = " ".join(text.split())
    return title if len(title) <= TITLE_LENGTH else title[:TITLE_LENGTH - 1] + "…"


class ConversationSession:
    """The open conversation and at most one running turn.

    A conversation's title is empty until its first message names it; the UI shows its own
    translated placeholder for an empty title, so nothing here depends on the language.
    """

    def __init__(self, store: ConversationStore | None = None, *, writer: MessageWriter | None = None,
                 envelope_writer: EnvelopeWriter | None = None) -> None:
        self.store = store
        self._writer = writer
        self._envelope_writer = envelope_writer
        self.conversation: Conversation | None = None
        #: The chosen branch: exactly what the model is told after the system prompt.
        self.history: list[ChatMessage] = []
        #: The tree id of each message of ``history``.
        self.nodes: list[str] = []
        self.tree = MessageTree()
        self.scope: Scope | None = None
        self._task: asyncio.Task[Outcome] | None = None
        self._order = 0

    # -- which conversation --------------------------------------------------------------------
    def open(self, conversation: Conversation | None) -> list[StoredMessage]:
        """Make ``conversation`` the open one (stopping a running turn); returns its stored messages."""
        self.stop()
        self.conversation = conversation
        stored, self.tree = (self.store.branch(conversation.id) if (self.store is not None and conversation)
                             else ([], MessageTree()))
        self._order = self.tree.latest
        self._adopt(stored)
        self.scope = None
        if conversation is not None:
            roots = (Path(conversation.workspace),) if conversation.workspace else ()
            self.scope = Scope(label=conversation.title or "conversation", conversation_id=conversation.id,
                               workspace_roots=roots)
        return stored

    def open_workspace(self, workspace: Path, label: str = "ask") -> None:
        """An unsaved conversation in ``workspace`` (the terminal's ``ask``)."""
        self.stop()
        self.conversation = None
        self.tree = MessageTree()
        self._adopt([])
        self.scope = Scope(label=label, workspace_roots=(workspace,))

    def refresh(self, conversation: Conversation) -> None:
        """The open conversation's row changed in the store (renamed): keep the new one."""
        if self.conversation is not None and conversation.id == self.conversation.id:
            self.conversation = conversation

    # -- what the model receives -----------------------------------------------------------------
    def system_prompt(self) -> ChatMessage:
        if self.scope is None:
            raise RuntimeError("no conversation is open")
        return system_message(self.scope)

    def messages_for_model(self) -> list[ChatMessage]:
        """The system prompt (with the workspace folder), then the history (attached paths named)."""
        return [self.system_prompt(), *(with_attachments_named(m) for m in self.history)]

    # -- a turn ----------------------------------------------------------------------------------
    def add_user(self, text: str, images: tuple[ImagePart, ...] = (),
                 attachments: tuple[AttachmentRef, ...] = (), resources: tuple[ResourcePart, ...] = ()) -> bool:
        """Record the person's message (saved at once); ``True`` when it named the conversation."""
        if self.scope is None:
            raise RuntimeError("no conversation is open")
        titled = not self.history and self._title_from(
            text or " ".join([*(a.mention for a in attachments), *(r.uri for r in resources)]))
        message = ChatMessage(role="user", content=text, images=images, attachments=attachments, resources=resources)
        self._record(self.conversation, message, None, self._place(self.last_node))
        return titled

    @property
    def last_node(self) -> str | None:
        """The tree id of the last message of the chosen branch (``None`` when it is empty)."""
        return self.nodes[-1] if self.nodes else None

    # -- branches ----------------------------------------------------------------------------------
    def branch_position(self, node: str) -> BranchPosition | None:
        """Where ``node`` stands among its versions (the messages that share its parent);
        ``None`` when it has no other version (or is unknown)."""
        return self.tree.position(node) if self.tree.has_versions(node) else None

    def edit_user(self, node: str, text: str, images: tuple[ImagePart, ...] = (),
                  attachments: tuple[AttachmentRef, ...] = (), resources: tuple[ResourcePart, ...] = ()) -> str:
        """Replace the person's message ``node`` with ``text`` in a new branch: the later turns stay
        on the old branch. Returns the new message's id; run a turn next to answer it."""
        index = self._index_of(node)
        if self.history[index].role != "user" or not text.strip():
            raise ValueError("only a sent message of the person can be edited, into a non-empty one")
        parent = self.nodes[index - 1] if index else None
        del self.history[index:], self.nodes[index:]
        message = ChatMessage(role="user", content=text, images=images, attachments=attachments, resources=resources)
        self._record(self.conversation, message, None, self._place(parent))
        return self.nodes[-1]

    def regenerate(self) -> bool:
        """Cut the chosen branch after the person's last message, so the next turn answers it
        anew in a branch of its own (the old answer stays reachable). ``False``: nothing to answer."""
        self._require_idle()
        for index in range(len(self.history) - 1, -1, -1):
            if self.history[index].role == "user":
                del self.history[index + 1:], self.nodes[index + 1:]
                return True
        return False

    def branch_step(self, node: str, delta: int) -> str | None:
        """The sibling ``delta`` places from ``node`` (``None`` past either end)."""
        position = self.branch_position(node)
        return position.step(delta) if position is not None else None

    def switch_to(self, node: str) -> list[StoredMessage]:
        """Show and continue the branch through ``node``; returns that branch's messages."""
        self._require_idle()
        if self.store is None or self.conversation is None:
            raise RuntimeError("branches are kept only in a stored conversation")
        stored = self.store.choose(self.conversation.id, node)
        self.adopt(stored)
        return stored

    def adopt(self, stored: list[StoredMessage]) -> None:
        """The store now has ``stored`` as the chosen branch (see ``ConversationStore.choose``)."""
        self._require_idle()
        self._adopt(stored)

    def _adopt(self, stored: list[StoredMessage]) -> None:
        self.history = [s.message for s in stored]
        self.nodes = [s.node for s in stored]

    def _index_of(self, node: str) -> int:
        self._require_idle()
        try:
            return self.nodes.index(node)
        except ValueError:
            raise KeyError(node) from None

    def _require_idle(self) -> None:
        if self.busy:
            raise RuntimeError("a turn is running; stop it first")

    def _place(self, parent: str | None, stats: AnswerStats | None = None) -> Placement:
        return Placement(uuid.uuid4().hex, parent, stats)

    def add_note(self, message: ChatMessage) -> None:
        """Record a message the engine adds for the model (a retry note), saved at once."""
        if self.scope is None:
            raise RuntimeError("no conversation is open")
        self._record(self.conversation, message, None, self._place(self.last_node))

    def _title_from(self, text: str) -> bool:
        conversation = self.conversation
        if self.store is None or conversation is None or conversation.title:
            return False
        title = title_from_text(text)
        self.store.rename(conversation.id, title)
        self.conversation = self.store.get(conversation.id) or conversation
        return True

    @property
    def busy(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def task(self) -> asyncio.Task[Outcome] | None:
        """The task of the last turn started with :meth:`start_turn` (done or not)."""
        return self._task

    def start_turn(self, model: ChatModel, dispatcher: Dispatcher, schema_factory: SchemaFactory, host: Host,
                   listener: LoopListener | None = None, *, max_turns: int,
                   spawn: Spawner[Outcome] | None = None) -> asyncio.Task[Outcome]:
        """Run a turn on the history as a task that :meth:`stop` cancels."""
        self._task = (spawn or asyncio.ensure_future)(self.run_turn(model, dispatcher, schema_factory, host, listener, max_turns=max_turns))
        return self._task

    async def run_turn(self, model: ChatModel, dispatcher: Dispatcher, schema_factory: SchemaFactory, host: Host,
                       listener: LoopListener | None = None, *, max_turns: int) -> Outcome:
        """One exchange: the model answers the history, calling tools; every message is saved."""
        from echo_desk.agent.loop import AgentLoop, NullListener

        if self.scope is None:
            raise RuntimeError("no conversation is open")
        metered = MeteredModel(model)
        recorder = _Recorder(self, self.conversation, listener or NullListener(), metered)
        loop = AgentLoop(metered, dispatcher, schema_factory, max_turns=max_turns)
        return await loop.run(self.messages_for_model(), self.scope, host, recorder)

    def stop(self) -> None:
        """Cancel the running turn: the model stream and running tools stop."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

    # -- persistence -----------------------------------------------------------------------------
    def _save(self, conversation: Conversation | None, message: ChatMessage, envelope: Envelope | None,
              placement: Placement) -> None:
        if conversation is None:
            return
        if self._writer is not None:
            self._writer(conversation.id, message, envelope, placement)
        elif self.store is not None:
            self.store.append(conversation.id, message, envelope.to_json() if envelope is not None else None,
                              node=placement.node, parent=placement.parent, stats=placement.stats)

    def _save_envelope(self, conversation: Conversation | None, node: str, envelope: Envelope) -> None:
        if conversation is None:
            return
        if self._envelope_writer is not None:
            self._envelope_writer(conversation.id, node, envelope)
        elif self.store is not None:
            self.store.replace_envelope(conversation.id, node, envelope.to_json())

    def _record(self, conversation: Conversation | None, message: ChatMessage, envelope: Envelope | None,
                placement: Placement) -> None:
        self._save(conversation, message, envelope, placement)
        # A turn that goes on after its conversation was closed still saves, but into its own.
        if _id_of(conversation) == _id_of(self.conversation):
            self.history.append(message)
            self.nodes.append(placement.node)
            self._order += 1
            # In memory the newest message is the chosen one, as the store makes it.
            self.tree.add(TreeNode(placement.node, placement.parent, self._order, self._order))


def _id_of(conversation: Conversation | None) -> str | None:
    return conversation.id if conversation is not None else None


class _Recorder:
    """Passes the loop's events on, saving each complete message as soon as it is handed over
    (so a crash loses at most the message being streamed)."""

    def __init__(self, session: ConversationSession, conversation: Conversation | None,
                 listener: LoopListener, meter: MeteredModel) -> None:
        self._session = session
        self._conversation = conversation
        self._listener = listener
        self._meter = meter
        #: Each call's envelope until its tool message is saved; then the node it was saved as.
        self._envelopes: dict[str, Envelope] = {}
        self._saved_as: dict[str, str] = {}
        #: A later check ends on any thread, maybe while its call's message is being saved.
        self._saving = threading.Lock()
        #: The message the next one follows: this turn's own chain, even if the window moves on.
        self._tail = session.last_node

    def on_text(self, delta: str) -> None:
        self._listener.on_text(delta)

    def on_tool_call(self, call: ToolCall) -> None:
        self._listener.on_tool_call(call)

    def on_progress(self, progress: Progress) -> None:
        report = getattr(self._listener, "on_progress", None)  # optional for listeners (loop.py)
        if report is not None:
            report(progress)

    def on_runaway(self, runaway: Runaway) -> None:
        report = getattr(self._listener, "on_runaway", None)  # optional for listeners (loop.py)
        if report is not None:
            report(runaway)
        else:
            self._listener.on_error(runaway.describe())

    def on_tool_status(self, call_id: str, status: ToolStatus) -> None:
        self._listener.on_tool_status(call_id, status)

    def on_tool_result(self, call_id: str, envelope: Envelope) -> None:
        with self._saving:
            self._envelopes[call_id] = envelope
        self._listener.on_tool_result(call_id, envelope)

    def on_checked_later(self, call_id: str, envelope: Envelope) -> None:
        """What the check found is saved too, so the reopened card tells it: with the message when
        it is not saved yet, else in place of the envelope saved with it."""
        with self._saving:
            node = self._saved_as.get(call_id)
            if node is None and call_id in self._envelopes:
                self._envelopes[call_id] = envelope
            elif node is not None:
                self._session._save_envelope(self._conversation, node, envelope)
        told = getattr(self._listener, "on_checked_later", None)  # optional for listeners (loop.py)
        if told is not None:
            told(call_id, envelope)

    def on_message(self, message: ChatMessage) -> None:
        stats = self._meter.take() if message.role == "assistant" else None
        placement = self._session._place(self._tail, stats)
        self._tail = placement.node
        with self._saving:
            envelope = self._envelopes.pop(message.tool_call_id, None) if message.role == "tool" else None
            if envelope is not None:
                self._saved_as[message.tool_call_id] = placement.node
            self._session._record(self._conversation, message, envelope, placement)
        saved = getattr(self._listener, "on_saved", None)  # optional: the app's footer and branches
        if saved is not None:
            saved(message, placement)
        self._listener.on_message(message)

    def on_error(self, message: str) -> None:
        self._listener.on_error(message)
