"""The add/edit MCP server form against the real ``McpManager`` and, where a server runs,
the real ``mcp-server-time`` over stdio: what lands in mcp.json and the keyring, the
first-start approval after an edit, and bad input refused with nothing written."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from echo_desk.mcp import McpManager
from echo_desk.mcp.config import config_path
from echo_desk.store.settings import SettingsStore
from echo_desk.tools.secrets import secret_store
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.settings.mcp_page import McpPage
from echo_desk.ui.settings.mcp_server_form import ServerFormDialog
from tests.ui.conftest import next_emission, within

SERVER = shutil.which("mcp-server-time") or str(Path(sys.executable).with_name("mcp-server-time"))
AWAITING = "Waiting for your approval to start"


@pytest.fixture
def manager(qloop, settings_store: SettingsStore):
    made = McpManager(settings_store)  # reads mcp.json from the test's config dir
    yield made
    qloop.run_until_complete(made.aclose())


@pytest.fixture
def page(qtbot, manager):
    shown = McpPage(manager, QtHost(), str(config_path()))
    qtbot.addWidget(shown)
    yield shown
    shown.close_page()


def save(qloop, form: ServerFormDialog) -> str:
    """Press Save and wait until the form reports the server saved."""

    async def run() -> str:
        saved = next_emission(form.saved)
        form.save_button.click()
        return str(await within(saved, 20))

    return qloop.run_until_complete(run())


def state_of(page: McpPage, name: str) -> str:
    for i in range(page.servers.topLevelItemCount()):
        item = page.servers.topLevelItem(i)
        if item.text(0) == name:
            return item.text(2)
    return ""


def mcp_json() -> dict:
    return json.loads(config_path().read_text())


@pytest.mark.skipif(not Path(SERVER).exists(), reason="mcp-server-time is not installed")
def test_add_a_stdio_server_then_edit_its_args_and_approve_the_new_command_line(qtbot, qloop, page, manager):
    page.add_button.click()
    form = page.server_form
    form.name.setText("time")
    form.command.setText(SERVER)
    form.args.setPlainText("--local-timezone\nEurope/Oslo\n")
    form.env.add_button.click()
    row = form.env.rows[0]
    row.key.setText("TIME_TOKEN")
    row.value.setText("s3cret-value")
    row.keyring.setChecked(True)
    form.env.add_row("LANG", "C.UTF-8")
    assert json.loads(form.runs.toPlainText()) == [SERVER, "--local-timezone", "Europe/Oslo"]

    assert save(qloop, form) == "time"
    assert mcp_json() == {"mcpServers": {"time": {
        "command": SERVER, "args": ["--local-timezone", "Europe/Oslo"],
        "env": {"TIME_TOKEN": {"keyring": "mcp.time.env.TIME_TOKEN"}, "LANG": "C.UTF-8"}}}}
    assert "s3cret-value" not in config_path().read_text()
    assert secret_store().get("mcp.time.env.TIME_TOKEN") == "s3cret-value"
    qtbot.waitUntil(lambda: state_of(page, "time") == AWAITING, timeout=10000)

    # Approve and start it for real, as it is now.
    first = manager.start_request("time")
    assert manager.approve_start("time", first.fingerprint)
    qloop.run_until_complete(within(manager.start("time"), 30))
    qtbot.waitUntil(lambda: state_of(page, "time") == "Connected", timeout=10000)

    # Edit: the stored secret is shown as such and kept; new args invalidate the approval.
    page.edit_button.click()
    form = page.server_form
    secret_row = form.env.rows[0]
    assert secret_row.value.text() == "" and secret_row.value.placeholderText() == "(stored in keyring)"
    assert secret_row.keyring.isChecked()
    form.args.setPlainText("--local-timezone\nUTC")
    save(qloop, form)
    qtbot.waitUntil(lambda: state_of(page, "time") == AWAITING, timeout=10000)
    assert mcp_json()["mcpServers"]["time"]["args"] == ["--local-timezone", "UTC"]
    assert mcp_json()["mcpServers"]["time"]["env"]["TIME_TOKEN"] == {"keyring": "mcp.time.env.TIME_TOKEN"}
    assert secret_store().get("mcp.time.env.TIME_TOKEN") == "s3cret-value"
    request = manager.start_request("time")
    assert request.args == ("--local-timezone", "UTC") and request.previous_fingerprint == first.fingerprint
    assert page.approve_button.isEnabled()

    async def approve() -> str:
        opened = next_emission(page.host.dialog_opened)
        connected = asyncio.get_running_loop().create_future()
        manager.subscribe(lambda e: e.status.state == "connected" and qloop.call_soon_threadsafe(
            lambda: connected.done() or connected.set_result(True)))
        page.approve_button.click()
        dialog = await within(opened)
        shown = dialog.details.toPlainText()
        dialog.allow.click()
        await within(connected, 30)
        return shown

    shown = qloop.run_until_complete(approve())
    assert f"Command line: {shlex.join([SERVER, '--local-timezone', 'UTC'])}" in shown
    assert "Europe/Oslo" not in shown and "TIME_TOKEN" in shown and "s3cret-value" not in shown
    qtbot.waitUntil(lambda: state_of(page, "time") == "Connected", timeout=10000)


def test_bad_input_is_refused_with_a_clear_error_and_nothing_written(qtbot, qloop, settings_store):
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text(json.dumps({"mcpServers": {"time": {"command": "mcp-server-time", "args": []}}}))
    before = config_path().read_bytes()
    manager = McpManager(settings_store)
    try:
        def refused(fill) -> str:
            form = ServerFormDialog(manager)
            qtbot.addWidget(form)
            form.name.setText("new-one")
            form.command.setText("uvx")
            fill(form)
            form.save_button.click()
            assert form.error.isVisibleTo(form) and form.save_button.isEnabled()
            assert config_path().read_bytes() == before and set(manager.configs()) == {"time"}
            return form.error.text()

        assert refused(lambda f: f.command.setText("  ")) == "A stdio server needs a command to run."
        assert refused(lambda f: f.name.setText("time")) == "A server named “time” already exists."
        assert "may only use letters" in refused(lambda f: f.name.setText("my server"))

        def http(url: str):
            return lambda f: (f.transport.setCurrentIndex(1), f.url.setText(url))

        for url in ("ftp://example.com/mcp", "example.com/mcp", "https://", "http://host/with space"):
            assert refused(http(url)) == "The URL must start with http:// or https:// and name a host.", url
        assert refused(lambda f: f.env.add_row("TOKEN", "", keyring=True)) == (
            "env: TOKEN is to be stored in the keyring but has no value")
        assert refused(lambda f: f.env.add_row("BAD NAME", "x")) == "env: “BAD NAME” is not a valid name"
        assert secret_store().get("mcp.new-one.env.TOKEN") is None
    finally:
        qloop.run_until_complete(manager.aclose())


def test_an_http_server_round_trips_and_can_be_renamed(qtbot, qloop, page, manager):
    page.add_button.click()
    form = page.server_form
    form.name.setText("remote")
    form.transport.setCurrentIndex(1)
    form.url.setText("http://127.0.0.1:9/mcp")
    form.headers.add_row("Authorization", "Bearer tok-123", keyring=True)
    form.headers.add_row("X-Team", "docs")
    form.timeout.setValue(120)
    form.enabled.setChecked(False)
    save(qloop, form)
    entry = {"type": "http", "url": "http://127.0.0.1:9/mcp",
             "headers": {"Authorization": {"keyring": "mcp.remote.headers.Authorization"}, "X-Team": "docs"},
             "enabled": False, "timeout": 120.0}
    assert mcp_json() == {"mcpServers": {"remote": entry}}
    assert secret_store().get("mcp.remote.headers.Authorization") == "Bearer tok-123"
    qtbot.waitUntil(lambda: state_of(page, "remote") == "Disabled", timeout=10000)

    page.edit_button.click()
    form = page.server_form
    assert (form.name.text(), form.transport.currentIndex(), form.url.text()) == ("remote", 1, entry["url"])
    assert form.timeout.value() == 120 and not form.enabled.isChecked()
    assert [(r.key.text(), r.value.text(), r.keyring.isChecked()) for r in form.headers.rows] == [
        ("Authorization", "", True), ("X-Team", "docs", False)]
    before = config_path().read_text()
    save(qloop, form)  # unchanged: the same file
    assert config_path().read_text() == before

    page.edit_button.click()
    form = page.server_form
    form.name.setText("team-remote")
    save(qloop, form)
    assert mcp_json() == {"mcpServers": {"team-remote": entry}}  # the stored secret is still referenced
    qtbot.waitUntil(lambda: state_of(page, "team-remote") == "Disabled" and state_of(page, "remote") == "",
                    timeout=10000)


def test_a_pasted_command_line_is_split_and_shown_as_the_exact_list(qtbot, qloop, manager):
    form = ServerFormDialog(manager)
    qtbot.addWidget(form)
    form.command.setText("npx -y @modelcontextprotocol/server-filesystem '/home/me/project dir'")
    form.split_button.click()
    assert form.command.text() == "npx"
    assert form.args.toPlainText().splitlines() == ["-y", "@modelcontextprotocol/server-filesystem",
                                                    "/home/me/project dir"]
    assert json.loads(form.runs.toPlainText()) == ["npx", "-y", "@modelcontextprotocol/server-filesystem",
                                                   "/home/me/project dir"]
    form.args.setPlainText("'unclosed")
    form.split_button.click()
    assert form.error.text() == "Cannot split that command line: a quote is not closed"
    assert form.args.toPlainText() == "'unclosed"


def test_a_new_form_shows_no_command_line_until_one_is_typed(qtbot, manager):
    form = ServerFormDialog(manager)
    qtbot.addWidget(form)
    assert form.runs.toPlainText() == "" and form.runs.placeholderText()  # not [""]
    form.command.setText("uvx")
    assert json.loads(form.runs.toPlainText()) == ["uvx"]


def test_why_a_command_line_cannot_be_split_is_said_in_the_persons_language(qtbot, manager):
    # Before: the label quoted shlex's English ("No closing quotation") in Chinese too.
    import re

    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language("zh_CN")
    form = ServerFormDialog(manager)
    qtbot.addWidget(form)
    for line, said, english in (("npx 'unclosed", "引号没有闭合", "No closing quotation"),
                                ("npx server \\", "反斜杠", "No escaped character")):
        form.command.setText(line)
        form.split_button.click()
        text = form.error.text()
        assert said in text and not re.search("[A-Za-z]{3,}", text), text
        assert english in form.error.toolTip()  # shlex's own words, for a report
        assert form.command.text() == line  # nothing was split


def test_nothing_is_saved_over_an_mcp_json_that_could_not_be_read(qtbot, qloop, settings_store):
    config_path().parent.mkdir(parents=True, exist_ok=True)
    config_path().write_text('{"mcpServers": {"time": {"command": "uvx",,}}}')  # a typo by hand
    manager = McpManager(settings_store)
    try:
        assert manager.config_error
        form = ServerFormDialog(manager)
        qtbot.addWidget(form)
        form.name.setText("new-one")
        form.command.setText("uvx")
        form.save_button.click()
        assert form.error.text().startswith("mcp.json could not be read, so nothing is saved:")
        assert config_path().read_text() == '{"mcpServers": {"time": {"command": "uvx",,}}}'
    finally:
        qloop.run_until_complete(manager.aclose())


def test_in_the_app_saving_asks_at_once_to_approve_the_new_command_line(qtbot, qloop, settings_store):
    host = QtHost()  # the app's host: the manager asks it for first-start approvals itself
    manager = McpManager(settings_store, host=host)
    try:
        form = ServerFormDialog(manager)
        qtbot.addWidget(form)
        form.name.setText("files")
        form.command.setText("npx")
        form.args.setPlainText("-y\n@modelcontextprotocol/server-filesystem\n/home/me/project dir")

        async def run() -> str:
            opened = next_emission(host.dialog_opened)
            saved = next_emission(form.saved)
            form.save_button.click()
            await within(saved)  # the form closes without waiting for the person's answer
            dialog = await within(opened)
            shown = dialog.details.toPlainText()
            dialog.refuse.click()
            return shown

        shown = qloop.run_until_complete(run())
        assert "Command line: npx -y @modelcontextprotocol/server-filesystem '/home/me/project dir'" in shown
        qtbot.waitUntil(lambda: manager.status("files").detail == "you declined to start this server",
                        timeout=10000)
        assert manager.status("files").state == "awaiting_approval"
    finally:
        qloop.run_until_complete(manager.aclose())


def test_a_pasted_client_id_and_secret_are_saved_and_kept_by_a_later_edit(qtbot, qloop, page, manager):
    page.add_button.click()
    form = page.server_form
    form.name.setText("google")
    form.transport.setCurrentIndex(1)
    form.url.setText("https://mcp.example.com/mcp")
    assert form.sign_in_box.isVisibleTo(form)
    form.client_id.setText("1234.apps.example")
    form.client_secret.setText("GOCSPX-secret")
    form.scope.setText("drive.readonly   calendar")
    save(qloop, form)
    oauth = {"client_id": "1234.apps.example", "scope": "drive.readonly calendar",
             "client_secret": {"keyring": "mcp.google.oauth.client_secret"}}
    assert mcp_json()["mcpServers"]["google"]["oauth"] == oauth
    assert secret_store().get("mcp.google.oauth.client_secret") == "GOCSPX-secret"

    page.edit_button.click()
    form = page.server_form
    assert form.client_id.text() == "1234.apps.example" and form.client_secret.text() == ""
    assert form.client_secret.placeholderText() == "(stored in keyring)"
    form.timeout.setValue(90)  # an unrelated change keeps the sign-in settings and the secret
    save(qloop, form)
    assert mcp_json()["mcpServers"]["google"]["oauth"] == oauth
    assert secret_store().get("mcp.google.oauth.client_secret") == "GOCSPX-secret"
