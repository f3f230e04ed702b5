"""Settings by Alt-letter keys, in English and Chinese: every button, check box, tab and labelled
field of a page has its own letter (Chinese labels end in "(&X)", as Chinese Qt applications write
them), and no two things that can be on screen together share one (Qt would only cycle the focus
between them and press neither). Qt's own Close carries Alt+C under the GNOME and KDE themes
("&Close", "关闭(&C)") though not on the test's offscreen platform: it counts as lettered C."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QGroupBox,
    QLabel,
    QStackedWidget,
    QTabBar,
    QWidget,
)

from echo_desk.runtime import Runtime
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from tests.ui.mnemonic_letters import mnemonic


def _where(widget: QWidget, page: QWidget) -> dict[int, int]:
    """Which page of each stack (a tab widget's too) between ``page`` and ``widget`` holds it:
    two widgets on different pages of one stack are never on screen together."""
    found: dict[int, int] = {}
    child, parent = widget, widget.parentWidget()
    while parent is not None and child is not page:
        if isinstance(parent, QStackedWidget):
            found[id(parent)] = parent.indexOf(child)
        child, parent = parent, parent.parentWidget()
    return found


def _in_a_list(widget: QWidget, page: QWidget) -> bool:
    """A row's own button (Sign in on each server) repeats on every row: it has no letter."""
    parent = widget.parentWidget()
    while parent is not None and parent is not page:
        if isinstance(parent, QAbstractItemView):
            return True
        parent = parent.parentWidget()
    return False


def _texts(page: QWidget, dialog: QWidget) -> list[tuple[str, str, dict[int, int]]]:
    """(what, text, where) for each thing on ``page`` that can have a letter."""
    out: list[tuple[str, str, dict[int, int]]] = []
    for widget in page.findChildren(QWidget):
        if widget.window() is not dialog or _in_a_list(widget, page):
            continue
        where = _where(widget, page)
        if isinstance(widget, QAbstractButton) and widget.text():
            out.append((type(widget).__name__, widget.text(), where))
        elif isinstance(widget, QGroupBox) and widget.isCheckable():
            out.append(("QGroupBox", widget.title(), where))
        elif isinstance(widget, QLabel) and widget.buddy() is not None:
            out.append(("QLabel", widget.text(), where))
        elif isinstance(widget, QTabBar):
            out += [("tab", widget.tabText(i), where) for i in range(widget.count())]
    return out


def _settings(runtime: Runtime, tmp_path) -> SettingsDialog:  # type: ignore[no-untyped-def]
    """Every page real: the Models page with its local model panel, the MCP page with two servers."""
    from echo_desk.mcp import McpManager
    from echo_desk.mcp.config import parse_server
    from echo_desk.ui.approval.host import QtHost
    from echo_desk.ui.chat.transcript import TranscriptModel
    from echo_desk.ui.settings.mcp_page import McpPage
    from echo_desk.ui.settings.models_page import ModelsPage

    servers = {"files": parse_server("files", {"command": "npx", "args": ["server-files"]}),
               "remote": parse_server("remote", {"type": "http", "url": "https://mcp.example.com/mcp"})}
    manager = McpManager(runtime.settings, servers=servers)  # never started
    mcp = McpPage(manager, QtHost(transcript=TranscriptModel()), str(tmp_path / "mcp.json"))
    models = ModelsPage(runtime.settings, lambda *a, **k: None)
    return SettingsDialog(CatalogBackend(runtime.settings, runtime), models_page=models, mcp_page=mcp,
                          workspace=lambda: str(tmp_path))


def _close_texts(dialog: SettingsDialog) -> list[tuple[str, str, dict[int, int]]]:
    """Qt's Close button as this platform writes it, and as the Linux desktops' themes do: they
    give it a letter, translated by Qt's own catalog."""
    own = [("Close", button.text(), {}) for button in dialog.buttons.buttons()]
    themed = [(f"Close ({theme})", QCoreApplication.translate(theme, "&Close"), {})
              for theme in ("QGnomeTheme", "QKdeTheme")]
    return [*own, *themed]


def _clashes(entries: list[tuple[str, str, dict[int, int]]]) -> list[str]:
    """Pairs with one letter that can be on screen together (not on two pages of one stack)."""
    found = []
    for i, (what, text, where) in enumerate(entries):
        for other, other_text, other_where in entries[i + 1:]:
            together = all(other_where.get(stack, index) == index for stack, index in where.items())
            if together and mnemonic(text) is not None and mnemonic(text) == mnemonic(other_text):
                found.append(f"{what} {text!r} and {other} {other_text!r}")
    return found


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_each_page_has_a_letter_for_every_control_and_none_twice(qtbot, runtime: Runtime, tmp_path,
                                                                 language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = _settings(runtime, tmp_path)
    qtbot.addWidget(dialog)
    closes = _close_texts(dialog)  # Qt's own: on every page, one of them at a time
    missing: list[str] = []
    clashes: list[str] = []
    counted = 0
    for name in dialog.PAGES:
        dialog.show_page(name)
        entries = _texts(dialog.stack.currentWidget(), dialog)
        counted += len(entries)
        for what, text, _where in entries:
            if mnemonic(text) is None:
                missing.append(f"{name}: {what} {text!r}")
            elif language == "zh_CN" and not re.search(r"\(&[A-Z]\)", text):
                missing.append(f"{name}: {what} {text!r} (Chinese writes the letter as “(&X)”)")
        pairs = dict.fromkeys(pair for close in closes for pair in _clashes([*entries, close]))
        clashes += [f"{name}: {pair}" for pair in pairs]
        # A name read aloud does not spell out the letter's mark ("Disa&ble").
        said = [w.accessibleName() for w in dialog.stack.currentWidget().findChildren(QWidget)]
        missing += [f"{name}: read aloud as {text!r}" for text in said if mnemonic(text) is not None]
    assert counted > 55  # every page was reached, the Models and MCP pages real ones
    assert missing == []
    assert clashes == []


def test_a_letter_is_read_as_qt_reads_it() -> None:
    assert mnemonic("Save &hidden paths") == "h" and mnemonic("保存(&S)") == "s"
    assert mnemonic(QCoreApplication.translate("QGnomeTheme", "&Close")) == "c"
    assert mnemonic("Tom && Jerry") is None and mnemonic("Tom && &Jerry") == "j"
    # The clash check sees two pages of one stack as apart, and one page's parts as together.
    assert _clashes([("a", "&Save", {1: 0}), ("b", "&Search", {1: 1})]) == []
    assert _clashes([("a", "&Save", {1: 0}), ("b", "&Search", {1: 0, 2: 3})]) != []
    assert _clashes([("a", "&Save", {}), ("b", "&Search", {1: 1})]) != []
