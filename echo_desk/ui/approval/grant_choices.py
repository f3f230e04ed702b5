"""The approval dialog's permission-rules panel: how each sub-command was checked, and the
narrow grants the engine suggests ("Allow “git status **” for 15 minutes").

It shows the request's ``Verdict`` (parts and suggestions) exactly as the engine made it and
answers with data: the chosen ``Suggestion`` and ``GrantScope`` (``chosen``). Nothing here
decides anything; an opaque command never has a suggestion because the engine offers none.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.permissions import GrantScope, PartKind, Suggestion, Verdict
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, list_text, quoted
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.rules_text import plain_tooltip, scope_label
from echo_desk.ui.widgets.parts_table import PartsTable

#: The scopes offered for a suggested rule, narrowest first ("once" is the dialog's own button).
OFFERED_SCOPES = (GrantScope.MINUTES_15, GrantScope.CONVERSATION, GrantScope.WORKSPACE, GrantScope.ALWAYS)


def plain_button_text(text: str) -> str:
    """Button text shown literally: a ``&`` in a command must not become a keyboard mnemonic."""
    return text.replace("&", "&&")


#: A database grant's pattern is a statement class (``permissions.toml``: ``tool = "db:shop"``).
STATEMENT_LABELS = {"read": N_("reading"), "write": N_("writing"), "schema": N_("schema changes")}


#: A path grant is for a family of uses, not for the tool that asked: the words say which.
#: ``quoted_path`` holds the path in the language's own quotes, so Chinese sets no space before it.
PATH_USES = {"write": N_("changes to {quoted_path}"), "read": N_("reading {quoted_path}")}
#: What a path grant covers besides the tool in the dialog (its tooltip).
PATH_USE_COVERS = {
    "write": N_("Covers every tool that changes files (write, edit, append, create a folder, move, delete) and a "
                "command's redirection into this path, not only the tool asking now."),
    "read": N_("Covers every tool that reads files and a command's redirection from this path, not only the tool "
               "asking now."),
}


def suggestion_text(suggestion: Suggestion) -> str:
    """What the rule would allow: its pattern (or the whole tool when it has none), quoted; a
    database's statement class in words ("writing on shop"); a path with its use ("changes to …")."""
    if suggestion.tool.startswith("db:") and suggestion.pattern in STATEMENT_LABELS:
        return _("{statements} on {connection}").format(statements=_(STATEMENT_LABELS[suggestion.pattern]),
                                                        connection=visible(suggestion.tool.removeprefix("db:"),
                                                                           one_line=True))
    # A pattern holds what the model sent (a path, a command): bidi and invisible characters shown.
    pattern = quoted(visible(suggestion.pattern if suggestion.pattern is not None else suggestion.tool,
                             one_line=True))
    if suggestion.tool in PATH_USES and suggestion.pattern is not None:
        return _(PATH_USES[suggestion.tool]).format(quoted_path=pattern)
    return pattern


def offered_scope_label(scope: GrantScope, client: str) -> str:
    """A scope as the dialog offers it: "always" says whose it is (the rule it writes names the
    caller: the chat's speaks for the chat only, a client's for that client only)."""
    if scope is not GrantScope.ALWAYS:
        return scope_label(scope)
    if client:
        return _("always, for {client} only (added to permissions.toml)").format(client=client)
    return _("always, in Echo Desk's chat only (added to permissions.toml)")


def falls_short_text(suggestion: Suggestion) -> str:
    """Why the rule alone will not allow its command next time ('' when it will): the programs
    the command also runs that the rules do not allow (the editor ``git commit`` starts)."""
    if not suggestion.also_runs:
        return ""
    return _("this command also runs {quoted_programs}, which your rules do not allow, so it will ask again").format(
        quoted_programs=list_text(quoted(visible(p, one_line=True)) for p in suggestion.also_runs))


def still_asks_text(verdict: Verdict) -> str:
    """That the line would ask again even with every rule offered ('' when it would not)."""
    if not verdict.still_asks:
        return ""
    return _("Even with the rules offered here, this line will ask again next time: none of them allows {quoted_parts}.").format(
        quoted_parts=list_text(quoted(visible(p, one_line=True)) for p in verdict.still_asks))


def several_commands(verdict: Verdict) -> bool:
    """Whether the line has more than one command: each choice then covers its own only."""
    return sum(1 for p in verdict.parts if p.kind is PartKind.COMMAND) > 1


def covers_text(suggestion: Suggestion, verdict: Verdict) -> str:
    """What the choice covers when that is less than the line ('' when it is the line): the
    command it names, and the rules offered beside it that the command needs too (a wrapper's
    ``nice **`` and its program's ``make test **``)."""
    command = quoted(visible(suggestion.label, one_line=True))
    if suggestion.needs:
        return _("Not enough alone: {quoted_command} also needs {quoted_rules}, offered here too").format(
            quoted_command=command, quoted_rules=list_text(quoted(visible(p, one_line=True)) for p in suggestion.needs))
    if several_commands(verdict):
        return _("Only for {quoted_command}, not the other commands of this line").format(quoted_command=command)
    return ""


def whole_line_text(verdict: Verdict) -> str:
    """Whether every rule offered, chosen in turn, lets the whole line run next time: said when
    there is more than one choice, or when the line would ask again anyway ('' otherwise)."""
    if verdict.still_asks:
        return still_asks_text(verdict)
    if len(verdict.suggestions) < 2 or any(s.also_runs for s in verdict.suggestions):
        return ""  # (one choice: it says itself what it allows; an also_runs note says why not)
    return _("With all the rules offered here, this whole line will run without asking next time. "
             "Each choice adds only its own rule: the line asks again until every one is chosen.")


def suggestion_tooltip(suggestion: Suggestion) -> str:
    """The commands the rule was made from, and for a path what else it covers (plain text)."""
    lines = [visible(m, one_line=True) for m in suggestion.examples.match]
    if suggestion.tool in PATH_USE_COVERS:
        lines.insert(0, _(PATH_USE_COVERS[suggestion.tool]))
    short = falls_short_text(suggestion)
    if short:
        lines.append(short)
    return plain_tooltip("\n".join(lines))




class GrantChoices(QWidget):
    """Parts of the call with their verdicts, and the suggested rules with a scope."""

    #: (Suggestion, GrantScope) — the person chose to allow and remember.
    chosen = Signal(object, object)

    def __init__(self, verdict: Verdict, parent: QWidget | None = None, *, client: str = "",
                 parts_apart: bool = False) -> None:
        """``client``: the gateway client asking, as shown (empty: Echo Desk's own chat).
        ``parts_apart``: the owner lays out ``parts_box`` (the checks table with its caption) itself."""
        super().__init__(parent)
        self.verdict = verdict
        self.client = client
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)

        self.parts_box = QWidget()
        parts_layout = QVBoxLayout(self.parts_box)
        parts_layout.setContentsMargins(0, 0, 0, 0)
        self.parts_caption = QLabel()
        self.parts = PartsTable()
        self.parts.show_parts(verdict.parts)
        self.parts_caption.setBuddy(self.parts)
        parts_layout.addWidget(self.parts_caption)
        parts_layout.addWidget(self.parts)
        self.parts_box.setVisible(bool(verdict.parts))
        if not parts_apart:
            layout.addWidget(self.parts_box)

        self.remember_caption = QLabel()
        layout.addWidget(self.remember_caption)
        self.group = QButtonGroup(self)
        self.radios: list[QRadioButton] = []
        #: Under each choice, what it covers when that is less than the line: its own command, and
        #: the rules offered beside it that the command needs too ('' and hidden: the line).
        self.covers: list[QLabel] = []
        #: Under each choice, why its rule alone will not allow the command ('' and hidden: it will).
        self.falls_short: list[QLabel] = []
        for i, suggestion in enumerate(verdict.suggestions):
            radio = QRadioButton()
            self.group.addButton(radio, i)
            self.radios.append(radio)
            layout.addWidget(radio)
            indent = radio.style().pixelMetric(radio.style().PixelMetric.PM_ExclusiveIndicatorWidth) * 2
            for notes, needed in ((self.covers, bool(covers_text(suggestion, verdict))),
                                 (self.falls_short, bool(suggestion.also_runs))):
                note = QLabel()
                note.setWordWrap(True)
                note.setIndent(indent)
                note.setVisible(needed)
                notes.append(note)
                layout.addWidget(note)
        if self.radios:
            self.radios[0].setChecked(True)
        #: Whether the whole line runs next time with every rule offered: it would ask again (a
        #: write no rule allows), or, with several choices, it would not once all are chosen.
        self.still_asks = QLabel()
        self.still_asks.setWordWrap(True)
        self.still_asks.setVisible(bool(verdict.suggestions and whole_line_text(verdict)))
        layout.addWidget(self.still_asks)

        row = QHBoxLayout()
        self.scope_caption = QLabel()
        self.scope = QComboBox()
        for scope in OFFERED_SCOPES:
            self.scope.addItem("", scope)
        self.scope_caption.setBuddy(self.scope)
        self.allow = QPushButton()
        self.allow.setAutoDefault(False)  # Enter never approves
        self.allow.clicked.connect(self._emit)
        self.group.idToggled.connect(lambda *_: self._update_button())
        self.scope.currentIndexChanged.connect(lambda *_: self._update_button())
        row.addWidget(self.scope_caption)
        row.addWidget(self.scope)
        row.addStretch(1)
        layout.addLayout(row)
        # On its own row: its text names the rule and the scope in full, and beside the scope box
        # it was cut at both ends in a dialog of its minimum width (720 px).
        allow_row = QHBoxLayout()
        allow_row.addWidget(self.allow)
        allow_row.addStretch(1)
        layout.addLayout(allow_row)
        layout.addStretch(1)  # room the dialog gives goes below the choices, not between them
        has_choices = bool(verdict.suggestions)
        shown: tuple[QWidget, ...] = (self.remember_caption, self.scope_caption, self.scope, self.allow)
        for widget in shown:
            widget.setVisible(has_choices)

        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    @property
    def has_choices(self) -> bool:
        return bool(self.verdict.suggestions)

    def choice(self) -> tuple[Suggestion, GrantScope] | None:
        """The selected suggestion and scope (``None`` without suggestions)."""
        index = self.group.checkedId()
        if index < 0:
            return None
        return self.verdict.suggestions[index], GrantScope(self.scope.currentData())

    def set_ready(self, ready: bool) -> None:
        """The dialog enables this with its own Allow buttons (e.g. once every diff is shown)."""
        self.allow.setEnabled(ready and self.choice() is not None)

    def _emit(self) -> None:
        found = self.choice()
        if found is not None:
            self.chosen.emit(*found)

    def _update_button(self) -> None:
        found = self.choice()
        if found is None:
            self.allow.setText(_("Allow and remember"))
            return
        suggestion, scope = found
        self.allow.setText(plain_button_text(_("Allow {rule} {scope}").format(
            rule=suggestion_text(suggestion), scope=offered_scope_label(scope, self.client))))
        self.allow.setAccessibleName(self.allow.text().replace("&&", "&"))

    def retranslate(self, *_args: object) -> None:
        self.parts_caption.setText(_("&How each part of this call was checked"))
        self.parts.retranslate()
        # (with several commands, "this and similar calls" promised the whole line: a choice is one command's)
        self.remember_caption.setText(_("Or allow one command of this line from now on:")
                                      if several_commands(self.verdict)
                                      else _("Or allow this and similar calls from now on:"))
        for radio, suggestion in zip(self.radios, self.verdict.suggestions, strict=True):
            radio.setToolTip(suggestion_tooltip(suggestion))
            choice = _("Allow {rule}").format(rule=suggestion_text(suggestion))
            radio.setText(plain_button_text(choice))
            radio.setAccessibleName(choice)
            # (read aloud with the choice: what the notes under it say)
            radio.setAccessibleDescription(" ".join(t for t in (covers_text(suggestion, self.verdict),
                                                                falls_short_text(suggestion)) if t))
        for covers, note, suggestion in zip(self.covers, self.falls_short, self.verdict.suggestions, strict=True):
            covers.setText(covers_text(suggestion, self.verdict))
            note.setText(_("Not enough alone: {why}").format(why=falls_short_text(suggestion)) if suggestion.also_runs
                         else "")
        self.still_asks.setText(whole_line_text(self.verdict))
        self.scope_caption.setText(_("For how &long:"))
        for i, scope in enumerate(OFFERED_SCOPES):
            self.scope.setItemText(i, offered_scope_label(scope, self.client))
        self.scope.setAccessibleName(_("For how long"))
        self._update_button()
