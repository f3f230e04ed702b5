"""Every input field has one edge, set by the theme: 3:1 or more against the field's inside and
the window around it (WCAG's boundary contrast), measured on the drawn pixels in light and dark."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTextEdit,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.ui.core import field_edges, theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.core.palette import DARK, LIGHT, Palette, contrast
from echo_desk.ui.settings.models_page import ModelsPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog
from echo_desk.ui.widgets.full_text_box import FullTextBox

UI = Path(theme.__file__).parents[1]
#: WCAG 2.1, 1.4.11: the boundary of a field against what is next to it.
LEAST_CONTRAST = 3.0


@pytest.fixture(autouse=True)
def _light_again(qapp: QApplication) -> Iterator[None]:
    yield
    theme.apply_theme("light")


def _edge(widget: QWidget) -> str:
    """The colour drawn at the middle of the widget's left edge."""
    return widget.grab().toImage().pixelColor(0, widget.height() // 2).name()


def _meets(edge: str, p: Palette) -> bool:
    return contrast(edge, p.base) >= LEAST_CONTRAST and contrast(edge, p.window) >= LEAST_CONTRAST


@pytest.mark.parametrize("p", [LIGHT, DARK], ids=["light", "dark"])
def test_the_palettes_field_edge_and_focus_stand_out_from_inside_and_around(p: Palette) -> None:
    assert _meets(p.field_border, p), (contrast(p.field_border, p.base), contrast(p.field_border, p.window))
    assert _meets(p.accent, p), (contrast(p.accent, p.base), contrast(p.accent, p.window))


def test_the_contrast_is_wcags() -> None:
    assert round(contrast("#000000", "#ffffff"), 1) == 21.0
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast("#123456", "#123456") == 1.0


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_every_kind_of_field_draws_the_edge_and_the_accent_with_the_focus(qtbot, choice: str) -> None:
    p = theme.apply_theme(choice)
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    combo = QComboBox()
    combo.setEditable(True)
    fields: list[QWidget] = [QLineEdit(), QPlainTextEdit(), QTextEdit(), QSpinBox(), combo, FullTextBox("text")]
    first = QPushButton("first")  # holds the focus to begin with
    for widget in (first, *fields):
        layout.addWidget(widget)
    host.show()
    qtbot.waitExposed(host)
    host.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is host)
    first.setFocus()
    qtbot.waitUntil(first.hasFocus)
    for field in fields:
        assert _edge(field) == p.field_border, type(field).__name__
        field.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(lambda field=field: _edge(field) == p.accent)


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_pick_only_combo_boxes_and_lists_draw_the_same_edge(qtbot: Any, choice: str) -> None:
    """Qt framed them from a shade of the window colour (1.06:1 on the dark base): the edge is
    the fields' one, so a list or a choice reads as a control like the fields beside it."""
    p = theme.apply_theme(choice)
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    combo = QComboBox()
    combo.addItems(["for 15 minutes", "for this conversation"])
    listing, tree, table = QListWidget(), QTreeWidget(), QTableWidget(2, 2)
    listing.addItems(["one", "two"])
    for widget in (combo, listing, tree, table):
        layout.addWidget(widget)
    host.show()
    qtbot.waitExposed(host)
    for widget in (combo, listing, tree, table):
        assert _edge(widget) == p.field_border, type(widget).__name__


def test_a_switch_repaints_the_fields_and_lists_that_were_open(qtbot) -> None:
    """The sheet is set after the palette: set before, Qt polished open widgets with the
    palette of the switch before (a white list on the dark theme)."""
    host = QWidget()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    line, listing = QLineEdit(), QListWidget()
    line.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    for widget in (line, listing):
        layout.addWidget(widget)
    host.show()
    qtbot.waitExposed(host)
    for choice in ("dark", "light", "dark"):
        p = theme.apply_theme(choice)
        assert _edge(line) == p.field_border and line.grab().toImage().pixelColor(line.width() // 2, 3).name() == p.base
        assert listing.grab().toImage().pixelColor(listing.width() // 2, listing.height() // 2).name() == p.base


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_a_field_that_asked_for_no_frame_keeps_none(qtbot, choice: str) -> None:
    p = theme.apply_theme(choice)
    flat_line, flat_box = QLineEdit(), QPlainTextEdit()
    flat_line.setFrame(False)
    flat_box.setFrameShape(QPlainTextEdit.Shape.NoFrame)
    for widget in (flat_line, flat_box):
        qtbot.addWidget(widget)
        widget.show()
        qtbot.waitExposed(widget)
        assert _edge(widget) == p.base, type(widget).__name__


def _fields_in_view(window: QWidget) -> list[QWidget]:
    kinds = (QLineEdit, QPlainTextEdit, QTextEdit, QAbstractSpinBox)
    found: list[QWidget] = [w for w in window.findChildren(QWidget) if isinstance(w, kinds) and w.isVisible()
             and not isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox))]  # (drawn by their owner)
    found += [c for c in window.findChildren(QComboBox) if c.isEditable() and c.isVisible()]
    return found


@pytest.mark.parametrize("choice", ["light", "dark"])
def test_every_field_of_every_settings_page_and_the_chat_window_shows_its_edge(
        qtbot, qloop, runtime, window, choice: str) -> None:
    p = theme.apply_theme(choice)
    window.show()
    qtbot.waitExposed(window)
    seen = {f"main/{f.objectName() or f.accessibleName() or type(f).__name__}": _edge(f)
            for f in _fields_in_view(window)}
    assert window.composer in _fields_in_view(window)
    settings = SettingsDialog(CatalogBackend(runtime.settings, runtime),
                              models_page=ModelsPage(runtime.settings, lambda *a, **k: None))
    qtbot.addWidget(settings)
    settings.show()
    qtbot.waitExposed(settings)
    for page in SettingsDialog.PAGES:
        settings.show_page(page)
        QApplication.processEvents()
        fields = _fields_in_view(settings)
        seen |= {f"{page}/{f.accessibleName() or type(f).__name__}#{i}": _edge(f) for i, f in enumerate(fields)}
    assert len(seen) >= 12, seen  # chat input, catalog search, the rules editor, the sandbox lists ...
    assert {name: edge for name, edge in seen.items() if not _meets(edge, p)} == {}


def test_no_widget_draws_its_own_field_edge() -> None:
    """The edge is the theme's: a widget that styles its own would not follow the next change."""
    offenders = [str(path.relative_to(UI)) for path in sorted(UI.rglob("*.py"))
                 if path.name not in ("field_edges.py", "palette.py") and "field_border" in path.read_text(encoding="utf-8")]
    assert offenders == []
    assert LIGHT.field_border in field_edges.field_style_sheet(LIGHT)
