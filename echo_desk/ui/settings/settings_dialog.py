"""The settings window: General (language), Tools (the catalog), Sandbox, Models, Databases,
MCP servers, Connected apps (other MCP clients behind Echo Desk), Permissions (rules, grants,
tester, activity).

Non-modal; every change is written through the ``SettingsStore`` at once, so there is no
OK/Apply step to forget.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from echo_desk.i18n import LANGUAGE_NAMES, _
from echo_desk.store.settings import Settings
from echo_desk.ui.core import i18n_qt, theme
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.catalog_page import ToolsPage
from echo_desk.ui.settings.databases_page import DatabasesPage
from echo_desk.ui.settings.sandbox_page import SandboxPage

LANGUAGE_CHOICES = ((None, ""), *LANGUAGE_NAMES.items())


class GeneralPage(QWidget):
    def __init__(self, backend: CatalogBackend, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backend = backend
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.language_label = QLabel()
        self.language = QComboBox()
        for code, name in LANGUAGE_CHOICES:
            self.language.addItem(name, code)
        self.language_label.setBuddy(self.language)
        current = backend.settings.current.language
        self.language.setCurrentIndex(max(0, self.language.findData(current)))
        self.language.activated.connect(self._on_language)
        self.language.setMinimumContentsLength(16)
        self.language.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        form.addRow(self.language_label, self.language)
        self.theme_label = QLabel()
        self.theme = QComboBox()
        for choice in theme.ThemeChoice:
            self.theme.addItem("", choice.value)
        self.theme_label.setBuddy(self.theme)
        self.theme.setCurrentIndex(max(0, self.theme.findData(backend.settings.current.theme)))
        self.theme.activated.connect(self._on_theme)
        form.addRow(self.theme_label, self.theme)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        layout.addLayout(form)
        self.language_hint = QLabel()
        self.language_hint.setWordWrap(True)
        theme.styled(self.language_hint, lambda p: f"color: {p.muted}")
        layout.addWidget(self.language_hint)
        layout.addStretch(1)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.language_label.setText(_("&Language:"))
        # Language names stay in their own language so anyone can find theirs.
        self.language.setItemText(0, _("System default"))
        self.language.setAccessibleName(_("Language"))
        self.language_hint.setText(_("The whole window switches at once, no restart needed. "
                                     "“System default” follows your computer's language."))
        self.theme_label.setText(_("&Appearance:"))
        self.theme.setAccessibleName(_("Appearance"))
        for index, label in enumerate((_("Same as the system"), _("Light"), _("Dark"))):
            self.theme.setItemText(index, label)

    def _on_theme(self, _index: int) -> None:
        choice = str(self.theme.currentData())

        def change(s: Settings) -> None:
            s.theme = choice  # type: ignore[assignment]  # one of ThemeChoice's values

        self.backend.settings.update(change)
        theme.apply_theme(choice)

    def _on_language(self, _index: int) -> None:
        code = self.language.currentData()

        def change(s: Settings) -> None:
            s.language = code

        self.backend.settings.update(change)
        i18n_qt.apply_language(code)


class PlaceholderPage(QWidget):
    """A page whose feature is not in this build: it says so instead of pretending."""

    def __init__(self, text: Callable[[], str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._text = text
        layout = QVBoxLayout(self)
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.label)
        layout.addStretch(1)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.label.setText(self._text())
        self.label.setAccessibleName(self.label.text())


def _models_text() -> str:
    return _("Model providers are not available in this build yet, so no model can be connected. "
             "This page will let you pick the built-in local model, an Ollama or other "
             "OpenAI-compatible server, Anthropic or Gemini, set the endpoint, model and API key, "
             "and test the connection.")


def _mcp_text() -> str:
    return _("MCP servers are not available in this build yet, so none are connected. This page will "
             "list your servers with their status, let you add, import, enable and restart them, and ask "
             "you before a server is started for the first time.")


def permissions_page(backend: CatalogBackend, workspace: Callable[[], str]) -> QWidget:
    """The Permissions page when the engine has permission rules, else a page saying so."""
    runtime = backend.runtime
    engine = runtime.permissions if runtime is not None else None
    if runtime is None or engine is None:
        return PlaceholderPage(lambda: _("Permission rules are not available: no engine is connected."))
    from echo_desk.ui.settings.permissions_page import PermissionsPage

    return PermissionsPage(engine, runtime.audit, workspace, backend.standing)


class SettingsDialog(QDialog):
    PAGES = ("general", "tools", "sandbox", "models", "databases", "mcp", "connected", "permissions")

    def __init__(self, backend: CatalogBackend, parent: QWidget | None = None, *,
                 models_page: QWidget | None = None, mcp_page: QWidget | None = None,
                 connected_page: QWidget | None = None,
                 workspace: Callable[[], str] = lambda: "") -> None:
        super().__init__(parent)
        self.backend = backend
        self.resize(1200, 680)
        layout = QVBoxLayout(self)
        body = QHBoxLayout()
        self.nav = QListWidget()
        self.nav.setFixedWidth(170)
        self.stack = QStackedWidget()
        self.general = GeneralPage(backend)
        self.tools = ToolsPage(backend)
        runtime = backend.runtime
        self.sandbox = SandboxPage(backend.settings, workspace,
                                   rules=runtime.permissions if runtime is not None else None)
        self.models = models_page or PlaceholderPage(_models_text)
        self.databases = DatabasesPage(backend.settings, workspace)
        self.mcp = mcp_page or PlaceholderPage(_mcp_text)
        if connected_page is None:
            from echo_desk.ui.settings.connected_apps_page import ConnectedAppsPage

            connected_page = ConnectedAppsPage(backend.settings, backend)
        self.connected = connected_page
        self.permissions = permissions_page(backend, workspace)
        for page in (self.general, self.tools, self.sandbox, self.models, self.databases, self.mcp,
                     self.connected, self.permissions):
            self.stack.addWidget(page)
            self.nav.addItem("")
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(0)
        body.addWidget(self.nav)
        body.addWidget(self.stack, 1)
        layout.addLayout(body, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.buttons.rejected.connect(self.close)
        layout.addWidget(self.buttons)
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    def retranslate(self, *_args: object) -> None:
        self.setWindowTitle(_("Settings"))
        for row, text in enumerate((_("General"), _("Tools"), _("Sandbox"), _("Models"), _("Databases"),
                                    _("MCP servers"), _("Connected apps"), _("Permissions"))):
            self.nav.item(row).setText(text)
        self.nav.setAccessibleName(_("Settings pages"))
        self.stack.setAccessibleName(_("Settings page"))
        # The Close button's own text comes from Qt (qtbase_*.qm) and follows the translator.
        self.buttons.button(QDialogButtonBox.StandardButton.Close).setAccessibleName(_("Close settings"))

    def show_page(self, name: str) -> None:
        self.nav.setCurrentRow(self.PAGES.index(name))

    def closeEvent(self, event: QCloseEvent) -> None:
        for page in (self.tools, self.models, self.mcp, self.connected):
            closer = getattr(page, "close_page", None)
            if callable(closer):
                closer()
        super().closeEvent(event)
