"""The Sandbox settings page: where ``run_command`` runs in the current workspace, whether the
sandbox works on this system (and the fix when it does not), and the paths hidden from it.

The page shows the engine's answers (``echo_desk.sandbox.availability``, ``SandboxSettings``,
``sandbox.hidden_list``: what every command has hidden, each place with why); it decides nothing
itself. The status line (reason and fix) is worded by ``ui.sandbox_text``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from echo_desk import sandbox
from echo_desk.agent.permissions import PermissionEngine, sandbox_toggle
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, list_text
from echo_desk.sandbox import hidden_list
from echo_desk.sandbox.domains import BadDomain, DomainRule
from echo_desk.store import paths
from echo_desk.store.settings import SandboxMode, Settings, SettingsStore, WorkspaceSandbox
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.core.sandbox_text import status_text
from echo_desk.ui.settings.protected_list import ProtectedList
from echo_desk.ui.widgets.failure_text import say_failure

MODE_LABELS = {
    SandboxMode.SANDBOXED: N_("Sandboxed (recommended)"),
    SandboxMode.ASK_UNSANDBOXED: N_("Ask every time, no sandbox"),
    SandboxMode.OFF: N_("Off"),
}


def _why(place: hidden_list.HiddenPlace) -> str:
    """Why the sandbox hides ``place``, in the person's language."""
    if place.runtime:
        return _("your session's runtime folder (sockets, podman's logins)")
    if not place.variable:
        return _("a secret place, where its tool keeps it by default")
    if place.relative:
        return _("moved by {variable} (a relative value: also in every folder of the workspace)").format(
            variable=place.variable)
    return _("moved by {variable}").format(variable=place.variable)


def _shown(path: str, home: Path) -> str:
    """``path`` with the home folder written as ``~`` (as given, or with its links followed, as a
    moved place is), on one line."""
    for folder in (home, Path(os.path.realpath(home))):
        if Path(path).is_relative_to(folder):
            return visible(f"~/{Path(path).relative_to(folder)}", one_line=True)
    return visible(path, one_line=True)


def _is_domain(entry: str) -> bool:
    try:
        DomainRule.parse(entry)
    except BadDomain:
        return False
    return True


class SandboxPage(QWidget):
    """Mode and "run without asking" per workspace; status with the fix; hidden paths; what
    makes a program run code (protected)."""

    def __init__(self, settings: SettingsStore, workspace: Callable[[], str] = lambda: "",
                 availability: Callable[[], sandbox.Availability] = sandbox.availability,
                 parent: QWidget | None = None, *, rules: PermissionEngine | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        #: The box "run without asking" shows and edits an allow-in-sandbox rule of this engine.
        self.rules = rules
        self.workspace = workspace
        self.availability = availability
        # The page is taller than a small Settings window (the always-hidden list alone is ~10
        # lines): it scrolls, so its wrapped labels keep their height instead of being cut.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        # Not a stop of its own: the first Tab went to it and showed nothing (the area scrolls to
        # whatever control the focus moves to).
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        content = QWidget()
        self.scroll_area.setWidget(content)
        outer.addWidget(self.scroll_area)
        layout = QVBoxLayout(content)
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fallback = QLabel()
        self.fallback.setTextFormat(Qt.TextFormat.PlainText)
        self.fallback.setWordWrap(True)
        self.fallback.setStyleSheet(f"color: {theme.colour('warn')};")
        form = QFormLayout()
        self.mode = QComboBox()
        for mode in SandboxMode:
            self.mode.addItem("", mode.value)
        self.without_asking = QCheckBox()
        self.mode_label, self.workspace_label = QLabel(), QLabel()
        self.workspace_label.setTextFormat(Qt.TextFormat.PlainText)
        form.addRow(self.mode_label, self.mode)
        form.addRow("", self.without_asking)
        self.hidden_label = QLabel()
        self.hidden_label.setWordWrap(True)
        self.always_caption = QLabel()
        self.always_caption.setWordWrap(True)
        self.always_hidden = QListWidget()
        self.always_hidden.setMinimumHeight(120)
        self.always_hidden.setMaximumHeight(200)
        # A long path wraps in its row rather than hide its reason past a sideways scroll.
        self.always_hidden.setWordWrap(True)
        self.always_hidden.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.hidden = QPlainTextEdit()
        self.hidden.setMaximumHeight(110)
        self.save_hidden = QPushButton()
        self.domains_label = QLabel()
        self.domains_label.setWordWrap(True)
        self.domains = QPlainTextEdit()
        self.domains.setMaximumHeight(90)
        self.save_domains = QPushButton()
        self.domains_error = QLabel()
        self.domains_error.setTextFormat(Qt.TextFormat.PlainText)
        self.domains_error.setStyleSheet(f"color: {theme.colour('warn')};")
        self.domains_error.hide()
        self.rule_error = QLabel()
        self.rule_error.setTextFormat(Qt.TextFormat.PlainText)
        self.rule_error.setWordWrap(True)
        self.rule_error.setStyleSheet(f"color: {theme.colour('warn')};")
        self.rule_error.hide()
        form.addRow("", self.rule_error)
        for label in (self.heading, self.status, self.fallback, self.workspace_label):
            layout.addWidget(label)
        layout.addLayout(form)
        self.protected = ProtectedList(settings)
        widgets: tuple[QWidget, ...] = (self.domains_label, self.domains, self.domains_error, self.save_domains,
                                        self.always_caption, self.always_hidden, self.hidden_label, self.hidden, self.save_hidden,
                                        self.protected)
        for widget in widgets:
            # A save button sits at the right, as on the other pages, not as a bar across the page.
            right = isinstance(widget, QPushButton)
            layout.addWidget(widget, 0, Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag(0))
        layout.addStretch(1)
        self.mode.currentIndexChanged.connect(self._on_change)
        self.without_asking.toggled.connect(self._on_without_asking)
        self.save_hidden.clicked.connect(self._on_save_hidden)
        self.save_domains.clicked.connect(self._on_save_domains)
        self._loading = False
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def _key(self) -> str:
        return self.workspace() or ""

    def current(self) -> WorkspaceSandbox:
        return self.settings.current.sandbox.for_workspace(self._key() or None)

    def retranslate(self, *_args: object) -> None:
        self._loading = True
        found = self.availability()
        self.heading.setText(_("Sandbox for commands"))
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.status.setText(status_text(found))
        self.status.setStyleSheet("" if found.available else f"color: {theme.colour('warn')};")
        key = self._key()
        self.workspace_label.setText(_("Workspace: {path}").format(path=key) if key
                                     else _("No workspace open: these choices apply to every workspace."))
        self.mode_label.setText(_("Run commands:"))  # a form's label, with its colon like the others
        for row in range(self.mode.count()):
            mode = SandboxMode(self.mode.itemData(row))
            label = _(MODE_LABELS[mode])
            if mode is SandboxMode.SANDBOXED and not found.available:
                # The choice is kept (it applies once bwrap works); meanwhile every command asks.
                label = _("{mode} — unavailable here, every command asks").format(mode=label)
            self.mode.setItemText(row, label)
        self.without_asking.setText(_("Run sandboxed commands &without asking"))
        self.without_asking.setToolTip(_("Adds or removes the rule allow-in-sandbox shell \"**\" in {file}. "
                                         "Commands that run outside the sandbox still ask.").format(
            file=str(sandbox_toggle.toggle_file(self.rules, self._workspace_path())[0]) if self.rules else "-"))
        self.hidden_label.setText(_("Hidden from sandboxed commands and MCP servers, even for reading: your secret "
                                    "folders, Echo Desk's own settings, data and cache, and these paths (one per line):"))
        self.always_caption.setText(_("Always hidden here, each with why (a place that does not exist yet is "
                                      "hidden as soon as it does):"))
        self.always_hidden.setAccessibleName(_("Always hidden"))
        self.mode.setAccessibleName(_("Run commands"))
        self.hidden.setAccessibleName(_("Hidden paths"))
        self.hidden.setPlaceholderText(_("One path per line, e.g.\n~/private\n~/work/client-secrets"))
        self.domains.setAccessibleName(_("Allowed domains"))
        self.domains.setPlaceholderText(_("One domain per line, e.g.\npypi.org\n*.githubusercontent.com"))
        self._fill_always_hidden()
        self.save_hidden.setText(_("Save &hidden paths"))
        self.domains_label.setText(_("Network: sandboxed commands have none, except these domains (one per line, "
                                     "example.com or *.example.com; IP addresses and local names are never "
                                     "allowed). Tools that ignore HTTP_PROXY get no network."))
        self.save_domains.setText(_("Save allowed &domains"))
        self._load(found)
        self._loading = False

    def _fill_always_hidden(self) -> None:
        home = Path.home()
        places = hidden_list.here()  # (the runner's own list, for Echo Desk's environment)
        # What this environment moves first (the places a person would not guess), then the defaults.
        rows = [(p.path, _why(p)) for p in sorted(places, key=lambda p: not p.variable)]
        # Echo Desk's own folders, as the runner adds them to every command's hidden paths (the
        # keyrings among them are on the list already).
        rows += [(str(folder), _("Echo Desk's own folder (settings, data, cache or keyring)"))
                 for _reason, folder in paths.own_places() if str(folder) not in {p.path for p in places}]
        self.always_hidden.clear()
        for path, why in rows:
            text = _("{path} — {why}").format(path=_shown(path, home), why=why)
            item = QListWidgetItem(text)
            item.setToolTip(text)
            self.always_hidden.addItem(item)

    def _load(self, found: sandbox.Availability) -> None:
        chosen = self.current()
        self.mode.setCurrentIndex(self.mode.findData(chosen.mode.value))
        self.without_asking.setChecked(self.rules is not None
                                       and sandbox_toggle.is_on(self.rules, self._workspace_path()))
        sandboxed = chosen.mode is SandboxMode.SANDBOXED
        self.without_asking.setEnabled(sandboxed and found.available and self.rules is not None)
        if chosen.mode is SandboxMode.OFF:
            fallback = _("Commands run with all your rights, asked about as the tool's approval setting says.")
        elif not found.available or chosen.mode is SandboxMode.ASK_UNSANDBOXED:
            fallback = _("Every command is asked about and runs with all your rights.")
        else:
            fallback = ""
        self.fallback.setText(fallback)
        self.fallback.setVisible(bool(fallback))
        self.hidden.setPlainText("\n".join(self.settings.current.sandbox.hidden_paths))
        self.domains.setPlainText("\n".join(chosen.allowed_domains))
        self.domains.setEnabled(sandboxed)

    def _on_change(self, *_args: object) -> None:
        if self._loading:
            return
        chosen = WorkspaceSandbox(mode=SandboxMode(self.mode.currentData()),
                                  allowed_domains=self.current().allowed_domains)
        self._save_choice(chosen)

    def _workspace_path(self) -> Path | None:
        return Path(self._key()) if self._key() else None

    def _on_without_asking(self, on: bool) -> None:
        if self._loading or self.rules is None:
            return
        try:
            sandbox_toggle.set_on(self.rules, self._workspace_path(), on)
        except (ValueError, OSError) as exc:
            # The rule file is broken or unwritable: nothing was changed; say so, show the truth.
            say_failure(self.rule_error, _("Not changed; the box shows the rule file as it is ({reason})"), exc)
            self.rule_error.show()
        else:
            self.rule_error.hide()
        self.retranslate()

    def _on_save_domains(self) -> None:
        entries = [line.strip() for line in self.domains.toPlainText().splitlines() if line.strip()]
        bad = [e for e in entries if not _is_domain(e)]
        if bad:
            self.domains_error.setText(_("Not saved: {entries} — write a domain such as example.com or "
                                         "*.example.com.").format(entries=list_text(bad)))
            self.domains_error.show()
            return
        self.domains_error.hide()
        chosen = self.current().model_copy(update={"allowed_domains": entries})
        self._save_choice(chosen)

    def _save_choice(self, chosen: WorkspaceSandbox) -> None:
        """``chosen`` for the open workspace (or for every workspace when none is open)."""
        key = self._key()

        def change(s: Settings) -> None:
            if key:
                s.sandbox.workspaces = {**s.sandbox.workspaces, key: chosen}
            else:
                s.sandbox.default = chosen

        self.settings.update(change)
        self.retranslate()

    def _on_save_hidden(self) -> None:
        paths = [line.strip() for line in self.hidden.toPlainText().splitlines() if line.strip()]
        cleaned = [str(Path(p).expanduser()) if p.startswith("~") else p for p in paths]

        def change(s: Settings) -> None:
            s.sandbox.hidden_paths = cleaned

        self.settings.update(change)
        self.retranslate()
