"""Settings on a machine without a system keyring: no field claims the keyring keeps a secret
that will be forgotten at exit, and nothing moves a secret to where it would be lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.store.settings import ProviderKind, SettingsStore
from echo_desk.tools.secrets import ProcessOnlySecretStore, install_secret_store, secret_store
from echo_desk.ui.settings.databases_page import DatabasesPage
from echo_desk.ui.settings.mcp_rows import KeyValueRows
from echo_desk.ui.settings.models_page import ModelsPage
from tests.mcp.connected.homes import home, make_home
from tests.ui.settings.test_connected_apps import _page as connected_apps_page
from tests.ui.settings.test_connected_apps import open_protect_dialog
from tests.ui.settings.test_databases_ui import _fill

__all__ = ["home"]

FORGOTTEN = "until Echo Desk exits (no system keyring)"


@pytest.fixture(autouse=True)
def _no_keyring() -> None:
    install_secret_store(ProcessOnlySecretStore())  # what start-up installs on such a machine


def test_an_api_key_field_says_how_long_the_key_lasts(qtbot, config_dir: Path) -> None:
    page = ModelsPage(SettingsStore.in_dir(config_dir), lambda *a, **k: None)
    qtbot.addWidget(page)
    page._new()
    page.kind.setCurrentIndex(page.kind.findData(ProviderKind.OPENAI.value))
    assert FORGOTTEN in page.key.placeholderText() and "Not set" in page.key.placeholderText()
    page.key.setText("sk-1")
    page.save()
    assert page.key.placeholderText() == "Saved until Echo Desk exits (no system keyring)"
    assert "keyring" not in page.key.placeholderText().split("(")[0]  # never "Saved in the system keyring"


def test_a_database_password_field_and_the_pages_intro_say_it(qtbot, settings_store: SettingsStore) -> None:
    page = DatabasesPage(settings_store)
    qtbot.addWidget(page)
    assert "no system keyring" in page.intro.text() and "kept in the system keyring" not in page.intro.text()
    _fill(page, "sales", "postgres", "postgresql://me@127.0.0.1:1/sales", password="pw")
    page.save_button.click()
    assert secret_store().get("database.sales.password") == "pw"
    assert page.password.placeholderText() == "Saved until Echo Desk exits (no system keyring)"


def test_an_mcp_value_cannot_be_sent_to_a_keyring_that_would_forget_it(qtbot) -> None:
    rows = KeyValueRows()
    qtbot.addWidget(rows)
    new = rows.add_row("TOKEN", "v")
    assert not new.keyring.isEnabled() and not new.keyring.isChecked()
    assert "no system keyring" in new.keyring.toolTip()
    assert [(e.key, e.value, e.keyring) for e in rows.values()] == [("TOKEN", "v", False)]
    # A reference saved earlier (on a machine with a keyring) can still be turned into a value here.
    kept = rows.add_row("OLD", "", keyring=True, ref="mcp.x.env.OLD")
    assert kept.keyring.isEnabled() and kept.keyring.isChecked()


def test_protecting_an_app_leaves_its_secrets_in_mcp_json_and_says_why(qtbot, qloop, home: Path) -> None:
    where = make_home(home)
    dialog = open_protect_dialog(qloop, connected_apps_page(qtbot, home), where["windsurf"])
    assert not dialog.keyring.isEnabled() and not dialog.keyring.isChecked()
    assert "no system keyring" in dialog.keyring.text()
    github = next(m for m in dialog.plan.moves if m.name == "github")
    assert github.to_keyring == () and github.config.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_windsurf_token"}
