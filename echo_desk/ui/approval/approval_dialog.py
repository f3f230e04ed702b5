"""The approval dialog: one view of an ``ApprovalRequest``; its answer is an ``ApprovalDecision``.

Shows the tool (localized title + internal name), risk, the scope asking, the full targets and
every file change as a diff tab. Escape, closing the window and Enter all deny: nothing is
approved without pressing an Allow button.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest
from echo_desk.agent.permissions import GrantScope, Suggestion
from echo_desk.common.hunks import bind_selection
from echo_desk.common.visible_text import visible, visible_json, visible_path
from echo_desk.gateway.clients import display_name
from echo_desk.i18n import _, aside, list_text, shown, translate_in
from echo_desk.tools.results import JsonObject
from echo_desk.ui.approval import approval_keys
from echo_desk.ui.approval.front_delay import FrontDelay
from echo_desk.ui.approval.grant_choices import GrantChoices
from echo_desk.ui.approval.hunk_picker import HunkPicker, add_hunk_picker, chosen_hunks
from echo_desk.ui.approval.spawn_manifest import scope_names
from echo_desk.ui.approval.spawn_view import ManifestPanel, SubagentBanner
from echo_desk.ui.approval.targets_text import format_targets
from echo_desk.ui.core import i18n_qt, marshal, theme
from echo_desk.ui.core.labels import (
    CHANGE_LABELS,
    risk_colour,
    risk_label,
    source_label,
)
from echo_desk.ui.core.mnemonics import literal
from echo_desk.ui.widgets.diff_view import DiffPane
from echo_desk.ui.widgets.full_text_box import FullTextBox, plain_tooltip
from echo_desk.ui.widgets.warning_note import warning_note

#: More file changes without a diff than this (a folder's files) get no tab each.
_MOST_TABS_WITHOUT_DIFF = 20


def _with_visible_paths(text: str, request: ApprovalRequest) -> str:
    """``text`` with each path the request targets written as ``visible_path`` shows it: the
    summary "Create /w/notes.txt " ends in a space that draws nothing."""
    for target in request.targets:
        if target.kind == "path" and target.value and target.value in text:
            text = text.replace(target.value, visible_path(target.value))
    return text


def _tab_name(path: str) -> str:
    # A tab reads "&" as an Alt letter: "R&D.txt" showed as "RD.txt" and took Alt+D from Deny.
    return literal(visible_path(os.path.basename(path) or path))


class _Body(QWidget):
    """The scrolled part of the dialog, as tall as its parts' least heights at a width: a scroll
    area sizes a body with wrapping text to its preferred height, and scrolled a window that fits.
    The height is the one for the width left beside a scroll bar: the scroll area asks for the
    height at its whole width, then narrows the body when the bar appears, and text wraps longer."""

    def heightForWidth(self, width: int) -> int:
        layout = self.layout()
        if layout is None:
            return super().heightForWidth(width)
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        return layout.totalMinimumHeightForWidth(max(1, width - bar))


class ApprovalDialog(QDialog):
    """Non-blocking: call ``open()`` and listen to ``decided`` (emitted exactly once)."""

    decided = Signal(object)

    def __init__(self, request: ApprovalRequest, parent: QWidget | None = None,
                 title_for: Callable[[str], str] | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.is_spawn = request.spawn is not None
        self.decision: ApprovalDecision | None = None
        #: The client that asked withdrew the request (it cancelled it, or went away).
        self.withdrawn = False
        #: A client's dialog opens unasked in front of whatever the person was doing: its Allow
        #: works once it has been in front for ``ARM_DELAY_MS`` (a click meant for the window
        #: below, another app's dialog at the same place, must not approve it).
        self.front_delay = FrontDelay(self, self._update_allow, applies=bool(request.client))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumSize(720, 520)
        self.resize(980, 760)

        layout = QVBoxLayout(self)
        self._add_heading(layout, request)
        # Everything between the heading and the buttons scrolls as one when the window is
        # smaller than its parts need: squeezed below their least height, Qt drew the rules'
        # table over the grants and the diff over the arguments.
        body = _Body()
        body_layout = QVBoxLayout(body)
        body_layout.setContentsMargins(0, 0, 0, 0)
        self._add_facts(body_layout)
        self._add_notices(body_layout, request, title_for)
        # Permission rules: how each part was checked (under the targets), and narrow grants to
        # remember (under the request and its diffs).
        client = visible(display_name(request.client), one_line=True) if request.client else ""
        self.grant_choices = (GrantChoices(request.rules, client=client, parts_apart=True)
                              if request.rules is not None else None)
        fills = self._add_request_and_diffs(body_layout, request)
        self._add_rule_choices(body_layout, fills)
        self.body_scroll = QScrollArea()
        self.body_scroll.setWidgetResizable(True)
        self.body_scroll.setFrameShape(QFrame.Shape.NoFrame)
        # A Tab stop (arrows and Page keys scroll it) that showed no sign of having the focus.
        # The frame is always there, transparent without the focus, so nothing moves when it comes.
        self.body_scroll.setObjectName("approvalBody")
        theme.styled(self.body_scroll, lambda p: "QScrollArea#approvalBody { border: 2px solid transparent; } "
                                                 f"QScrollArea#approvalBody:focus {{ border: 2px solid {p.accent}; }}")
        self.body_scroll.setWidget(body)
        layout.addWidget(self.body_scroll, 1)
        self._add_decision(layout, request, title_for)

        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)
        approval_keys.install(self)  # Alt+A / Alt+D; Enter and Escape still deny
        self.deny.setFocus()
        self._update_allow()

    def _add_heading(self, layout: QVBoxLayout, request: ApprovalRequest) -> None:
        """What is asked, in large type, and who asks when a sub-agent does."""
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.heading.setFont(font)
        layout.addWidget(self.heading)
        # Shown when the client that asked withdrew the request: the dialog stays, says so, and
        # can only be closed (nothing is run, whatever is pressed).
        self.withdrawn_note = QLabel()
        self.withdrawn_note.setWordWrap(True)
        self.withdrawn_note.setTextFormat(Qt.TextFormat.PlainText)
        theme.styled(self.withdrawn_note, lambda p: f"color: {p.danger_text}; background: {p.danger_bg}; padding: 6px;")
        self.withdrawn_note.setVisible(False)
        layout.addWidget(self.withdrawn_note)
        # A sub-agent asking says so first, with its goal: the person must know who wants this.
        self.subagent_banner = SubagentBanner(request)
        layout.addWidget(self.subagent_banner)

    def _add_facts(self, layout: QVBoxLayout) -> None:
        """Tool, risk and scope, as a form."""
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.tool_label, self.tool_value = QLabel(), QLabel()
        self.risk_label, self.risk_value = QLabel(), QLabel()
        self.scope_label, self.scope_value = QLabel(), QLabel()
        for value in (self.tool_value, self.scope_value):
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(self.tool_label, self.tool_value)
        form.addRow(self.risk_label, self.risk_value)
        form.addRow(self.scope_label, self.scope_value)
        layout.addLayout(form)

    def _add_notices(self, layout: QVBoxLayout, request: ApprovalRequest, title_for: Callable[[str], str] | None) -> None:
        """Warnings and the summary above the request: hidden characters, what cannot be undone, a spawn manifest."""
        # Shown even when everything fits: characters that draw nothing or reorder the text.
        # The diffs are read a slice at a time by their panes, which say when they hold any.
        self.hidden_warning = warning_note(shown=request.hides_text(with_diffs=False))
        layout.addWidget(self.hidden_warning)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        # The spawn manifest is shown field by field below; its one-line summary would repeat it.
        self.summary.setVisible(bool(request.summary) and not self.is_spawn)
        layout.addWidget(self.summary)
        # Before approval: what Revert will not be able to put back (over the undo size limit).
        self.undo_warning = warning_note(shown=bool(request.not_restorable))
        layout.addWidget(self.undo_warning)
        # Why a call that would have run unasked is asked (the activity log cannot be written).
        self.asked_note = warning_note(shown=bool(request.asked_because))
        layout.addWidget(self.asked_note)
        self.manifest: ManifestPanel | None = None
        if request.spawn is not None:
            self.manifest = ManifestPanel(request, request.spawn, title_for)
            layout.addWidget(self.manifest)

    def _add_request_and_diffs(self, layout: QVBoxLayout, request: ApprovalRequest) -> bool:
        """Targets and arguments above, one diff tab per changed file below; True when they take the room."""
        splitter = QSplitter(Qt.Orientation.Vertical)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        # A row's gap under the last box: with none, the Arguments box's bottom edge met the
        # splitter's handle and read as hidden under it.
        top_layout.setContentsMargins(0, 0, 0, self.style().pixelMetric(QStyle.PixelMetric.PM_LayoutVerticalSpacing))
        self.targets_caption = QLabel()
        # As tall as the text (within reason); text that does not fit says how much is below
        # and must be scrolled or expanded to its end before anything can be allowed.
        self.targets = FullTextBox(format_targets(request), most_lines=6)
        self.arguments_caption = QLabel()
        self.arguments = FullTextBox(visible_json(request.arguments, indent=2), most_lines=10)
        # Linked, a screen reader names each box by its caption, and Alt plus its letter goes to it.
        self.targets_caption.setBuddy(self.targets)
        self.arguments_caption.setBuddy(self.arguments)
        top_layout.addWidget(self.targets_caption)
        top_layout.addWidget(self.targets)
        top_layout.addWidget(self.targets.footer)
        # The checks right under what they checked: below the arguments, at the dialog's least
        # size only a sliver of the table was in view before the body was scrolled.
        if self.grant_choices is not None:
            top_layout.addWidget(self.grant_choices.parts_box)
        for widget in (self.targets_caption, self.targets):
            widget.setVisible(bool(self.targets.toPlainText()))
        self.targets.is_loaded = self.targets.is_loaded or not self.targets.toPlainText()
        top_layout.addWidget(self.arguments_caption)
        top_layout.addWidget(self.arguments)
        top_layout.addWidget(self.arguments.footer)
        if self.is_spawn:
            # No diff below: the request itself may use the room instead of a scroll bar.
            self.arguments.setMaximumHeight(16777215)
        else:
            top_layout.addStretch(1)
        splitter.addWidget(top)

        self.tabs = QTabWidget()
        self.diff_panes: list[DiffPane] = []
        self.hunk_pickers: dict[str, HunkPicker] = {}
        # A whole folder moved or deleted is many files without a diff: they are listed in
        # Targets (which must be read to its end), not as thousands of empty tabs.
        without_diff = [c for c in request.file_changes if not c.diff and not c.truncated]
        self._tab_changes = [c for c in request.file_changes
                             if len(without_diff) <= _MOST_TABS_WITHOUT_DIFF or c.diff or c.truncated]
        for change in self._tab_changes:
            pane = DiffPane(change.diff, truncated=change.truncated, hunks=change.hunks)
            self.diff_panes.append(pane)
            if request.hunk_selectable and not change.truncated and change.hunks:
                self.hunk_pickers[change.path] = add_hunk_picker(pane, change.hunks)
            self.tabs.addTab(pane, _tab_name(change.path))
            self.tabs.setTabToolTip(self.tabs.count() - 1, plain_tooltip(change.path))
        # One rule for diffs and text boxes: every line in front of the person before Allow.
        self._must_see: list[DiffPane | FullTextBox] = [*self.diff_panes, self.targets, self.arguments]
        for part in self._must_see:
            part.loaded.connect(self._update_allow)
        for pane in self.diff_panes:
            pane.loaded.connect(self._show_hidden_in_diffs)
        self._show_hidden_in_diffs()  # a short diff was read whole already
        self.tabs.setVisible(bool(self._tab_changes))
        splitter.addWidget(self.tabs)
        splitter.setCollapsible(0, False)
        if self._tab_changes:
            splitter.setStretchFactor(1, 1)
        # The diff takes the room; without one, the rules' table below does (no empty gap).
        fills = bool(self._tab_changes) or self.is_spawn or request.rules is None
        layout.addWidget(splitter, 1 if fills else 0)
        return fills

    def _add_rule_choices(self, layout: QVBoxLayout, fills: bool) -> None:
        """The narrow grants the engine suggests, to allow and remember."""
        if self.grant_choices is not None:
            self.grant_choices.chosen.connect(self._grant)
            layout.addWidget(self.grant_choices, 0 if fills else 1)

    def _add_decision(self, layout: QVBoxLayout, request: ApprovalRequest, title_for: Callable[[str], str] | None) -> None:
        """The note for a denial and the buttons; Deny is the default."""
        deny_row = QHBoxLayout()
        self.message_caption = QLabel()
        self.message = QLineEdit()
        self.message_caption.setBuddy(self.message)
        deny_row.addWidget(self.message_caption)
        deny_row.addWidget(self.message, 1)
        layout.addLayout(deny_row)

        buttons = QHBoxLayout()
        self.allow_once = QPushButton()
        self.allow_conversation = QPushButton()
        self.always_allow = QPushButton()
        self.deny = QPushButton()
        for button, choice in ((self.allow_once, ApprovalChoice.ALLOW_ONCE),
                               (self.allow_conversation, ApprovalChoice.ALLOW_CONVERSATION),
                               (self.always_allow, ApprovalChoice.ALWAYS_ALLOW)):
            button.setAutoDefault(False)  # Enter on a focused Allow button must not approve
            button.clicked.connect(self._choose(choice))
            buttons.addWidget(button)
        self.edit = QPushButton()
        self.edit.setAutoDefault(False)
        self.edit.setVisible(request.revise is not None and not self.is_spawn)
        self.edit.clicked.connect(self._edit_arguments)
        self._title_for = title_for
        buttons.addWidget(self.edit)
        buttons.addStretch(1)
        self.deny.setDefault(True)
        self.deny.clicked.connect(self._choose(ApprovalChoice.DENY))
        buttons.addWidget(self.deny)
        self.close_button = QPushButton()
        self.close_button.setVisible(False)
        self.close_button.clicked.connect(self.reject)
        buttons.addWidget(self.close_button)
        layout.addLayout(buttons)

    def _show_hidden_in_diffs(self) -> None:
        if any(pane.hides_text for pane in self.diff_panes):
            self.hidden_warning.setVisible(True)

    def _update_allow(self) -> None:
        # Nothing can be allowed before every line of every diff is in the dialog and every
        # target and argument was in view to its end, nor in a client's dialog that has just
        # come to the front.
        ready = all(part.is_loaded for part in self._must_see) and self.front_delay.armed and not self.withdrawn
        for button in (self.allow_once, self.allow_conversation, self.always_allow):
            button.setEnabled(ready)
        if self.grant_choices is not None:
            self.grant_choices.set_ready(ready)

    def retranslate(self, *_args: object) -> None:
        r = self.request
        title = visible(translate_in(r.tool_domain, r.tool_title, r.tool_locale_dir) if r.tool_title else r.tool_name,
                        one_line=True)
        client = visible(display_name(r.client), one_line=True) if r.client else ""
        if client:
            self.setWindowTitle(_("{client} asks: approve {tool}?").format(client=client, tool=title))
            self.heading.setText(_("{client}, through MCP, wants to use “{tool}”").format(client=client, tool=title))
        else:
            self.setWindowTitle(_("Approve {tool}?").format(tool=title))
        if self.is_spawn:
            self.heading.setText(_("Echo Desk wants to start a sub-agent"))
        elif not client:
            self.heading.setText(_("Echo Desk wants to use “{tool}”").format(tool=title))
        if self.withdrawn:
            self.setWindowTitle(_("Withdrawn: {title}").format(title=self.windowTitle()))
            self.withdrawn_note.setText(_("Withdrawn: {client} cancelled this request or disconnected before you "
                                          "answered. Nothing was run; you can close this window.").format(
                client=client or _("the agent")))
        self.subagent_banner.retranslate()
        if self.manifest is not None:
            self.manifest.retranslate()
        # The body is a Tab stop so arrow and Page keys scroll it; it must say what it is.
        self.body_scroll.setAccessibleName(_("Details of the request"))
        self.tool_label.setText(_("Tool:"))
        self.tool_value.setText(_("{tool} — {source}").format(tool=aside(title, visible(r.tool_name, one_line=True)),
                                                              source=visible(source_label(r.source), one_line=True)))
        self.risk_label.setText(_("Risk:"))
        colour = risk_colour(r.risk.value)
        self.risk_value.setText(f"<b style='color:{colour}'>{risk_label(r.risk.value)}</b>")
        self.scope_label.setText(_("Asked by:"))
        chain = " › ".join(scope_names(r.links)) if r.scope_chain else (r.scope_label or r.scope_id)
        if client:  # not a conversation of Echo Desk's: another program's agent
            chain = _("{client} (an MCP client, through Echo Desk's gateway)").format(client=client)
        self.scope_value.setText(visible(chain, one_line=True))
        self.hidden_warning.setText(_("This request contains hidden or control characters (bidi, zero-width, "
                                      "line separators…). They are shown as ⟨U+…⟩ where they are: read "
                                      "the targets, arguments and changes carefully."))
        if r.not_restorable:
            self.undo_warning.setText(_("Not restorable: Revert will not be able to put back these files, larger "
                                        "than the undo size limit in Settings: {paths}").format(
                paths=list_text(visible(p, one_line=True) for p in r.not_restorable)))
        self.asked_note.setText(shown(r.asked_because))
        # Built by the engine, in the language of its time; one line (a file name in it may hold a line feed).
        self.summary.setText(visible(_with_visible_paths(shown(r.summary), r), one_line=True))
        self.targets_caption.setText(_("&Targets"))
        if self.targets.toPlainText() != format_targets(r):
            self.targets.setPlainText(format_targets(r))  # same lines, labels in the new language
        self.arguments_caption.setText(_("&What the agent asked for") if self.is_spawn else _("A&rguments"))
        for i, change in enumerate(self._tab_changes):
            kind = _(CHANGE_LABELS.get(change.kind.value, change.kind.value))
            self.tabs.setTabText(i, aside(_tab_name(change.path), kind))
        self.message_caption.setText(_("&Message if denied:"))
        self.message.setPlaceholderText(_("Optional: tell the agent why, or what to do instead"))
        self.allow_once.setText(_("Allow once"))
        self.allow_conversation.setText(_("Allow for this session of {client}").format(client=client) if client
                                        else _("Allow for this conversation"))
        # "Always" is the catalog's own setting: when apps call through the gateway, the button
        # says it is not the asker's alone (in the chat too: it lets those apps as well).
        always = (_("Always allow this tool, for every app") if client or r.shared_with_clients
                  else _("Always allow this tool"))
        self.always_allow.setText(always)
        self.always_allow.setToolTip(_("From now on, Echo Desk's own chat and every app connected through its "
                                       "gateway run this tool without asking."))
        self.deny.setText(_("Deny"))
        self.close_button.setText(_("Close"))
        self.edit.setText(_("Edit…"))
        names = {
            self.targets: _("Targets of this call"), self.arguments: _("Arguments of this call"),
            self.tabs: _("Proposed file changes"), self.message: _("Message for the agent if denied"),
            self.allow_once: _("Allow once"), self.allow_conversation: _("Allow for this conversation"),
            self.always_allow: always, self.deny: _("Deny"),
            self.edit: _("Edit the arguments"),
            self.tool_value: _("Tool"), self.risk_value: _("Risk level"), self.scope_value: _("Asked by"),
            self.heading: self.heading.text(), self.summary: _("Summary"),
        }
        for widget, name in names.items():
            widget.setAccessibleName(name)
        for box in (self.targets, self.arguments):  # two "Show all of this text" buttons: which one
            box.expand.setAccessibleDescription(box.accessibleName())

    def _choose(self, choice: ApprovalChoice) -> Callable[[], None]:
        return lambda: self._finish(choice)

    def _grant(self, suggestion: Suggestion, scope: GrantScope) -> None:
        # Allowed now, and the engine stores the chosen narrow grant (or rule, for "always").
        self._finish(ApprovalChoice.ALLOW_ONCE, suggestion, scope)

    def _finish(self, choice: ApprovalChoice, suggestion: Suggestion | None = None,
                scope: GrantScope | None = None) -> None:
        if self.decision is not None:
            return
        selection = chosen_hunks(self.hunk_pickers) if choice is not ApprovalChoice.DENY else None
        message = self.message.text().strip() if choice is ApprovalChoice.DENY or selection else ""
        self.decision = ApprovalDecision(call_id=self.request.call_id, choice=choice, message=message,
                                         binding=bind_selection(self.request.binding, selection),
                                         selection=selection, suggestion=suggestion, grant_scope=scope)
        self.decided.emit(self.decision)
        if choice is ApprovalChoice.DENY:
            super().reject()
        else:
            super().accept()

    def _edit_arguments(self) -> None:
        from echo_desk.ui.approval.argument_editor import ArgumentEditor
        self.editor = ArgumentEditor(self.request.parameters_schema, self.request.arguments,
                                     self._start_revise, self)
        self.editor.open()

    def _start_revise(self, arguments: JsonObject) -> None:
        marshal.spawn(self._revise(arguments))

    async def _revise(self, arguments: JsonObject) -> None:
        """The engine checks and previews the edit; the new version replaces this dialog."""
        from echo_desk.agent.revision import RevisionRefused

        assert self.request.revise is not None
        try:
            revised = await self.request.revise(arguments)
        except RevisionRefused as exc:
            self.editor.show_error(exc.args[0] if exc.args else str(exc))  # a deferred text stays one
            return
        self.editor.accept()
        self.follow = ApprovalDialog(revised, self.parentWidget(), self._title_for)
        self.follow.decided.connect(self._adopt)
        self.hide()
        self.follow.open()

    def _adopt(self, decision: ApprovalDecision) -> None:
        # The answer given to the re-previewed version is this dialog's answer.
        if self.decision is None:
            self.decision = decision
            self.decided.emit(decision)
            super().accept()

    def withdraw(self) -> None:
        """The client that asked withdrew the request: say so and keep only Close (never a silent
        disappearance: the person may be reading it)."""
        if self.decision is not None or self.withdrawn:
            return
        self.withdrawn = True
        follow = getattr(self, "follow", None)
        if isinstance(follow, ApprovalDialog):
            follow.withdraw()
        editor = getattr(self, "editor", None)
        if isinstance(editor, QDialog):
            editor.close()
        for widget in (self.allow_once, self.allow_conversation, self.always_allow, self.deny, self.edit,
                       self.message):
            widget.setEnabled(False)
        if self.grant_choices is not None:
            self.grant_choices.setEnabled(False)
        self.deny.setDefault(False)
        self.close_button.setVisible(True)
        self.close_button.setDefault(True)
        self.close_button.setFocus()
        self.withdrawn_note.setVisible(True)
        self.retranslate()

    def reject(self) -> None:
        """Escape and the window's close button deny (or, once withdrawn, just close)."""
        if self.withdrawn:
            super().reject()
            return
        self._finish(ApprovalChoice.DENY)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.withdrawn:
            self._finish(ApprovalChoice.DENY)
        super().closeEvent(event)
