"""The Permissions page's Rules tab: every rule of every layer as the engine loaded it, the
user's ``permissions.toml`` edited with the engine's own validation as you type, and trusting
the workspace's rule file after seeing exactly what it would allow.

Rule patterns and reasons may come from a cloned repository: every one is shown as plain text
(tree items and plain-text labels never interpret markup).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QFontDatabase
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.permissions import (
    Effect,
    Layer,
    LoadReport,
    PermissionEngine,
    ProblemKind,
    Rule,
    Severity,
    TrustChanged,
    TrustSnapshot,
)
from echo_desk.agent.permissions.rule_files import current_sha256
from echo_desk.common.visible_text import has_hidden, visible
from echo_desk.i18n import N_, _, labelled, ngettext, shown
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.core.labels import EFFECT_LABELS
from echo_desk.ui.core.mnemonics import literal
from echo_desk.ui.core.rules_text import (
    LAYER_LABELS,
    plain_tooltip,
    rule_pattern,
    rule_place,
    rule_reason,
    rule_tool,
    verdict_colour,
)
from echo_desk.ui.widgets.failure_text import failure_reason, failure_tip, say_failure

PROBLEM_LABELS = {
    ProblemKind.TOML_SYNTAX: N_("not valid TOML"),
    ProblemKind.BAD_RULE: N_("a rule is not valid"),
    ProblemKind.EXAMPLE_FAILED: N_("a rule's own example fails"),
    ProblemKind.UNREADABLE: N_("the file cannot be read"),
    ProblemKind.SHADOWED: N_("a rule can never decide anything"),
}
TEMPLATE_PATTERN = "git status **"
#: What "Add rule" appends (the file format's keys; the person edits it, the engine validates).
RULE_TEMPLATE = (f'[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "{TEMPLATE_PATTERN}"\nreason = ""\n'
                 f'examples = {{ match = ["git status -s"], not_match = ["git status; rm -rf x"] }}\n')


class _WrappedReason(QStyledItemDelegate):
    """Measures a reason at its column's width: a tree asks its delegate for a row's height with
    no width, and the text then measures as one long line."""

    def __init__(self, tree: QTreeWidget) -> None:
        super().__init__(tree)
        self._tree = tree

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        sized = QStyleOptionViewItem(option)
        # (A rect with no height is "not valid", and the style then measures one line as well.)
        sized.rect = QRect(0, 0, self._tree.header().sectionSize(index.column()), max(1, option.rect.height()))
        return super().sizeHint(sized, index)


def _layer_text(rule: Rule) -> str:
    layer = _(LAYER_LABELS[rule.source.layer])
    return f"{layer} · {rule_place(rule)}" if rule.source.path else layer


def _hides_text(snapshot: TrustSnapshot) -> bool:
    return has_hidden(str(snapshot.workspace)) or any(has_hidden(f.text) for f in snapshot.present)


def problem_lines(report: LoadReport) -> list[str]:
    """One line per error or warning: where (file, line), what kind, and the engine's detail."""
    lines = []
    for p in report.problems:
        where = _("{file} line {line}").format(file=p.path.name, line=p.line) if p.line else p.path.name
        severity = _("Error") if p.severity is Severity.ERROR else _("Warning")
        lines.append(f"{severity} · {where} · {labelled(_(PROBLEM_LABELS[p.kind]), shown(p.message))}")
    return lines


class RulesTab(QWidget):
    """Rules of every layer, the user's file editor and the workspace's Trust button."""

    def __init__(self, engine: PermissionEngine, workspace: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.workspace = workspace
        layout = QVBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Vertical)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        self.rules = QTreeWidget()
        self.rules.setColumnCount(6)
        self.rules.setRootIsDecorated(False)
        # A long reason wraps onto more lines of its row instead of ending in "…".
        self.rules.setWordWrap(True)
        self.rules.setItemDelegateForColumn(3, _WrappedReason(self.rules))
        self._size_columns()
        top_layout.addWidget(self.rules, 1)
        self.problems = QLabel()
        self.problems.setTextFormat(Qt.TextFormat.PlainText)
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(f"color: {verdict_colour(None)}")
        top_layout.addWidget(self.problems)
        trust_row = QHBoxLayout()
        self.trust_note = QLabel()
        self.trust_note.setTextFormat(Qt.TextFormat.PlainText)
        self.trust_note.setWordWrap(True)
        self.trust_button = QPushButton()
        self.trust_button.clicked.connect(self.ask_trust)
        self.delete_rule = QPushButton()
        self.delete_rule.clicked.connect(self.delete_selected)
        self.rules.currentItemChanged.connect(lambda *_: self._update_delete())
        trust_row.addWidget(self.trust_note, 1)
        trust_row.addWidget(self.trust_button)
        # Aligned, not stretched: with the trust note hidden it was a bar across the whole page.
        trust_row.addWidget(self.delete_rule, 0, Qt.AlignmentFlag.AlignRight)
        top_layout.addLayout(trust_row)
        splitter.addWidget(top)

        bottom = QWidget()
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        self.editor_caption = QLabel()
        self.editor_caption.setTextFormat(Qt.TextFormat.PlainText)
        self.editor = QPlainTextEdit()
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor_caption.setBuddy(self.editor)
        self.validation = QLabel()
        self.validation.setTextFormat(Qt.TextFormat.PlainText)
        self.validation.setWordWrap(True)
        save_row = QHBoxLayout()
        self.add_rule = QPushButton()
        self.add_rule.clicked.connect(self.append_template)
        self.save = QPushButton()
        self.save.clicked.connect(self.save_user_file)
        self.revert = QPushButton()
        self.revert.clicked.connect(self.load_user_file)
        save_row.addWidget(self.validation, 1)
        save_row.addWidget(self.add_rule)
        save_row.addWidget(self.revert)
        save_row.addWidget(self.save)
        bottom_layout.addWidget(self.editor_caption)
        bottom_layout.addWidget(self.editor, 1)
        bottom_layout.addLayout(save_row)
        splitter.addWidget(bottom)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)
        layout.addWidget(splitter)

        #: Why the user's file could not be read into the editor (``None``: it is there).
        self.unreadable: OSError | UnicodeDecodeError | None = None
        self.editor.textChanged.connect(self.validate)
        self.load_user_file()
        self.reload()
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    # -- data -------------------------------------------------------------------------------
    def _workspaces(self) -> tuple[Path, ...]:
        folder = self.workspace()
        return (Path(folder),) if folder else ()

    def reload(self) -> None:
        """Show the rules as the engine has them now."""
        self.report = self.engine.load(self._workspaces())
        self.untrusted = self._untrusted_workspace()
        self.trust_count = len(self.engine.trust_preview(self.untrusted)) if self.untrusted is not None else 0
        self._render()

    def _render(self) -> None:
        report = self.report
        self.rules.clear()
        for rule in report.rules:
            self.rules.addTopLevelItem(self._item(rule))
        lines = problem_lines(report)
        self.problems.setText("\n".join(lines))
        self.problems.setVisible(bool(lines))
        self._update_trust()

    def _size_columns(self) -> None:
        """The reason takes the room left; the short columns fit their text. A few dozen rules:
        measuring them on each change costs nothing."""
        header = self.rules.header()
        header.setStretchLastSection(False)
        for column in (0, 1, 4, 5):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(2, 240)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # A row's height is measured once; as the reason's column narrows or widens (the window,
        # a dragged edge) the wrapped rows are measured again.
        header.sectionResized.connect(self._reason_resized)

    def _reason_resized(self, column: int, _old: int, _new: int) -> None:
        if column == 3:
            self.rules.doItemsLayout()

    def _item(self, rule: Rule) -> QTreeWidgetItem:
        # A rule's tool, pattern and reason may come from a cloned repository: made visible.
        pattern = rule_pattern(rule)
        item = QTreeWidgetItem([
            _(EFFECT_LABELS[rule.effect]), rule_tool(rule),
            visible(pattern, one_line=True) if pattern is not None else _("(whole tool)"),
            visible(rule_reason(rule), one_line=True), visible(_layer_text(rule), one_line=True),
            _("Inactive: not trusted") if not rule.active else _("Active"),
        ])
        if not rule.active:
            item.setToolTip(5, _("inactive until you trust this workspace"))
        item.setToolTip(4, plain_tooltip(visible(rule.source.describe())))
        item.setToolTip(2, plain_tooltip(visible(rule.pattern or "")))
        item.setToolTip(3, plain_tooltip(visible(rule_reason(rule))))
        item.setData(0, Qt.ItemDataRole.UserRole, rule.source.describe())
        item.setData(1, Qt.ItemDataRole.UserRole, rule.source.line if rule.source.path == self.engine.user_file else 0)
        if not rule.active:
            for column in range(6):
                item.setForeground(column, QBrush(QColor(theme.colour("faint"))))
        else:
            item.setForeground(0, QBrush(QColor(verdict_colour(rule.effect))))
        return item

    def select_source(self, source: str) -> bool:
        """Select the rule written at ``source`` (``<path> line N``, as the audit records it)."""
        for i in range(self.rules.topLevelItemCount()):
            item = self.rules.topLevelItem(i)
            if item is not None and item.data(0, Qt.ItemDataRole.UserRole) == source:
                self.rules.setCurrentItem(item)
                self.rules.scrollToItem(item)
                return True
        return False

    # -- trust -------------------------------------------------------------------------------
    def _untrusted_workspace(self) -> Path | None:
        for ws in self._workspaces():
            committed = ws / ".echo-desk" / "permissions.toml"
            if committed.exists() and not self.engine.is_trusted(ws):
                return ws
        return None

    def _update_trust(self) -> None:
        ws = self.untrusted
        self.trust_button.setVisible(ws is not None)
        self.trust_note.setVisible(ws is not None)
        if ws is not None:
            count = self.trust_count
            self.trust_note.setToolTip("")
            self.trust_note.setText(_("This workspace's permissions.toml is not trusted: its deny and ask rules apply; "
                                      "its allow rules ({n}) do not.").format(n=count))

    def trust_text(self, snapshot: TrustSnapshot) -> str:
        """Exactly what trusting would allow, from the files as read for this dialog: each allow
        rule with its file and line. Every untrusted field is made visible (bidi, zero-width…)."""
        lines = []
        if _hides_text(snapshot):
            lines += [_("These rules contain hidden or control characters, shown as ⟨…⟩: read them carefully."), ""]
        lines += [_("Trusting {folder} lets these rules allow calls without asking:").format(
            folder=visible(str(snapshot.workspace), one_line=True)), ""]
        for rule in snapshot.allows:
            pattern = visible(rule.pattern, one_line=True) if rule.pattern is not None else _("(whole tool)")
            place = rule_place(rule)
            entry = labelled(place, f"{rule_tool(rule)}  {pattern}")
            reason = visible(rule.reason, one_line=True)
            lines.append(f"  {entry}  — {reason}" if rule.reason else f"  {entry}")
        if not snapshot.allows:
            lines.append("  " + _("(none)"))
        lines += ["", _("Show Details… shows the files exactly as they will be trusted. If a file changes, "
                        "Echo Desk asks again.")]
        return "\n".join(lines)

    @staticmethod
    def trust_details(snapshot: TrustSnapshot) -> str:
        """The rule files whole, numbered by line, hidden characters made visible."""
        out: list[str] = []
        for present in snapshot.present:
            out.append(f"── {visible(str(present.path), one_line=True)}")
            lines = present.text.split("\n")
            for number, line in enumerate(lines[:-1] if lines[-1] == "" else lines, start=1):
                text = visible(line.removesuffix("\r"), one_line=True)  # a CRLF end is no hidden text
                out.append(f"{number:>4}  {text}")
            out.append("")
        return "\n".join(out)

    def ask_trust(self) -> None:
        ws = self._untrusted_workspace()
        if ws is None:
            return
        try:
            snapshot = self.engine.trust_snapshot(ws)
        except ValueError as exc:
            say_failure(self.trust_note, _("Nothing was trusted ({reason})"), exc)
            return
        box = QMessageBox(QMessageBox.Icon.Question, _("Trust this workspace's rules?"), self.trust_text(snapshot),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDetailedText(self.trust_details(snapshot))
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.button(QMessageBox.StandardButton.Yes).setText(_("Trust"))
        self.trust_box = box
        box.finished.connect(lambda result: self._trust_answered(snapshot, result))
        box.open()

    def _trust_answered(self, snapshot: TrustSnapshot, result: int) -> None:
        if result != QMessageBox.StandardButton.Yes:
            return
        try:
            self.engine.trust(snapshot)  # exactly the bytes the dialog showed
        except TrustChanged:
            self.trust_note.setText(_("Nothing was trusted: the rule file changed after you saw it. "
                                      "Choose Trust… again to see it as it is now."))
            return
        except ValueError as exc:
            say_failure(self.trust_note, _("Nothing was trusted ({reason})"), exc)
            return
        self.reload()

    # -- the user's file ----------------------------------------------------------------------
    def load_user_file(self) -> None:
        """Read the user's file into the editor (also Revert). One that cannot be read (refused,
        not UTF-8) is said so, and the editor stays empty and read-only: a Save from an editor
        that does not hold the file would replace it with what it never showed."""
        try:
            text = self.engine.user_file.read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        except (OSError, UnicodeDecodeError) as exc:
            self.unreadable = exc
            text = ""
        else:
            self.unreadable = None
        self.editor.setReadOnly(self.unreadable is not None)
        self.saved_text = text
        self.editor.setPlainText(text)
        self.validate()

    def validate(self) -> LoadReport:
        """The engine's loader checks the text (syntax, keys, patterns, each rule's examples)."""
        report = self.engine.validate(self.editor.toPlainText(), layer=Layer.USER)
        if self.unreadable is not None:
            self._say_unreadable()
            return report
        errors = report.errors
        self.add_rule.setEnabled(True)
        self.validation.setToolTip("")  # a failed save's technical detail goes with its sentence
        if errors:
            self.validation.setText("\n".join(problem_lines(LoadReport(problems=errors))))
            self.validation.setStyleSheet(f"color: {verdict_colour(Effect.DENY)}")
        else:
            self.validation.setText(ngettext("{n} rule, all valid", "{n} rules, all valid", len(report.rules)).format(n=len(report.rules)))
            self.validation.setStyleSheet(f"color: {verdict_colour(None)}")
        changed = self.editor.toPlainText() != getattr(self, "saved_text", "")
        self.save.setEnabled(not errors and changed)
        self.revert.setEnabled(changed)
        if hasattr(self, "delete_rule"):
            self._update_delete()
        return report

    def _say_unreadable(self) -> None:
        """Why the user's file is not in the editor (said again in the language of the moment);
        only Revert, which reads it again, is left to press."""
        exc = self.unreadable
        assert exc is not None
        file = self.engine.user_file.name
        if isinstance(exc, UnicodeDecodeError):
            self.validation.setText(_("{file} is not UTF-8 text, so it is not shown here and cannot be saved from "
                                      "here; it was not changed. Save it as UTF-8 in another editor, then press "
                                      "Revert.").format(file=file))
            self.validation.setToolTip(visible(f"UnicodeDecodeError: {exc}"))
        else:
            self.validation.setText(_("{file} cannot be read ({reason}), so it is not shown here and cannot be saved "
                                      "from here; it was not changed. Press Revert to read it again.").format(
                file=file, reason=failure_reason(exc)))
            self.validation.setToolTip(failure_tip(exc))
        self.validation.setStyleSheet(f"color: {verdict_colour(Effect.DENY)}")
        self.save.setEnabled(False)
        self.revert.setEnabled(True)
        self.add_rule.setEnabled(False)
        if hasattr(self, "delete_rule"):
            self.delete_rule.setEnabled(False)

    def _selected_user_line(self) -> int:
        """The header line of the selected rule when it is in the user's file (else 0)."""
        item = self.rules.currentItem()
        return int(item.data(1, Qt.ItemDataRole.UserRole) or 0) if item is not None else 0

    def _update_delete(self) -> None:
        # Line numbers are the saved file's: delete only while the editor holds it unchanged.
        unchanged = self.editor.toPlainText() == getattr(self, "saved_text", "")
        self.delete_rule.setEnabled(bool(self._selected_user_line()) and unchanged)

    def delete_selected(self) -> None:
        """Remove the selected rule's table from the editor (its ``[[rule]]`` line up to the next
        table); the person sees the result validated and saves it."""
        line = self._selected_user_line()
        lines = self.editor.toPlainText().split("\n")
        if not line or line > len(lines) or lines[line - 1].strip() != "[[rule]]":
            return
        end = next((i for i in range(line, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
        while end > line and lines[end - 1].lstrip().startswith("#"):
            end -= 1  # a comment just above the next rule belongs to that rule
        del lines[line - 1:end]
        self.editor.setPlainText("\n".join(lines))
        self._update_delete()

    def append_template(self) -> None:
        """A new ``[[rule]]`` at the end of the editor, its pattern selected for typing."""
        text = self.editor.toPlainText()
        lead = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        template = RULE_TEMPLATE
        self.editor.setPlainText(text + lead + template)
        cursor = self.editor.textCursor()
        start = len(text + lead) + template.index('pattern = "') + len('pattern = "')
        cursor.setPosition(start)
        cursor.setPosition(start + len(TEMPLATE_PATTERN), cursor.MoveMode.KeepAnchor)
        self.editor.setTextCursor(cursor)
        self.editor.setFocus()

    def save_user_file(self) -> None:
        """Write the file atomically (only when it validates) and show the rules again."""
        text = self.editor.toPlainText()
        if self.unreadable is not None or self.validate().errors:
            return  # an editor that never held the file replaces nothing with its empty text
        path = self.engine.user_file
        try:
            # Saving replaces the file whatever it holds now, as the editor always did.
            self.engine.save_rules(path, text, expect_sha256=current_sha256(path))
        except ValueError as exc:
            say_failure(self.validation, _("Not saved; your rule file was not changed ({reason})"), exc)
            return
        self.saved_text = text
        self.validate()
        self.reload()

    def retranslate(self, *_args: object) -> None:
        self.rules.setHeaderLabels([_("Effect"), _("Tool"), _("Pattern"), _("Reason"), _("Source"), _("Status")])
        for column, width in ((0, 60), (1, 70), (2, 220), (3, 210), (4, 290)):
            self.rules.setColumnWidth(column, width)
        self.rules.setAccessibleName(_("Rules from every layer"))
        self.trust_button.setText(_("&Trust…"))
        self.editor_caption.setText(_("&Your rules ({path}):").format(path=literal(str(self.engine.user_file))))
        self.editor.setAccessibleName(_("Your rules file"))
        self.save.setText(_("&Save"))
        self.revert.setText(_("Re&vert"))
        self.add_rule.setText(_("Add r&ule"))
        self.delete_rule.setText(_("&Delete rule"))
        self.delete_rule.setToolTip(_("Removes the selected rule of your file from the editor below; "
                                      "Save writes it."))
        self._render()  # from what was loaded: a language change reads nothing again
        self.validate()
