"""Settings › Sandbox: what makes a program run code later, the built-in list and the person's own.

The built-in entries (``echo_desk.sandbox.runs_code``) are listed with why each is there; the
person adds paths inside the workspace (``tools/run.sh``, ``Makefile``, ``scripts/``) and removes
their own. Saved at once in ``sandbox.protected_paths``; the engine decides what an entry may be
(``runs_code.problem``), the page only shows its answer.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _
from echo_desk.sandbox import runs_code
from echo_desk.store.settings import Settings, SettingsStore
from echo_desk.ui.core import i18n_qt, theme

#: Why an entry was refused, by the engine's English reason.
_PROBLEMS = {
    "empty": N_("Write a path inside the workspace."),
    "not a path inside the workspace": N_("Write a path inside the workspace, such as tools/run.sh or scripts/ "
                                          "(no leading / or ~, no ..)."),
    "has a control character": N_("A path with a control character cannot be added."),
}
_OWN = Qt.ItemDataRole.UserRole


class ProtectedList(QWidget):
    """The list, a box to add a path, and Remove for the person's own entries."""

    def __init__(self, settings: SettingsStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.entries = QListWidget()
        self.entries.setMaximumHeight(160)
        self.entries.currentItemChanged.connect(self._update_remove)
        row = QHBoxLayout()
        self.new_path = QLineEdit()
        self.add = QPushButton()
        self.remove = QPushButton()
        row.addWidget(self.new_path, 1)
        row.addWidget(self.add)
        row.addWidget(self.remove)
        self.error = QLabel()
        self.error.setTextFormat(Qt.TextFormat.PlainText)
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {theme.colour('warn')};")
        self.error.hide()
        layout.addWidget(self.caption)
        layout.addWidget(self.entries)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self.add.clicked.connect(self._on_add)
        self.new_path.returnPressed.connect(self._on_add)
        self.remove.clicked.connect(self._on_remove)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def own(self) -> list[str]:
        return list(self.settings.current.sandbox.protected_paths)

    def retranslate(self, *_args: object) -> None:
        self.caption.setText(_("Protected from sandboxed commands and always asked about by the file tools: "
                               "what makes a program run code later (read-only while a command runs, put back "
                               "after it). Add paths inside the workspace:"))
        self.new_path.setPlaceholderText(_("A path in the workspace, e.g. tools/run.sh or scripts/"))
        self.add.setText(_("&Add"))
        self.remove.setText(_("&Remove"))
        self.entries.setAccessibleName(_("What makes a program run code later"))
        self.new_path.setAccessibleName(_("Path to protect"))
        self._fill()

    def _fill(self) -> None:
        current = self.entries.currentItem()
        chosen = current.data(_OWN) if current is not None else None
        self.entries.clear()
        # Every built-in entry, then the person's own (``bin/`` among them: the built-in one
        # counts only in the home folder).
        own_entries = tuple(e for e in runs_code.all_entries(self.own(), in_home=False) if e.why == runs_code.ADDED_BY_YOU)
        for entry in runs_code.ENTRIES + own_entries:
            own = entry.why == runs_code.ADDED_BY_YOU
            shown = _("{path} — {why} (only when the workspace is your home folder)") if entry.home_only else \
                _("{path} — {why}")
            text = shown.format(path=visible(entry.shown, one_line=True), why=_(entry.why))
            item = QListWidgetItem(text)
            item.setData(_OWN, entry.path if own else None)
            item.setToolTip(text)
            self.entries.addItem(item)
            if own and entry.path == chosen:
                self.entries.setCurrentItem(item)
        self._update_remove()

    def _update_remove(self, *_args: object) -> None:
        item = self.entries.currentItem()
        self.remove.setEnabled(item is not None and item.data(_OWN) is not None)

    def _on_add(self) -> None:
        raw = self.new_path.text()
        problem = runs_code.problem(raw)
        if problem:
            self.error.setText(_(_PROBLEMS.get(problem, _PROBLEMS["not a path inside the workspace"])))
            self.error.show()
            return
        entry = raw.strip()
        (wanted,) = runs_code.added([entry])
        covering = runs_code.entry_of(PurePosixPath(wanted.path).parts, runs_code.all_entries(in_home=False))
        if covering is not None:
            self.error.setText(_("Already protected: {entry}").format(entry=covering.shown))
            self.error.show()
            return
        self.error.hide()

        def change(s: Settings) -> None:
            if entry not in s.sandbox.protected_paths:
                s.sandbox.protected_paths = [*s.sandbox.protected_paths, entry]

        self.settings.update(change)
        self.new_path.clear()
        self._fill()

    def _on_remove(self) -> None:
        item = self.entries.currentItem()
        path = item.data(_OWN) if item is not None else None
        if path is None:
            return

        def change(s: Settings) -> None:
            s.sandbox.protected_paths = [p for p in s.sandbox.protected_paths
                                         if [e.path for e in runs_code.added([p])] != [path]]

        self.settings.update(change)
        self._fill()
