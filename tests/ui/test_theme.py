"""The palette module: light/dark switch without restart, the setting, and one home for colours."""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication, QLabel

from echo_desk.store.settings import SettingsStore
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView
from echo_desk.ui.core import theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.settings_dialog import GeneralPage

UI = Path(theme.__file__).parents[1]  # all of echo_desk/ui (theme.py is in ui/core)
# "#abc" or "#aabbcc" (optionally with alpha) but not an HTML entity such as "&#8203;".
_HEX = re.compile(r"(?<![&\w])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![0-9a-zA-Z])")


@pytest.fixture(autouse=True)
def _light_again(qapp: QApplication) -> Iterator[None]:
    yield
    theme.apply_theme("light")


def _hex_literals(source: str) -> list[str]:
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            found += [f"{tok.start[0]}: {m.group(0)}" for m in _HEX.finditer(tok.string)]
    return found


def test_no_ui_module_but_the_palette_writes_a_hex_colour():
    offenders = {}
    for path in sorted(UI.rglob("*.py")):
        if path.name == "palette.py":  # the palette itself (plain data, no Qt; theme.py switches it)
            continue
        hits = _hex_literals(path.read_text(encoding="utf-8"))
        if hits:
            offenders[str(path.relative_to(UI))] = hits
    assert UI.name == "ui" and offenders == {}


def test_the_hex_check_sees_a_colour_and_ignores_an_entity():
    assert _hex_literals('x = "color: #57606a"\ny = "&#8203;"\nz = f"<b style=\'color:#fff\'>{x}</b>"\n')[:1] == [
        "1: #57606a"]
    assert len(_hex_literals('z = "#fff"\n')) == 1


def test_light_and_dark_name_the_same_roles_with_different_colours():
    assert theme.LIGHT.base != theme.DARK.base and theme.LIGHT.text != theme.DARK.text
    for field in theme.Palette.__dataclass_fields__:
        if field != "name":
            assert re.fullmatch(r"#[0-9a-f]{6}", getattr(theme.DARK, field)), field


def test_switching_changes_open_widgets_without_restart(qtbot, qapp):
    theme.apply_theme("light")
    plain = QLabel("plain")
    label = QLabel("hello")
    theme.styled(label, lambda p: f"color: {p.muted}")
    view = TranscriptView()
    view.setModel(TranscriptModel())
    view.model().add_user("hi")
    qtbot.addWidget(label)
    qtbot.addWidget(plain)
    qtbot.addWidget(view)
    view.show()
    assert plain.palette().color(QPalette.ColorRole.Window).name() == theme.LIGHT.window
    light_pixels = view.grab().toImage()

    theme.apply_theme("dark")

    assert qapp.palette().color(QPalette.ColorRole.Base).name() == theme.DARK.base
    qtbot.waitUntil(lambda: plain.palette().color(QPalette.ColorRole.Window).name() == theme.DARK.window)
    assert plain.palette().color(QPalette.ColorRole.WindowText).name() == theme.DARK.text
    assert theme.DARK.muted in label.styleSheet()
    assert theme.DARK.base in view.styleSheet()
    qtbot.waitUntil(lambda: view.grab().toImage().pixelColor(2, 2).name() == theme.DARK.base)
    assert light_pixels.pixelColor(2, 2).name() == theme.LIGHT.base


def test_system_follows_the_colour_scheme(qapp, monkeypatch):
    from PySide6.QtCore import Qt

    monkeypatch.setattr(theme, "_system_is_dark", lambda: True)
    assert theme.apply_theme("system") is theme.DARK
    monkeypatch.setattr(theme, "_system_is_dark", lambda: False)
    # The desktop switching back: the same slot Qt's colorSchemeChanged calls.
    theme.manager()._on_system_scheme(Qt.ColorScheme.Light)
    assert theme.current() is theme.LIGHT
    # A fixed choice ignores the desktop.
    theme.apply_theme("dark")
    theme.manager()._on_system_scheme(Qt.ColorScheme.Light)
    assert theme.current() is theme.DARK


def test_general_settings_switch_and_save_the_theme(qtbot, qapp, settings_store: SettingsStore):
    page = GeneralPage(CatalogBackend(settings_store, None))
    qtbot.addWidget(page)
    assert page.theme.currentData() == "system"
    assert [page.theme.itemText(i) for i in range(3)] == ["Same as the system", "Light", "Dark"]
    page.theme.setCurrentIndex(page.theme.findData("dark"))
    page.theme.activated.emit(page.theme.currentIndex())
    assert settings_store.current.theme == "dark"
    assert theme.current() is theme.DARK
    assert SettingsStore(settings_store.path).current.theme == "dark"


def test_the_open_tool_catalog_follows_a_theme_switch(qtbot, qapp, builtin_runtime):
    from echo_desk.ui.core.labels import RISK_ROLES
    from echo_desk.ui.settings.catalog_model import COL_RISK, COL_STATUS
    from echo_desk.ui.settings.catalog_page import ToolsPage

    theme.apply_theme("light")
    page = ToolsPage(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(page)
    page.show()
    model = page.model

    def colours(palette: theme.Palette) -> dict[str, tuple[str, str]]:
        """Each tool's risk and status colour as shown, next to what ``palette`` says they should be."""
        out = {}
        for name in ("read_file", "write_file", "run_command"):
            row = model.tool_index(name)
            risk = model.itemFromIndex(row.siblingAtColumn(COL_RISK))
            status = model.itemFromIndex(row.siblingAtColumn(COL_STATUS))
            wanted_risk = getattr(palette, RISK_ROLES[str(builtin_runtime.registry.get(name).tool.risk_level)])
            wanted_status = palette.ok if status.text() == "Ready" else palette.warn
            out[name] = ((risk.foreground().color().name(), status.foreground().color().name()),
                         (wanted_risk, wanted_status))
        return out

    for shown, wanted in colours(theme.LIGHT).values():
        assert shown == wanted
    risks_before = {name: shown[0] for name, (shown, _) in colours(theme.LIGHT).items()}
    assert len(set(risks_before.values())) == 3  # read, write and exec each in their own colour

    theme.apply_theme("dark")

    for name, (shown, wanted) in colours(theme.DARK).items():
        assert shown == wanted, name
        assert shown[0] != risks_before[name]  # not the light colour left behind
    theme.apply_theme("light")
    assert all(shown == wanted for shown, wanted in colours(theme.LIGHT).values())
