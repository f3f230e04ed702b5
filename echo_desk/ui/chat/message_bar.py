"""The small line under a message: its footer (tokens and time), the branch switcher
"‹ 2/3 ›" and its actions (Copy, Edit, Regenerate), as links the transcript view turns into
:class:`MessageAction`s — the same actions its context menu and keys offer."""

from __future__ import annotations

import enum
import html
import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QKeyEvent, QKeySequence, QTextDocument, QTextOption

from echo_desk import i18n
from echo_desk.i18n import _
from echo_desk.ui.chat.transcript import ASSISTANT, TOOL, USER, TranscriptItem
from echo_desk.ui.core import theme

if TYPE_CHECKING:
    from echo_desk.store.answer_stats import AnswerStats

#: Links in the bar are ``echo-desk:message:<action>``.
ANCHOR_PREFIX = "echo-desk:message:"


class MessageAction(enum.StrEnum):
    """What the person can do to a message."""

    COPY = "copy"
    EDIT = "edit"
    REGENERATE = "regenerate"
    PREVIOUS_BRANCH = "previous-branch"
    NEXT_BRANCH = "next-branch"

    @classmethod
    def of_anchor(cls, anchor: str) -> MessageAction | None:
        if not anchor.startswith(ANCHOR_PREFIX):
            return None
        try:
            return cls(anchor[len(ANCHOR_PREFIX):])
        except ValueError:
            return None


def actions_for(item: TranscriptItem) -> list[MessageAction]:
    """The actions that apply to ``item`` now (a card has only the switcher of its message)."""
    actions: list[MessageAction] = []
    if item.kind in (USER, ASSISTANT):
        actions.append(MessageAction.COPY)
    if item.kind == USER and item.node:
        actions.append(MessageAction.EDIT)
    if item.last_answer:
        actions.append(MessageAction.REGENERATE)
    if item.branch is not None and item.branch.count > 1:
        if item.branch.index > 1:
            actions.append(MessageAction.PREVIOUS_BRANCH)
        if item.branch.index < item.branch.count:
            actions.append(MessageAction.NEXT_BRANCH)
    return actions


def has_bar(item: TranscriptItem) -> bool:
    return item.kind in (USER, ASSISTANT) or (item.kind == TOOL and item.branch is not None
                                              and item.branch.count > 1)


def action_label(action: MessageAction) -> str:
    return {
        MessageAction.COPY: _("Copy"),
        MessageAction.EDIT: _("Edit…"),
        MessageAction.REGENERATE: _("Regenerate"),
        MessageAction.PREVIOUS_BRANCH: _("Previous version"),
        MessageAction.NEXT_BRANCH: _("Next version"),
    }[action]


def footer_text(stats: AnswerStats) -> str:
    """"120 in · 45 out · 1.3 s · 38.2 tokens/s": what is known of it, in the current language."""
    parts = []
    if stats.input_tokens is not None:
        parts.append(_("{n} in").format(n=stats.input_tokens))
    if stats.output_tokens is not None:
        parts.append(_("{n} out").format(n=stats.output_tokens))
    parts.append(_("{seconds:.1f} s").format(seconds=stats.elapsed_seconds))
    rate = stats.tokens_per_second
    if rate is not None:
        parts.append(_("{rate:.1f} tokens/s").format(rate=rate))
    return " · ".join(parts)


def _link(action: MessageAction, text: str, *, padded: bool = False) -> str:
    # A padded link (an arrow) is wider than its narrow glyph, so it is easy to hit.
    pad = "&nbsp;&nbsp;" if padded else ""
    return (f"<a href='{ANCHOR_PREFIX}{action.value}' style='color:{theme.current().link}; text-decoration:none'>"
            f"{pad}{html.escape(text)}{pad}</a>")


def bar_html(item: TranscriptItem) -> str:
    """The bar under ``item``; its links carry ``ANCHOR_PREFIX`` + a :class:`MessageAction`."""
    actions = actions_for(item)
    parts: list[str] = []
    branch = item.branch
    if branch is not None and branch.count > 1:
        # Bold, padded arrows: they are the switcher's click targets.
        previous = (_link(MessageAction.PREVIOUS_BRANCH, "‹", padded=True)
                    if MessageAction.PREVIOUS_BRANCH in actions
                    else f"<span style='color:{theme.current().faint}'>&nbsp;&nbsp;‹&nbsp;&nbsp;</span>")
        following = (_link(MessageAction.NEXT_BRANCH, "›", padded=True) if MessageAction.NEXT_BRANCH in actions
                     else f"<span style='color:{theme.current().faint}'>&nbsp;&nbsp;›&nbsp;&nbsp;</span>")
        parts.append(f"<span style='font-weight:700'>{previous}</span>"
                     f"<span style='color:{theme.current().muted}'>{branch.index}/{branch.count}</span>"
                     f"<span style='font-weight:700'>{following}</span>")
    for action in (MessageAction.COPY, MessageAction.EDIT, MessageAction.REGENERATE):
        if action in actions:
            parts.append(_link(action, action_label(action)))
    if item.stats is not None:
        parts.append(f"<span style='color:{theme.current().muted}'>{html.escape(footer_text(item.stats))}</span>")
    separator = "&nbsp;&nbsp;·&nbsp;&nbsp;"  # not prose: links and figures side by side, a dot between
    return f"<div style='font-size:small'>{separator.join(parts)}</div>"


class BarDocuments:
    """The bars' laid-out documents, made only for the rows that are painted or clicked.

    A bar is one line (it does not wrap), so every bar has the same height and measuring a row —
    which the view does for every row of a long conversation — needs no bar document.
    """

    #: Space between a message and its bar.
    GAP = 4.0

    def __init__(self) -> None:
        self._docs: weakref.WeakKeyDictionary[TranscriptItem, tuple[tuple[object, ...], QTextDocument]] = (
            weakref.WeakKeyDictionary())
        self._heights: dict[tuple[object, ...], float] = {}

    def height(self, item: TranscriptItem, font: QFont) -> float:
        """The room ``item``'s bar takes under it (0 without a bar)."""
        if not has_bar(item):
            return 0.0
        key = (font.key(), i18n.current_language())
        height = self._heights.get(key)
        if height is None:
            height = self._heights[key] = self.GAP + _layout(bar_html(TranscriptItem(USER, text="x")), font).size().height()
        return height

    def document(self, item: TranscriptItem, font: QFont) -> QTextDocument | None:
        if not has_bar(item):
            return None
        key = (item.version, font.key(), i18n.current_language(), theme.current().name)
        cached = self._docs.get(item)
        if cached is not None and cached[0] == key:
            return cached[1]
        doc = _layout(bar_html(item), font)
        self._docs[item] = (key, doc)
        return doc


def _layout(markup: str, font: QFont) -> QTextDocument:
    doc = QTextDocument()
    doc.setDefaultFont(font)
    doc.setDocumentMargin(0)
    option = doc.defaultTextOption()
    option.setWrapMode(QTextOption.WrapMode.NoWrap)
    doc.setDefaultTextOption(option)
    doc.setHtml(markup)
    return doc


def key_action(item: TranscriptItem, event: QKeyEvent) -> MessageAction | None:
    """The action a key asks for on the current row: F2 edits, Ctrl+R regenerates,
    Alt+Left / Alt+Right switch versions (Ctrl+C copies, handled with the view's Copy)."""
    alt = event.modifiers() == Qt.KeyboardModifier.AltModifier
    wanted = {
        Qt.Key.Key_F2: MessageAction.EDIT,
        Qt.Key.Key_Left: MessageAction.PREVIOUS_BRANCH if alt else None,
        Qt.Key.Key_Right: MessageAction.NEXT_BRANCH if alt else None,
    }.get(Qt.Key(event.key()))
    if event.matches(QKeySequence.StandardKey.Refresh) or (
            event.key() == Qt.Key.Key_R and event.modifiers() == Qt.KeyboardModifier.ControlModifier):
        wanted = MessageAction.REGENERATE
    return wanted if wanted is not None and wanted in actions_for(item) else None
