"""MCP prompts in the message box: typing ``/`` offers ``/server:prompt`` completions; choosing
one asks for its arguments (``PromptForm``) and fills the box with the server's text for the
person to read and send. Nothing is ever sent from here.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import QCompleter, QPlainTextEdit

from echo_desk.common.visible_text import visible
from echo_desk.i18n import _, list_text, shown
from echo_desk.ui.chat.prompt_form import PromptForm
from echo_desk.ui.core import marshal

if TYPE_CHECKING:
    from echo_desk.mcp.manager import McpManager
    from echo_desk.mcp.prompts import PromptInfo, PromptText

#: A command being typed at the start of the box: ``/``, ``/ser``, ``/server:pro``.
_TYPING = re.compile(r"^/[^\s/]*$")
#: How long a fetched list of prompts is offered before it is asked for again.
_FRESH_SECONDS = 30.0


class PromptCompleter:
    def __init__(self, composer: QPlainTextEdit, manager: Callable[[], McpManager | None],
                 say: Callable[[str], None]) -> None:
        self.composer = composer
        self._manager = manager
        self._say = say
        self.prompts: dict[str, PromptInfo] = {}
        self._fetched_at = 0.0
        self._fetching = False
        self.model = QStringListModel()
        self.completer = QCompleter(self.model, composer)
        self.completer.setWidget(composer)
        self.completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.completer.activated.connect(self.choose)
        self.form: PromptForm | None = None
        composer.textChanged.connect(self._typed)

    def _hide_popup(self) -> None:
        popup = self.completer.popup()
        if popup is not None:
            popup.hide()

    def _typed(self) -> None:
        text = self.composer.toPlainText()
        if not _TYPING.match(text) or self._manager() is None:
            self._hide_popup()
            return
        if time.monotonic() - self._fetched_at > _FRESH_SECONDS and not self._fetching:
            self._fetching = True
            marshal.spawn(self._fetch())
        self._offer(text)

    async def _fetch(self) -> None:
        manager = self._manager()
        try:
            listed = await manager.prompts() if manager is not None else []
        finally:
            self._fetching = False
        self._fetched_at = time.monotonic()
        # Offered, typed and looked up as the person sees it: a server's prompt name is its own
        # text, hidden characters (a bidi override, ESC) shown as their escapes.
        self.prompts = {visible(p.command, one_line=True): p for p in listed}
        self.model.setStringList(sorted(self.prompts))
        if _TYPING.match(self.composer.toPlainText()):
            self._offer(self.composer.toPlainText())

    def _offer(self, text: str) -> None:
        if not self.prompts:
            return
        self.completer.setCompletionPrefix(text)
        rect = self.composer.cursorRect()
        popup = self.completer.popup()
        rect.setWidth(max(320, (popup.sizeHintForColumn(0) if popup is not None else 0) + 24))
        self.completer.complete(rect)

    def choose(self, command: str) -> None:
        """The person picked ``command``: ask for its arguments, or fetch it at once if it has none."""
        self._hide_popup()
        prompt = self.prompts.get(command)
        if prompt is None:
            return
        if not prompt.arguments:
            marshal.spawn(self._fill(prompt, {}))
            return
        form = PromptForm(prompt, self.composer.window())
        form.accepted.connect(lambda: marshal.spawn(self._fill(prompt, form.values())))
        form.finished.connect(lambda _r: setattr(self, "form", None))
        self.form = form
        form.open()

    async def _fill(self, prompt: PromptInfo, values: dict[str, str]) -> None:
        from echo_desk.mcp.resources import ResourceError

        manager = self._manager()
        if manager is None:
            return
        try:
            result: PromptText = await manager.get_prompt(prompt.server, prompt.name, values)
        except ResourceError as exc:
            self._say(visible(_("The prompt {command} failed: {reason}").format(command=prompt.command,
                                                                                 reason=shown(exc.text)), one_line=True))
            return
        self.composer.setPlainText(result.text)
        self.composer.setFocus()
        notes = []
        if result.removed:
            notes.append(_("Hidden characters were removed from the server's text: {chars}").format(
                chars=list_text(sorted(set(result.removed)))))
        if result.truncated:
            notes.append(_("The server's text was cut to fit the message box."))
        self._say(" ".join(notes))
