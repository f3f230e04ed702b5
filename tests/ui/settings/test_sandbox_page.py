"""The Sandbox settings page: it says why the sandbox cannot run here and what happens instead,
and its choices land in the settings for the open workspace."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from echo_desk import sandbox
from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ApprovalRequest
from echo_desk.agent.permissions import Effect, sandbox_toggle
from echo_desk.builtins import RunCommand
from echo_desk.builtins.shell.command_sandbox import network_detail
from echo_desk.mcp.config import ServerConfig
from echo_desk.store import paths
from echo_desk.store.settings import SandboxMode, Settings, SettingsStore
from echo_desk.tools import (
    SANDBOX_TARGET,
    Placement,
    Protection,
    ProtectionReason,
    RiskLevel,
    Target,
    ToolExecutionContext,
)
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.targets_text import format_targets
from echo_desk.ui.chat.chat_session import _envelope_dict
from echo_desk.ui.chat.sandbox_card import sandbox_html, sandbox_of
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.mcp_server_form import ServerFormDialog
from echo_desk.ui.settings.sandbox_page import SandboxPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _fresh_probe() -> Iterator[None]:
    sandbox.forget()
    yield
    sandbox.forget()


def _without_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "bin-without-bwrap"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def test_without_bwrap_the_page_explains_why_and_that_every_command_asks(
        qtbot, settings_store: SettingsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without_bwrap(monkeypatch, tmp_path)
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path))
    qtbot.addWidget(page)
    assert page.status.text().startswith("Sandbox unavailable: bubblewrap (bwrap) is not installed.")
    assert "sudo apt install bubblewrap" in page.status.text()
    # The kept choice says what it means here: nothing runs sandboxed, every command asks.
    assert "unavailable here, every command asks" in page.mode.currentText()
    assert not page.fallback.isHidden() and "Every command is asked about" in page.fallback.text()
    assert not page.without_asking.isEnabled()
    assert page.mode.currentData() == SandboxMode.SANDBOXED.value
    i18n_qt.apply_language("zh_CN")
    assert CJK.search(page.status.text()) and "bubblewrap" in page.status.text()
    assert CJK.search(page.fallback.text()) and CJK.search(page.without_asking.text())


def test_the_settings_dialog_has_the_sandbox_page(qtbot, runtime, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    _without_bwrap(monkeypatch, tmp_path)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime), workspace=lambda: str(tmp_path))
    qtbot.addWidget(dialog)
    dialog.show_page("sandbox")
    assert dialog.stack.currentWidget() is dialog.sandbox
    assert dialog.nav.item(dialog.PAGES.index("sandbox")).text() == "Sandbox"
    assert "not installed" in dialog.sandbox.status.text()


@pytest.mark.skipif(not sandbox.probe().available, reason="bwrap cannot run here")
def _cut_labels(root: QWidget) -> list[str]:
    """Wrapped labels lower than their text needs at their width: the text is cut at the bottom."""
    return [label.text()[:60] for label in root.findChildren(QLabel)
            if label.isVisibleTo(root) and label.wordWrap() and label.text()
            and label.height() < label.heightForWidth(label.width())]


@pytest.mark.parametrize(("language", "size"), [("en", (900, 600)), ("zh_CN", (900, 600)), ("zh_CN", (1180, 640))])
def test_in_a_small_settings_window_no_text_of_the_page_is_cut(qtbot, runtime, language: str,
                                                               size: tuple[int, int]) -> None:
    # The always-hidden list is ~10 wrapped lines: the page scrolls rather than squeeze it (and
    # the protected-paths caption) into a few pixels, which cut it at the top and bottom.
    i18n_qt.apply_language(language)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(dialog)
    dialog.resize(*size)
    dialog.show_page("sandbox")
    dialog.show()
    QApplication.processEvents()
    assert _cut_labels(dialog.sandbox) == []
    assert any(row.startswith("~/.ssh") for row in _rows(dialog.sandbox))
    dialog.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_form_labels_end_in_a_colon_and_save_is_a_button_not_a_bar(qtbot, runtime, language: str) -> None:
    i18n_qt.apply_language(language)
    dialog = SettingsDialog(CatalogBackend(runtime.settings, runtime))
    qtbot.addWidget(dialog)
    dialog.show_page("sandbox")
    dialog.show()
    page = dialog.sandbox
    qtbot.waitUntil(lambda: page.save_domains.isVisible())
    assert page.mode_label.text()[-1] in ":："
    for button in (page.save_domains, page.save_hidden):
        assert button.width() < page.domains.width() / 2, button.text()
    dialog.close()


def _rows(page: SandboxPage) -> list[str]:
    return [page.always_hidden.item(i).text() for i in range(page.always_hidden.count())]


def _moved_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch home folder, gpg's keys moved out of it, a relative password store, a token file
    named elsewhere (its stored_tokens beside it)."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (tmp_path / "keys" / "gnupg").mkdir(parents=True)
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "stored_tokens").write_text("secret\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GNUPGHOME", str(tmp_path / "keys" / "gnupg"))
    monkeypatch.setenv("PASSWORD_STORE_DIR", "store")
    monkeypatch.setenv("HF_TOKEN_PATH", str(tmp_path / "hf" / "token"))
    return home


def test_the_always_hidden_list_shows_where_this_environment_moves_secrets_and_why(
        qtbot, settings_store: SettingsStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the default places were listed: ``GNUPGHOME`` had moved gpg's keys elsewhere, hidden
    there by the sandbox but missing from the list the person reads."""
    _moved_home(tmp_path, monkeypatch)
    page = SandboxPage(settings_store)
    qtbot.addWidget(page)
    rows = _rows(page)
    assert f"{tmp_path}/keys/gnupg — moved by GNUPGHOME" in rows
    assert f"{tmp_path}/hf/stored_tokens — moved by HF_TOKEN_PATH" in rows
    assert "~/store — moved by PASSWORD_STORE_DIR (a relative value: also in every folder of the workspace)" in rows
    assert "~/.gnupg — a secret place, where its tool keeps it by default" in rows
    i18n_qt.apply_language("zh_CN")
    rows = _rows(page)
    assert any(row.startswith(f"{tmp_path}/keys/gnupg") and "GNUPGHOME" in row and CJK.search(row) for row in rows)
    assert all(CJK.search(row) for row in rows), [r for r in rows if not CJK.search(r)]


def test_every_path_the_runner_hides_is_on_the_list(qtbot, settings_store: SettingsStore, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """One list: what ``prepare`` empties for a command (the hidden places that exist, with
    Echo Desk's own folders) is what the page shows, each path once at least."""
    home = _moved_home(tmp_path, monkeypatch)
    workspace = tmp_path / "work"
    workspace.mkdir()
    own = tuple(folder for _, folder in paths.own_places())
    for folder in own:
        folder.mkdir(parents=True, exist_ok=True)
    spec = sandbox.SandboxSpec(writable=(workspace,), cwd=workspace, hidden=own, home=home, check_after=False,
                               guard_missing=False)
    launch = sandbox.prepare(spec, ["true"], "bwrap")
    launch.close()
    if launch.info_fd is not None:
        os.close(launch.info_fd)
    page = SandboxPage(settings_store)
    qtbot.addWidget(page)
    shown = {row.split(" — ")[0] for row in _rows(page)}
    shown = {str(home) + s[1:] if s.startswith("~/") else s for s in shown}
    hidden = {str(p) for p in launch.hidden}
    assert {str(tmp_path / "keys" / "gnupg"), str(home / ".ssh"), str(tmp_path / "hf" / "stored_tokens")} <= hidden
    assert hidden <= shown, hidden - shown


def test_choices_are_saved_for_the_open_workspace(qtbot, runtime, tmp_path: Path) -> None:
    settings_store, engine = runtime.settings, runtime.permissions
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path), rules=engine)
    qtbot.addWidget(page)
    assert "works on this system" in page.status.text() and page.fallback.isHidden()
    assert page.without_asking.isEnabled() and not page.without_asking.isChecked()
    page.without_asking.setChecked(True)
    # The box is a rule of the workspace's personal file; other workspaces are untouched.
    assert sandbox_toggle.is_on(engine, tmp_path) and not sandbox_toggle.is_on(engine, None)
    assert engine.check_command("make", workspace=tmp_path).effect is Effect.ALLOW_IN_SANDBOX
    assert settings_store.current.sandbox.for_workspace(str(tmp_path)).mode is SandboxMode.SANDBOXED
    # Removed by hand in the file: the box shows it at the next look.
    sandbox_toggle.set_on(engine, tmp_path, False)
    page.retranslate()
    assert not page.without_asking.isChecked()
    page.without_asking.setChecked(True)
    page.mode.setCurrentIndex(page.mode.findData(SandboxMode.ASK_UNSANDBOXED.value))
    assert settings_store.current.sandbox.for_workspace(str(tmp_path)).mode is SandboxMode.ASK_UNSANDBOXED
    assert not page.without_asking.isEnabled() and "Every command is asked about" in page.fallback.text()
    page.hidden.setPlainText("~/projects/secret-notes\n\n/srv/private\n")
    page.save_hidden.click()
    assert settings_store.current.sandbox.hidden_paths == [str(Path.home() / "projects/secret-notes"), "/srv/private"]


@pytest.mark.skipif(not sandbox.probe().available, reason="bwrap cannot run here")
def test_a_broken_rule_file_leaves_the_box_unticked_and_says_why(qtbot, runtime, tmp_path: Path) -> None:
    local = tmp_path / ".echo-desk" / "permissions.local.toml"
    local.parent.mkdir()
    local.write_text("[[rule]\n")
    page = SandboxPage(runtime.settings, workspace=lambda: str(tmp_path), rules=runtime.permissions)
    qtbot.addWidget(page)
    page.without_asking.setChecked(True)
    assert not page.without_asking.isChecked() and local.read_text() == "[[rule]\n"
    assert not page.rule_error.isHidden() and "Not changed" in page.rule_error.text()


def _request(*targets: Target) -> ApprovalRequest:
    return ApprovalRequest(call_id="c", tool_name="run_command", tool_title="Run command", risk=RiskLevel.EXEC,
                           scope_id="s", scope_label="", scope_chain=(), arguments={"command": "make"},
                           targets=(Target(kind="command", value="make", detail="/ws"), *targets),
                           file_changes=(), summary="", binding="b")


def test_the_approval_dialog_says_where_the_command_runs_and_with_what_network(qtbot) -> None:
    inside = _request(Target(kind=SANDBOX_TARGET, value=Placement.IN_SANDBOX, detail=network_detail(())))
    assert "Runs: in the sandbox\n    Details: no network" in format_targets(inside)
    outside = _request(Target(kind=SANDBOX_TARGET, value=Placement.OUTSIDE_SANDBOX,
                              protections=(Protection(reason=ProtectionReason.OUTSIDE_SANDBOX_ASKED),)))
    text = format_targets(outside)
    assert "Runs: outside the sandbox, with all your rights" in text
    assert "Protected: runs outside the sandbox with all your rights (the agent asked for it)" in text
    dialog = ApprovalDialog(outside)
    qtbot.addWidget(dialog)
    i18n_qt.apply_language("zh_CN")
    text = format_targets(outside)
    assert "运行位置：在沙箱之外，拥有你的全部权限" in text.replace(": ", "：")
    assert "智能体请求的" in text


def test_allowed_domains_are_checked_before_they_are_saved(qtbot, settings_store: SettingsStore,
                                                            tmp_path: Path) -> None:
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path))
    qtbot.addWidget(page)
    page.domains.setPlainText("pypi.org\n127.0.0.1\n*.local\n")
    page.save_domains.click()
    assert not page.domains_error.isHidden() and "127.0.0.1, *.local" in page.domains_error.text()
    assert settings_store.current.sandbox.for_workspace(str(tmp_path)).allowed_domains == []
    page.domains.setPlainText("pypi.org\n*.pythonhosted.org\n")
    page.save_domains.click()
    assert page.domains_error.isHidden()
    assert settings_store.current.sandbox.for_workspace(str(tmp_path)).allowed_domains == [
        "pypi.org", "*.pythonhosted.org"]
    assert settings_store.current.sandbox.default.allowed_domains == []
    request = _request(Target(kind=SANDBOX_TARGET, value=Placement.IN_SANDBOX, detail=network_detail(["pypi.org", "*.pythonhosted.org"])))
    assert "Details: network only to: pypi.org, *.pythonhosted.org" in format_targets(request)


@pytest.mark.skipif(not sandbox.probe().available, reason="bwrap cannot run here")
async def test_the_card_says_where_a_command_ran_and_what_was_refused(qtbot, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    tool = RunCommand(lambda: Settings())
    ctx = ToolExecutionContext(call_id="c1", tool_name="run_command", scope_id="s",
                               workspace_roots=(workspace,), write_roots=(workspace,))
    params = {"command": "echo x > /usr/escape-attempt"}
    ctx.preview = await tool.preview(params, ctx)
    result = await tool.execute(params, ctx)
    envelope = Envelope(ok=True, tool="run_command", call_id="c1", content=result.output, metadata=result.metadata)
    model = TranscriptModel()
    model.add_tool_call("c1", "run_command", json.dumps(params))
    model.set_tool_result("c1", envelope)
    item = model._by_call["c1"]
    text = card_html(item, "Run command")
    assert "Ran in the sandbox · no network" in text
    assert "The sandbox probably refused: writing outside the workspace" in text
    stored = _envelope_dict(envelope)
    assert stored is not None and sandbox_of(stored["sandbox"]) == item.sandbox  # kept for reopening
    i18n_qt.apply_language("zh_CN")
    assert "在沙箱中运行" in card_html(item, "运行命令")


def test_the_card_of_a_command_run_outside_warns_and_lists_refused_hosts() -> None:
    outside = sandbox_of({"sandbox": {"sandboxed": False, "mode": "sandboxed", "domains": [], "blocked": []}})
    assert outside is not None and "Ran outside the sandbox, with all your rights" in sandbox_html(outside)
    off = sandbox_of({"sandbox": {"sandboxed": False, "mode": "off"}})
    assert off is not None and sandbox_html(off) == ""
    refused = sandbox_of({"sandbox": {"sandboxed": True, "domains": ["pypi.org"], "blocked": [],
                                      "refused_hosts": ["<b>evil</b>.test"]}})
    assert refused is not None
    shown = sandbox_html(refused)
    assert "network only to: pypi.org" in shown and "&lt;b&gt;evil&lt;/b&gt;.test" in shown


def test_the_server_form_keeps_the_sandbox_choice(qtbot) -> None:
    form = ServerFormDialog(manager=None, config=ServerConfig(name="files", command="npx", args=("-y", "srv"),
                                                              sandbox=True, allowed_domains=("pypi.org",)))
    qtbot.addWidget(form)
    assert form.sandboxed.isChecked() and "sandbox" in form.sandboxed.text()
    assert form.draft().sandbox is True
    assert form.draft().allowed_domains == ("pypi.org",)  # kept through an edit (mcp.json only)
    form.sandboxed.setChecked(False)
    assert form.draft().sandbox is False


def test_the_approval_dialog_gives_the_fix_when_the_sandbox_is_unavailable(
        qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _without_bwrap(monkeypatch, tmp_path)
    request = _request(Target(kind=SANDBOX_TARGET, value=Placement.OUTSIDE_SANDBOX,
                              protections=(Protection(reason=ProtectionReason.OUTSIDE_SANDBOX_UNAVAILABLE),)))
    text = format_targets(request)
    assert "the sandbox is unavailable here" in text
    assert "Sandbox unavailable: bubblewrap (bwrap) is not installed." in text
    assert "sudo apt install bubblewrap" in text


def test_the_card_says_why_the_sandbox_was_unavailable() -> None:
    facts = sandbox_of({"sandbox": {"sandboxed": False, "mode": "sandboxed", "status": "apparmor_userns"}})
    assert facts is not None
    shown = sandbox_html(facts)
    assert "Ran outside the sandbox" in shown and "Sandbox unavailable: This system (Ubuntu 23.10" in shown
    chosen = sandbox_of({"sandbox": {"sandboxed": False, "mode": "ask_unsandboxed", "status": "available"}})
    assert chosen is not None and "unavailable" not in sandbox_html(chosen)
    odd = sandbox_of({"sandbox": {"sandboxed": False, "mode": "sandboxed", "status": "<made-up>"}})
    assert odd is not None and "unavailable" not in sandbox_html(odd)
