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
    import asyncio

    from echo_desk.store.paths import data_dir
    from echo_desk.ui.app import main as app_module

    store = LeftAtQuitStore(data_dir() / "left_at_quit.sqlite3")
    store.add("notes", str(tmp_path / "project"), [Planted(".envrc", Change.CREATED, kept="/k/.envrc").to_json()])
    seen: dict[str, str] = {}
    original_load = app_module.App.load

    async def load_then_close(self: app_module.App) -> None:
        await original_load(self)
        deadline = time.monotonic() + 10
        while (notice := self._left_at_quit) is None or notice.box is None or not notice.box.isVisible():
            assert time.monotonic() < deadline, "no notice at start"
            await asyncio.sleep(0.02)
        seen["text"] = notice.box.informativeText()
        notice.box.button(QMessageBox.StandardButton.Ok).click()
        while store.untold():
            assert time.monotonic() < deadline, "the notice was closed but not marked told"
            await asyncio.sleep(0.02)
        self.window.close()

    monkeypatch.setattr(app_module.App, "load", load_then_close)
    assert app_module.run_gui(["echo-desk"]) == 0
    assert f"{tmp_path / 'project'}/.envrc (new: put aside)" in seen["text"]
    assert store.untold() == []
