"""The Models page: pick a provider, its endpoint, model and API key, and test the connection.

Endpoints and model names go to the settings; an API key goes to the secret store (the OS
keyring), and the settings keep only the name of its entry. Shown only when the providers
package is in the build (otherwise the page says so).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Coroutine

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from echo_desk.agent.model import ChatMessage, ChatModel, ModelError, TextDelta
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, ngettext, shown
from echo_desk.store.settings import ProviderKind, ProviderSettings, Settings, SettingsStore
from echo_desk.tools.secrets import secret_store
from echo_desk.ui.core import i18n_qt, marshal
from echo_desk.ui.core.backend import ModelFactory
from echo_desk.ui.settings.local_model_panel import LocalModelPanel
from echo_desk.ui.settings.secret_hints import saved_hint, unset_hint

KIND_LABELS = {
    ProviderKind.LOCAL: N_("Built-in local model (llama.cpp)"),
    ProviderKind.OLLAMA: N_("Ollama"),
    ProviderKind.OPENAI: N_("OpenAI-compatible server"),
    ProviderKind.ANTHROPIC: N_("Anthropic"),
    ProviderKind.GEMINI: N_("Google Gemini"),
}
DEFAULT_URLS = {
    ProviderKind.OLLAMA: "http://127.0.0.1:11434/v1",
    ProviderKind.OPENAI: "https://api.openai.com/v1",
    ProviderKind.ANTHROPIC: "https://api.anthropic.com",
    ProviderKind.GEMINI: "https://generativelanguage.googleapis.com",
}
_TEST_TIMEOUT = 90.0  # the local model's first start can take a while


def _said(exc: BaseException) -> str:
    """A provider's failure as the page says it: a ``ModelError``'s sentence in the language of the
    moment (it says what to do: "is Ollama running?"), anything else as it reads."""
    return visible(shown(exc.reason) if isinstance(exc, ModelError) else str(exc))


def key_ref(name: str) -> str:
    return f"provider.{name}.api_key"


class ModelsPage(QWidget):
    def __init__(self, settings: SettingsStore, create_model: ModelFactory,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.create_model = create_model
        self._test: asyncio.Task[None] | None = None
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.provider_label = QLabel()
        self.provider = QComboBox()
        self.provider.currentIndexChanged.connect(lambda _i: self._load())
        self.new_button = QPushButton()
        self.new_button.clicked.connect(self._new)
        self.use_button = QPushButton()
        self.use_button.clicked.connect(self._use)
        row.addWidget(self.provider_label)
        row.addWidget(self.provider, 1)
        row.addWidget(self.new_button)
        row.addWidget(self.use_button)
        layout.addLayout(row)

        form = QFormLayout()
        self.kind = QComboBox()
        for kind in ProviderKind:
            self.kind.addItem("", kind.value)
        self.kind.currentIndexChanged.connect(lambda _i: self._kind_changed())
        self.url = QLineEdit()
        self.model = QComboBox()
        self.model.setEditable(True)
        self.list_button = QPushButton()
        self.list_button.clicked.connect(lambda: self._run(self._list_models()))
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.list_button)
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        # The built-in model's file, context size and downloads; it saves its own settings.
        self.local_panel = LocalModelPanel(settings)
        self.labels = {name: QLabel() for name in ("kind", "url", "model", "key")}
        form.addRow(self.labels["kind"], self.kind)
        form.addRow(self.labels["url"], self.url)
        form.addRow(self.labels["model"], model_row)
        form.addRow(self.labels["key"], self.key)
        form.addRow(self.local_panel)
        self.form = form
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.save_button = QPushButton()
        self.save_button.clicked.connect(self.save)
        self.test_button = QPushButton()
        self.test_button.clicked.connect(lambda: self._run(self._test_connection()))
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.result = QLabel()
        self.result.setWordWrap(True)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self._fill_providers()
        self.retranslate()
        i18n_qt.bus().language_changed.connect(self.retranslate)

    # -- text -------------------------------------------------------------------------------
    def retranslate(self, *_args: object) -> None:
        self.provider_label.setText(_("Provider:"))
        for row in range(self.provider.count()):  # "(in use)" in the new language, form kept as typed
            self.provider.setItemText(row, self._provider_text(str(self.provider.itemData(row))))
        self.provider.setAccessibleName(_("Provider"))
        self.new_button.setText(_("&New…"))
        self.new_button.setAccessibleName(_("New provider entry"))
        self.use_button.setText(_("Use for c&hat"))
        self.use_button.setAccessibleName(_("Use this provider for chat"))
        for i in range(self.kind.count()):
            self.kind.setItemText(i, _(KIND_LABELS[ProviderKind(self.kind.itemData(i))]))
        texts = {"kind": _("Type:"), "url": _("Endpoint:"), "model": _("Model:"), "key": _("API key:")}
        for name, label in self.labels.items():
            label.setText(texts[name])
        for widget, name in ((self.kind, _("Provider type")), (self.url, _("Endpoint URL")),
                             (self.model, _("Model name")), (self.key, _("API key"))):
            widget.setAccessibleName(name)
        self.list_button.setText(_("&List models"))
        self.list_button.setAccessibleName(_("List the server's models"))
        self.save_button.setText(_("&Save"))
        self.save_button.setAccessibleName(_("Save this provider"))
        self.test_button.setText(_("&Test connection"))
        self.test_button.setAccessibleName(_("Test the connection"))
        # One label column for the provider row, the form and the built-in model's panel, in every
        # language (each form sized its own, so the fields started at three different places).
        labels = (self.provider_label, *self.labels.values(), *self.local_panel.form_labels())
        width = max(label.sizeHint().width() for label in labels)
        for label in labels:
            label.setMinimumWidth(width)
        self.result.setAccessibleName(_("Connection test result"))
        self._kind_changed()

    # -- state ------------------------------------------------------------------------------
    def _fill_providers(self, select: str | None = None) -> None:
        s = self.settings.current
        self.provider.blockSignals(True)
        self.provider.clear()
        for name in s.providers:
            self.provider.addItem(self._provider_text(name), name)
        self.provider.setCurrentIndex(max(0, self.provider.findData(select or s.active_provider)))
        self.provider.blockSignals(False)
        self._load()

    def _provider_text(self, name: str) -> str:
        in_use = name == self.settings.current.active_provider
        return _("{name} (in use)").format(name=name) if in_use else name

    def current_name(self) -> str:
        return str(self.provider.currentData() or "")

    def _load(self) -> None:
        s = self.settings.current
        entry = s.providers.get(self.current_name(), ProviderSettings())
        self.kind.setCurrentIndex(max(0, self.kind.findData(entry.kind.value)))
        self.url.setText(entry.base_url)
        self.model.setEditText(entry.model)
        self.key.clear()
        has_key = bool(entry.api_key_ref and secret_store().get(entry.api_key_ref))
        self.key.setPlaceholderText(saved_hint() if has_key else unset_hint())
        self.local_panel.load()
        self.result.clear()
        self._kind_changed()

    def _kind_changed(self) -> None:
        kind = ProviderKind(self.kind.currentData() or ProviderKind.LOCAL.value)
        local = kind is ProviderKind.LOCAL
        self.local_panel.setVisible(local)
        for name, widgets in (("url", [self.url]), ("model", [self.model, self.list_button]), ("key", [self.key])):
            shown = not local
            if name == "key":
                shown = kind in (ProviderKind.OPENAI, ProviderKind.ANTHROPIC, ProviderKind.GEMINI)
            self.labels[name].setVisible(shown)
            for widget in widgets:
                widget.setVisible(shown)
        self.url.setPlaceholderText(DEFAULT_URLS.get(kind, ""))

    def _entry(self) -> ProviderSettings:
        name = self.current_name()
        kind = ProviderKind(self.kind.currentData())
        old = self.settings.current.providers.get(name, ProviderSettings())
        ref = old.api_key_ref
        if self.key.text().strip():
            ref = key_ref(name)
        return ProviderSettings(kind=kind, base_url=self.url.text().strip(), model=self.model.currentText().strip(),
                                api_key_ref=ref)

    def save(self) -> None:
        """Write the entry to the settings and a typed key to the keyring (never to the file)."""
        name = self.current_name()
        if not name:
            return
        entry = self._entry()
        typed = self.key.text().strip()
        if typed:
            secret_store().set(entry.api_key_ref, typed)

        def change(s: Settings) -> None:  # the local model's file and context were saved by its panel
            s.providers = {**s.providers, name: entry}

        self.settings.update(change)
        self._fill_providers(name)
        self.result.setText(_("Saved."))

    def _use(self) -> None:
        self.save()
        name = self.current_name()

        def change(s: Settings) -> None:
            s.active_provider = name

        self.settings.update(change)
        self._fill_providers(name)

    def _new(self) -> None:
        existing = set(self.settings.current.providers)
        number = 1
        while f"provider-{number}" in existing:
            number += 1
        name = f"provider-{number}"

        def change(s: Settings) -> None:
            s.providers = {**s.providers, name: ProviderSettings(kind=ProviderKind.OLLAMA)}

        self.settings.update(change)
        self._fill_providers(name)

    # -- talking to the provider ----------------------------------------------------------------
    def _run(self, coro: Coroutine[object, object, None]) -> None:
        if self._test is not None and not self._test.done():
            coro.close()
            return
        self._test = marshal.spawn(coro)

    async def _make(self, *, listing: bool = False) -> ChatModel:
        entry = self._entry()
        if listing and not entry.model:
            entry = entry.model_copy(update={"model": "-"})  # any name will do to ask for the list
        typed = self.key.text().strip()
        secrets = secret_store()
        if typed:  # test what is typed, even before saving
            secrets.set(entry.api_key_ref, typed)
        local = self.settings.current.local_model
        return await marshal.BackgroundOp(lambda: self.create_model(entry, secrets, local=local)).run_async()

    async def _test_connection(self) -> None:
        self.test_button.setEnabled(False)
        self.result.setText(_("Testing…"))
        model = None
        try:
            model = await self._make()
            reply = ""
            stream = model.stream([ChatMessage(role="user", content="Reply with the word OK.")], [])
            try:
                async with asyncio.timeout(_TEST_TIMEOUT):
                    async for event in stream:
                        if isinstance(event, TextDelta):
                            reply += event.text
                        if len(reply) > 200:  # enough to know it works; the stream is closed below
                            break
            finally:
                # Close the stream ourselves when we stop early: its HTTP response must end on this
                # loop (every provider's stream is an async generator; the protocol only says iterator).
                if isinstance(stream, AsyncGenerator):
                    await stream.aclose()
            self.result.setText(_("Connected: the model answered “{reply}”.").format(reply=reply.strip()[:80]))
        except TimeoutError:
            self.result.setText(_("No answer within {s} seconds.").format(s=int(_TEST_TIMEOUT)))
        except Exception as exc:  # the provider's message is the useful part ("is Ollama running?")  # noqa: BLE001
            self.result.setText(_("Connection failed: {error}").format(error=_said(exc)))
        finally:
            self.test_button.setEnabled(True)
            if model is not None:
                await model.aclose()

    async def _list_models(self) -> None:
        from echo_desk.providers.model_listing import list_provider_models

        self.list_button.setEnabled(False)
        self.result.setText(_("Asking the server for its models…"))
        try:
            # httpx on the event loop: the window stays responsive while the server answers.
            entry, typed, secrets = self._entry(), self.key.text().strip(), secret_store()
            if typed:  # list with what is typed, even before saving
                secrets.set(entry.api_key_ref, typed)
            models = await list_provider_models(entry, secrets)
            current = self.model.currentText()
            self.model.clear()
            for info in models:
                self.model.addItem(info.id)  # the text is the name that is saved
                about = " · ".join(v for v in (info.extra.get("parameter_size"), info.extra.get("family")) if v)
                if about:
                    self.model.setItemData(self.model.count() - 1, about, Qt.ItemDataRole.ToolTipRole)
            self.model.setEditText(current or (models[0].id if models else ""))
            self.result.setText(ngettext("{n} model found.", "{n} models found.", len(models)).format(n=len(models)) if models
                                else _("The server has no models yet."))
        except Exception as exc:  # noqa: BLE001 — the provider's message says what to do ("is Ollama running?")
            self.result.setText(_("Could not list the models: {error}").format(error=_said(exc)))
        finally:
            self.list_button.setEnabled(True)
