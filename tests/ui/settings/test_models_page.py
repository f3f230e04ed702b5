"""The Models page: settings and keyring, field visibility, the connection test."""

from __future__ import annotations

import asyncio

from echo_desk.agent.model import ModelError, ModelErrorKind
from echo_desk.store.settings import ProviderKind, SettingsStore
from echo_desk.tools.secrets import secret_store
from echo_desk.ui.settings.models_page import ModelsPage, key_ref
from tests.ui.conftest import within
from tests.ui.fake_model import ScriptedModel, say


def _page(qtbot, settings, factory):
    page = ModelsPage(settings, factory)
    qtbot.addWidget(page)
    page.show()
    return page


def test_saving_keeps_the_key_in_the_keyring_not_in_the_settings_file(qtbot, config_dir):
    settings = SettingsStore.in_dir(config_dir)
    page = _page(qtbot, settings, lambda *a, **k: None)
    page._new()
    name = page.current_name()
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI.value))
    assert page.key.isVisibleTo(page) and not page.local_panel.isVisibleTo(page)
    page.url.setText("http://127.0.0.1:8080/v1")
    page.model.setEditText("qwen")
    page.key.setText("sk-secret-123")
    page.save()
    page.use_button.click()

    reopened = SettingsStore.in_dir(config_dir).current
    entry = reopened.providers[name]
    assert (entry.kind, entry.base_url, entry.model) == (ProviderKind.OPENAI, "http://127.0.0.1:8080/v1", "qwen")
    assert entry.api_key_ref == key_ref(name) and reopened.active_provider == name
    assert secret_store().get(key_ref(name)) == "sk-secret-123"
    assert "sk-secret-123" not in (config_dir / "settings.json").read_text()

    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.LOCAL.value))
    assert page.local_panel.isVisibleTo(page) and not page.key.isVisibleTo(page) and not page.url.isVisibleTo(page)


def test_connection_test_reports_the_answer_or_the_providers_error(qtbot, qloop, settings_store):
    made = []

    def factory(entry, secrets, *, local=None):
        made.append(entry)
        if entry.model == "missing":
            raise ModelError("model 'missing' not found on the server", kind=ModelErrorKind.NOT_FOUND)
        return ScriptedModel([say("OK")])

    page = _page(qtbot, settings_store, factory)
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OLLAMA.value))
    page.model.setEditText("qwen")

    async def test_once():
        page.test_button.click()
        await within(asyncio.shield(page._test))

    qloop.run_until_complete(test_once())
    assert page.result.text().startswith("Connected") and "OK" in page.result.text()
    page.model.setEditText("missing")
    qloop.run_until_complete(test_once())
    assert "model 'missing' not found" in page.result.text()
    assert [e.kind for e in made] == [ProviderKind.OLLAMA, ProviderKind.OLLAMA]
    assert page.test_button.isEnabled()


def test_the_fields_start_in_one_column_in_both_languages(qtbot, settings_store):
    from PySide6.QtCore import QPoint

    from echo_desk.ui.core import i18n_qt

    page = _page(qtbot, settings_store, lambda *a, **k: None)
    page.resize(1000, 600)
    panel = page.local_panel
    qtbot.waitUntil(lambda: panel.isVisible())

    def starts() -> set[int]:
        return {w.mapTo(page, QPoint(0, 0)).x() for w in (page.provider, page.kind, panel.file, panel.context)}

    try:
        for language in ("en", "zh_CN"):
            i18n_qt.apply_language(language)
            qtbot.waitUntil(lambda: max(starts()) - min(starts()) <= 2)
    finally:
        i18n_qt.apply_language("en")
