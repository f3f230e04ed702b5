"""One row of the transcript (a message or a tool card) as plain data.

No Qt here: the model (``transcript``) holds these rows, and a card's HTML (``tool_card``) is
rendered from one without Qt.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from echo_desk.agent.status import ToolStatus

if TYPE_CHECKING:
    from echo_desk.chat_messages import AttachmentRef, ImagePart, ResourcePart
    from echo_desk.store.answer_stats import AnswerStats
    from echo_desk.store.message_tree import BranchPosition
    from echo_desk.tools.results import FileChange
    from echo_desk.ui.chat.card_facts import GridFacts, ResultFacts, SandboxFacts, SubTranscript, Unreadable


class ItemKind(enum.StrEnum):
    """What a transcript row is."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    NOTICE = "notice"
    ERROR = "error"


USER, ASSISTANT, TOOL, NOTICE, ERROR = ItemKind.USER, ItemKind.ASSISTANT, ItemKind.TOOL, ItemKind.NOTICE, ItemKind.ERROR


def _no_steps() -> SubTranscript:
    """An empty sub-transcript; the card facts' module loads with the first row, not before the
    window's first frame."""
    from echo_desk.ui.chat.card_facts import SubTranscript

    return SubTranscript()


@dataclass(eq=False)
class TranscriptItem:
    kind: ItemKind
    text: str = ""
    call_id: str = ""
    tool_name: str = ""
    arguments: str = ""
    #: A tool card's status (other rows keep the default).
    status: ToolStatus = ToolStatus.PENDING
    result: str = ""
    error: str = ""
    error_kind: str = ""
    #: The person denied this call: their note to the agent ("" for none); ``None`` otherwise.
    denied_note: str | None = None
    file_changes: tuple[FileChange, ...] = ()
    output: str = ""
    #: A ``delegate`` card's sub-agent transcript (the envelope's ``metadata["transcript"]``).
    subtranscript: SubTranscript = field(default_factory=_no_steps)
    #: Images the person attached to a user message (shown as thumbnails).
    images: tuple[ImagePart, ...] = ()
    #: Paths attached to a user message, listed under its text.
    attachments: tuple[AttachmentRef, ...] = ()
    #: MCP resources attached to a user message (their URIs listed under its text).
    resources: tuple[ResourcePart, ...] = ()
    #: A database result table for the card, or ``None``.
    grid: GridFacts | None = None
    #: Where a command ran and what the sandbox refused, or ``None``.
    sandbox: SandboxFacts | None = None
    #: Parts of the result that could not be read (the card says so and keeps their raw JSON).
    unreadable: tuple[Unreadable, ...] = ()
    expanded: bool = False
    #: The person reverted this call's file changes (the card says so instead of offering Revert).
    reverted: bool = False
    #: Why Revert cannot find this call's changes (the change log could not take them), or ``None``.
    not_recorded: str | None = None
    #: A call stopped while its tool ran: the files it had already changed (from the change log).
    changed_before_stop: tuple[str, ...] = ()
    #: The stored message this row shows (its id in the conversation's tree), when known.
    node: str = ""
    #: Its place among branches, when it has siblings (the "‹ 2/3 ›" switcher).
    branch: BranchPosition | None = None
    #: Tokens and time of the answer (the footer), when measured.
    stats: AnswerStats | None = None
    #: The last answer of the conversation: it offers Regenerate.
    last_answer: bool = False
    #: The stored message the row shows (a card: its result's), 0 when not loaded from the store.
    message_id: int = 0
    #: Bumped on every change; the delegate's layout cache is keyed on it.
    version: int = 0

    def touch(self) -> None:
        self.version += 1

    def show_result(self, facts: ResultFacts) -> None:
        """A tool card takes its call's result (read once, see ``card_parse``)."""
        self.result, self.error, self.error_kind = facts.content, facts.error, facts.error_kind
        self.file_changes, self.subtranscript = facts.file_changes, facts.subtranscript
        self.grid, self.sandbox, self.denied_note = facts.grid, facts.sandbox, facts.denied_note
        self.unreadable, self.not_recorded = facts.unreadable, facts.not_recorded
        self.status = facts.status
