""""About scopes and sub-agents": the catalog's explanation of what a scope grants, in the
person's language (the text goes through the gettext catalog like every other string).
``docs/scopes.md`` is the longer English version."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

from echo_desk.i18n import N_, _
from echo_desk.ui.core import i18n_qt

TITLE = N_("About scopes and sub-agents")
PARAGRAPHS = (
    N_("Every call the agent makes runs inside a scope. A conversation's scope is its workspace folder: "
       "tools read there, and tools that change files may only change files inside it. A tool you switch "
       "off on this page is unavailable in every scope, however deep."),
    N_("The agent may hand a self-contained task to a sub-agent with the “Delegate to a sub-agent” tool. "
       "You approve each start in a dialog that shows the goal, the tools the sub-agent will get, whether "
       "it is read-only or which folders it may change, its limits, and what it asked for but was refused."),
    N_("A sub-agent's permissions can only narrow. It gets only the tools named for it that its parent also "
       "has, never everything; no riskier tools than its parent may use; folders to change only inside its "
       "parent's (checked after following links); and no more turns or time than its parent has left. A "
       "read-only sub-agent gets no tool that changes files or runs commands."),
    N_("Its side effects still wait for your approval, like any other call. Those dialogs say that a "
       "sub-agent is asking and show its goal. A sub-agent can never approve its own requests, and it can "
       "start a sub-agent of its own only if it was given “Delegate to a sub-agent”, with narrower "
       "permissions again."),
    N_("Its work appears inside the “Delegate to a sub-agent” card in the chat: click the card to see every "
       "step. Stop ends the sub-agents too, and the audit log records the whole chain (conversation › "
       "sub-agent › …) for every call."),
)


def help_html() -> str:
    """The help text in the current language, as simple HTML."""
    body = "".join(f"<p>{html.escape(_(p))}</p>" for p in PARAGRAPHS)
    return f"<h3>{html.escape(_(TITLE))}</h3>{body}"


class ScopeHelpDialog(QDialog):
    """A small read-only page with ``help_html()``; follows language switches."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.resize(620, 520)
        layout = QVBoxLayout(self)
        self.browser = QTextBrowser()
        self.browser.setOpenExternalLinks(False)
        layout.addWidget(self.browser, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_(TITLE))
        self.browser.setHtml(help_html())
        self.browser.setAccessibleName(_(TITLE))
        close = self.buttons.button(QDialogButtonBox.StandardButton.Close)
        if close is not None:
            close.setText(_("Close"))
