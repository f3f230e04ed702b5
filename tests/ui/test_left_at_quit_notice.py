"""At start-up the app shows what sandboxed MCP servers left that was put aside as it last quit:
every full path, what was done, where it is kept; once closed, it is not shown again."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from echo_desk.store.left_at_quit import LeftAtQuitStore
from echo_desk.tools.planted import Change, Planted
from echo_desk.ui.app.left_at_quit_notice import LeftAtQuitNotice, left_at_quit_box
from echo_desk.ui.app.start_notice_box import LEAST_WIDTH_CHARS
from echo_desk.ui.core import i18n_qt
from tests.ui.start_notices import text_of_the_notice_at_start

CJK = re.compile(r"[\u4e00-\u9fff]")
AT = time.mktime((2026, 12, 7, 9, 30, 0, 0, 0, -1))


def _store(tmp_path: Path) -> LeftAtQuitStore:
    store = LeftAtQuitStore(tmp_path / "data" / "left_at_quit.sqlite3")
    aside = str(tmp_path / "data" / "put-aside" / "20261207-093000-abcdef" / "project")
    store.add("notes", str(tmp_path / "project"), [
        Planted(".envrc", Change.CREATED, kept=f"{aside}/.envrc").to_json(),
        Planted(".git/hooks/pre-commit", Change.CHANGED, put_back=True, kept=f"{aside}/.git/hooks/pre-commit").to_json(),
        Planted("evil\u202e.txt/.vscode", Change.CREATED, still_there=True).to_json(),
    ], at=AT)
    return store


def test_the_notice_names_every_full_path_once_and_marks_them_told(qtbot, tmp_path: Path) -> None:
    store = _store(tmp_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    notice = LeftAtQuitNotice(store, parent)
    notice.check()
    qtbot.waitUntil(lambda: notice.box is not None and notice.box.isVisible(), timeout=5000)
    assert notice.box is not None
    text = notice.box.informativeText()
    project = tmp_path / "project"
    assert "When Echo Desk quit on 2026-12-07 09:30, the sandboxed MCP server “notes” had left in " \
           f"{project} what would run code later" in text
    assert f"{project}/.envrc (new: put aside)" in text
    assert f"{project}/.git/hooks/pre-commit (changed: put aside, your earlier version is back)" in text
    assert f"kept, never run, at {tmp_path}/data/put-aside/20261207-093000-abcdef/project/.envrc" in text
    # Hidden characters made visible, and what could not be removed said as such.
    assert "\u202e" not in text and "could not be removed: it is still in the workspace" in text
    notice.box.button(QMessageBox.StandardButton.Ok).click()
    qtbot.waitUntil(lambda: store.untold() == [], timeout=5000)
    again = LeftAtQuitNotice(store, parent)
    again.check()
    qtbot.wait(200)  # (nothing to wait for: the read finds nothing, and no box is made)
    assert again.box is None


def test_nothing_untold_shows_nothing_and_makes_no_database(qtbot, tmp_path: Path) -> None:
    store = LeftAtQuitStore(tmp_path / "left_at_quit.sqlite3")
    parent = QWidget()
    qtbot.addWidget(parent)
    notice = LeftAtQuitNotice(store, parent)
    notice.check()
    qtbot.wait(200)
    assert notice.box is None and not store.path.exists()


def test_the_notice_in_chinese(qtbot, tmp_path: Path) -> None:
    store = _store(tmp_path)
    shots = os.environ.get("S271_SCREENSHOTS")
    for language in ("en", "zh_CN"):
        i18n_qt.apply_language(language)
        try:
            box = left_at_quit_box(store.untold(), None)
            qtbot.addWidget(box)
            box.show()
            qtbot.waitExposed(box)
            if language == "zh_CN":
                assert CJK.search(box.windowTitle()) and CJK.search(box.text())
                assert all(CJK.search(line) for line in box.informativeText().splitlines() if line.strip()
                           and not line.strip().startswith(str(tmp_path)))
            if shots:
                box.grab().save(f"{shots}-{language}.png")
            box.close()
        finally:
            i18n_qt.apply_language("en")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_notice_is_wide_enough_and_clips_no_label(qtbot, tmp_path: Path, language: str) -> None:
    """Qt makes a message box as narrow as its longest word allows, and Chinese breaks between
    any two characters: short paths gave a tall narrow column. It keeps a reading width."""
    store = LeftAtQuitStore(tmp_path / "left_at_quit.sqlite3")
    store.add("notes", "/home/me/notes", [Planted(".envrc", Change.CREATED, kept="/k/.envrc").to_json()], at=AT)
    i18n_qt.apply_language(language)
    try:
        box = left_at_quit_box(store.untold(), None)
        qtbot.addWidget(box)
        box.show()
        qtbot.waitExposed(box)
        labels = [label for label in box.findChildren(QLabel) if label.isVisible() and label.text()]
        assert sorted(label.text() for label in labels) == sorted((box.text(), box.informativeText()))
        for label in labels:
            least = min(LEAST_WIDTH_CHARS * label.fontMetrics().averageCharWidth(),
                        box.screen().availableGeometry().width() * 3 // 4)
            assert label.width() >= least, label.text()
            assert box.rect().contains(label.geometry()), label.text()
            needed = label.heightForWidth(label.width()) if label.wordWrap() else label.sizeHint().height()
            assert label.height() >= needed and label.width() >= label.minimumSizeHint().width(), label.text()
    finally:
        i18n_qt.apply_language("en")


def test_the_app_shows_it_at_start(qapp, monkeypatch, tmp_path: Path) -> None:
    """The whole way: a record left by the last quit, in the real data folder, is shown by the app
    once it has loaded; closing the notice marks it told."""

    from echo_desk.store.paths import data_dir

    store = LeftAtQuitStore(data_dir() / "left_at_quit.sqlite3")
    store.add("notes", str(tmp_path / "project"), [Planted(".envrc", Change.CREATED, kept="/k/.envrc").to_json()])
    text = text_of_the_notice_at_start(monkeypatch, lambda app: app._left_at_quit, lambda: bool(store.untold()), 10)
    assert f"{tmp_path / 'project'}/.envrc (new: put aside)" in text
    assert store.untold() == []
