"""The Sandbox settings page: it says why the sandbox cannot run here and what happens instead,
and its choices land in the settings for the open workspace."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk import sandbox
from echo_desk.agent.host import ApprovalRequest
from echo_desk.agent.policy import IN_SANDBOX, OUTSIDE_SANDBOX, SANDBOX_TARGET
from echo_desk.agent.tools import command_sandbox
from echo_desk.store.settings import SandboxMode, SettingsStore
from echo_desk.tools import RiskLevel, Target
from echo_desk.ui import i18n_qt
from echo_desk.ui.approval_dialog import ApprovalDialog, format_targets
from echo_desk.ui.backend import CatalogBackend
from echo_desk.ui.sandbox_page import SandboxPage
from echo_desk.ui.settings_dialog import SettingsDialog

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
    assert "bubblewrap (bwrap) is not installed." in page.status.text()
    assert "sudo apt install bubblewrap" in page.status.text()
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
def test_choices_are_saved_for_the_open_workspace(qtbot, settings_store: SettingsStore, tmp_path: Path) -> None:
    page = SandboxPage(settings_store, workspace=lambda: str(tmp_path))
    qtbot.addWidget(page)
    assert "works on this system" in page.status.text() and page.fallback.isHidden()
    assert page.without_asking.isEnabled()
    page.without_asking.setChecked(True)
    chosen = settings_store.current.sandbox.for_workspace(str(tmp_path))
    assert chosen.run_without_asking and chosen.mode is SandboxMode.SANDBOXED
    assert settings_store.current.sandbox.default.run_without_asking is False  # other workspaces untouched
    page.mode.setCurrentIndex(page.mode.findData(SandboxMode.ASK_UNSANDBOXED.value))
    assert settings_store.current.sandbox.for_workspace(str(tmp_path)).mode is SandboxMode.ASK_UNSANDBOXED
    assert not page.without_asking.isEnabled() and "Every command is asked about" in page.fallback.text()
    page.hidden.setPlainText("~/projects/secret-notes\n\n/srv/private\n")
    page.save_hidden.click()
    assert settings_store.current.sandbox.hidden_paths == [str(Path.home() / "projects/secret-notes"), "/srv/private"]


def _request(*targets: Target) -> ApprovalRequest:
    return ApprovalRequest(call_id="c", tool_name="run_command", tool_title="Run command", risk=RiskLevel.EXEC,
                           scope_id="s", scope_label="", scope_chain=(), arguments={"command": "make"},
                           targets=(Target(kind="command", value="make", detail="/ws"), *targets),
                           file_changes=(), summary="", binding="b")


def test_the_approval_dialog_says_where_the_command_runs_and_with_what_network(qtbot) -> None:
    inside = _request(Target(kind=SANDBOX_TARGET, value=IN_SANDBOX, detail="network: none"))
    assert "Runs: in the sandbox\n    Details: no network" in format_targets(inside)
    outside = _request(Target(kind=SANDBOX_TARGET, value=OUTSIDE_SANDBOX,
                              detail=command_sandbox.OUTSIDE_REASONS["agent"]))
    text = format_targets(outside)
    assert "Runs: outside the sandbox, with all your rights" in text
    assert "Protected: runs outside the sandbox with all your rights (the agent asked for it)" in text
    dialog = ApprovalDialog(outside)
    qtbot.addWidget(dialog)
    i18n_qt.apply_language("zh_CN")
    text = format_targets(outside)
    assert "运行位置：在沙箱之外，拥有你的全部权限" in text.replace(": ", "：")
    assert "代理请求的" in text


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
    request = _request(Target(kind=SANDBOX_TARGET, value=IN_SANDBOX, detail="network: only pypi.org, *.pythonhosted.org"))
    assert "Details: network only to: pypi.org, *.pythonhosted.org" in format_targets(request)
