"""The Permissions page's Policy tester: type a command line, a path, a URL or an MCP call and
see the verdict per collected sub-command and the rule that decided — from the engine's
``check_*`` functions, which build the same ``Subject`` and call the same ``evaluate`` as
``execute_tool``. Nothing is recorded and nothing runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from echo_desk.agent.permissions import Default, PermissionEngine, ToolStanding, Verdict
from echo_desk.common.json_text import read_json
from echo_desk.i18n import N_, _
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.rules_text import decided_by, verdict_colour, verdict_label
from echo_desk.ui.widgets.parts_table import PartsTable

KINDS = (
    ("command", N_("Command line"), "run_command", N_("e.g. git status && npm test")),
    ("read", N_("Read a file"), "read_file", N_("e.g. src/app.py or ~/notes/todo.md")),
    ("write", N_("Write a file"), "write_file", N_("e.g. src/app.py")),
    ("url", N_("Fetch a URL"), "fetch_url", N_("e.g. https://example.com/docs")),
    ("mcp", N_("MCP call"), "", N_('server tool {"field": "value"}')),
)
DEFAULT_LABELS = {Default.RUNS: N_("runs without asking"), Default.ASKS: N_("asks you"),
                  Default.REFUSED: N_("is refused (set to Never)")}


class PolicyTester(QWidget):
    def __init__(self, engine: PermissionEngine, workspace: Callable[[], str],
                 standing: Callable[[str], ToolStanding | None] = lambda _name: None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.workspace = workspace
        self.standing = standing
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.kind = QComboBox()
        for key, _label, _tool, _hint in KINDS:
            self.kind.addItem("", key)
        self.input = QLineEdit()
        self.input_caption = QLabel()
        self.input_caption.setBuddy(self.input)
        row.addWidget(self.kind)
        row.addWidget(self.input, 1)
        layout.addWidget(self.input_caption)
        layout.addLayout(row)
        self.result = QLabel()
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.result)
        self.parts = PartsTable(fit_rows=False)
        layout.addWidget(self.parts, 1)
        self.verdict: Verdict | None = None
        self.tool = ""
        self.input.textChanged.connect(self.check)
        self.kind.currentIndexChanged.connect(lambda *_: self._kind_changed())
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def _kind_changed(self) -> None:
        self.input.setPlaceholderText(_(KINDS[self.kind.currentIndex()][3]))
        self.check()

    def check(self) -> Verdict | None:
        """Ask the engine about what is typed; show the verdict and each part."""
        text = self.input.text().strip()
        folder = self.workspace()
        ws = Path(folder) if folder else None
        key, _label, tool, _hint = KINDS[self.kind.currentIndex()]
        self.verdict = None
        self.result.setToolTip("")  # only a parser's report, beside its sentence
        if not text:
            self.result.setText(_("Type something to check it against your rules."))
            self.parts.show_parts(())
            return None
        if key == "command":
            verdict = self.engine.check_command(text, workspace=ws)
        elif key in ("read", "write"):
            verdict = self.engine.check_path(text, write=key == "write", workspace=ws)
        elif key == "url":
            verdict = self.engine.check_url(text, workspace=ws)
        else:
            words = text.split(maxsplit=2)
            try:
                arguments = read_json(words[2]) if len(words) > 2 else {}
            except json.JSONDecodeError as exc:
                # Where it breaks, in the person's words; the parser's English in the tooltip.
                self.result.setText(_("Not checked: the arguments are not valid JSON (line {line}, column {column})")
                                    .format(line=exc.lineno, column=exc.colno))
                self.result.setToolTip(f"{type(exc).__name__}: {exc}")
                self.parts.show_parts(())
                return None
            if len(words) < 2 or not isinstance(arguments, dict):
                self.result.setText(_("Write the server, the tool and, optionally, a JSON object of arguments."))
                self.parts.show_parts(())
                return None
            verdict = self.engine.check_mcp(words[0], words[1], arguments, workspace=ws)
            tool = f"{words[0]}__{words[1]}"
        self.verdict, self.tool = verdict, tool
        self.result.setText(self._summary(verdict, tool))
        self.result.setStyleSheet(f"color: {verdict_colour(verdict.effect)}")
        self.parts.show_parts(verdict.parts)
        return verdict

    def _summary(self, verdict: Verdict, tool: str) -> str:
        if verdict.effect is not None:
            line = _("{verdict} — decided by {who}").format(verdict=verdict_label(verdict.effect),
                                                           who=decided_by(verdict.provenance))
        else:
            standing = self.standing(tool) if tool else None
            if standing is None:
                line = _("No rule or grant decides: the tool's own setting does.")
            else:
                line = _("No rule or grant decides: {tool} {default} by default.").format(
                    tool=tool, default=_(DEFAULT_LABELS[standing.default]))
        if verdict.untrusted_allow:
            line += "\n" + _("The workspace's rules would allow this once you trust the workspace.")
        return line

    def retranslate(self, *_args: object) -> None:
        for i, (_key, label, _tool, _hint) in enumerate(KINDS):
            self.kind.setItemText(i, _(label))
        self.kind.setAccessibleName(_("What to check"))
        self.input_caption.setText(_("C&heck a call against the rules (nothing runs):"))
        self.input.setAccessibleName(_("Call to check"))
        self.input.setPlaceholderText(_(KINDS[self.kind.currentIndex()][3]))
        self.parts.retranslate()
        # From the last answer: a language change asks the engine nothing.
        if self.verdict is not None:
            self.result.setText(self._summary(self.verdict, self.tool))
        elif not self.input.text().strip():
            self.result.setText(_("Type something to check it against your rules."))
