"""The Trust dialog of Settings › Permissions (the real Qt dialog, the real engine): it trusts
exactly the bytes it showed, refuses a file swapped while it was open, and shows every field —
folder, rules, reasons, the files themselves — with hidden characters made visible."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from echo_desk.agent.permissions import Effect
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.permissions_page import PermissionsPage

SHOWN = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "make **"\nreason = "builds"\n'
SWAPPED = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "**"\nreason = "builds"\n'
HIDDEN = ('# reviewed\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git\u200b status **"\n'
          'reason = "read-only \u202egnp.exe\u202c"\n')


def _page(qtbot, runtime, workspace: Path, text: str) -> PermissionsPage:
    (workspace / ".echo-desk").mkdir(exist_ok=True)
    (workspace / ".echo-desk" / "permissions.toml").write_text(text, encoding="utf-8")
    runtime.permissions.refresh()
    backend = CatalogBackend(runtime.settings, runtime)
    page = PermissionsPage(runtime.permissions, runtime.audit, lambda: str(workspace), backend.standing)
    qtbot.addWidget(page)
    return page


def test_a_file_swapped_while_the_dialog_is_open_is_not_trusted(qtbot, builtin_runtime, workspace: Path) -> None:
    page = _page(qtbot, builtin_runtime, workspace, SHOWN)
    page.rules.ask_trust()
    box = page.rules.trust_box
    assert "make **" in box.text()
    (workspace / ".echo-desk" / "permissions.toml").write_text(SWAPPED, encoding="utf-8")
    box.done(QMessageBox.StandardButton.Yes)
    engine = builtin_runtime.permissions
    assert not engine.is_trusted(workspace)
    assert engine.check_command("rm -rf src", workspace=workspace).effect is not Effect.ALLOW
    assert "Nothing was trusted" in page.rules.trust_note.text()
    assert page.rules.trust_button.isVisibleTo(page)  # still waiting for trust
    # Opened again, the dialog shows the file as it is now, and that is what Yes trusts.
    page.rules.ask_trust()
    assert 'pattern = "**"' in page.rules.trust_box.detailedText()
    page.rules.trust_box.done(QMessageBox.StandardButton.Yes)
    assert engine.is_trusted(workspace)


def test_every_field_of_the_dialog_shows_hidden_characters(qtbot, builtin_runtime, tmp_path: Path) -> None:
    workspace = tmp_path / "ws\u202e"
    workspace.mkdir()
    page = _page(qtbot, builtin_runtime, workspace, HIDDEN)
    page.rules.ask_trust()
    box = page.rules.trust_box
    assert box.textFormat() == Qt.TextFormat.PlainText
    shown = [box.windowTitle(), box.text(), box.informativeText(), box.detailedText(),
             *(b.text() for b in box.buttons())]
    for field in shown:
        for raw in ("\u200b", "\u202e", "\u202c"):
            assert raw not in field, (raw, field)
    assert "ws⟨U+202E⟩" in box.text()
    assert "git⟨U+200B⟩ status **" in box.text() and "⟨U+202E⟩gnp.exe⟨U+202C⟩" in box.text()
    assert "# reviewed" in box.detailedText()  # the whole file, not only its allow rules
    assert "⟨U+200B⟩" in box.detailedText() and "hidden" in box.text().lower()
    tree = page.rules.rules  # the rules list beside it shows them the same way
    cells = [tree.topLevelItem(i).text(c) for i in range(tree.topLevelItemCount()) for c in range(tree.columnCount())]
    assert "git⟨U+200B⟩ status **" in cells and not any("\u202e" in c or "\u200b" in c for c in cells)
    box.done(QMessageBox.StandardButton.Cancel)
    assert not builtin_runtime.permissions.is_trusted(workspace)
