"""The approval dialog's rules panel: parts with their deciding rule, narrow suggested grants,
the answer as data, through the real dispatcher, engine, grant store and run_command."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import GrantScope
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.grant_choices import GrantChoices, plain_button_text
from echo_desk.ui.approval.host import QtHost
from tests.ui.conftest import next_emission, within

RULES = """# my rules

[[rule]]
effect = "allow"
tool = "shell"
pattern = "echo **"
reason = "printing is harmless"
"""


@pytest.fixture
def rules_file(config_dir: Path) -> Path:
    path = config_dir / "permissions.toml"
    path.write_text(RULES)
    return path


def _run(command: str, call_id: str) -> ToolCall:
    return ToolCall(id=call_id, name="run_command", arguments=json.dumps({"command": command}))


async def _answer(runtime, scope, command, call_id, answer):
    host = QtHost()
    opened = next_emission(host.dialog_opened)
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(_run(command, call_id), scope, host))
    dialog = await within(opened)
    seen = answer(dialog)
    return dialog, await within(task), seen


def test_parts_name_the_deciding_rule_and_a_chosen_grant_applies_to_the_next_call(
        qloop, builtin_runtime, scope, rules_file):
    def choose(dialog: ApprovalDialog):
        panel = dialog.grant_choices
        assert panel is not None and panel.isVisible()
        rows = [[panel.parts.topLevelItem(i).text(c) for c in range(3)] for i in range(panel.parts.topLevelItemCount())]
        radios = [r.text() for r in panel.radios]
        panel.scope.setCurrentIndex(panel.scope.findData(GrantScope.MINUTES_15))
        button = panel.allow.text()
        panel.allow.click()
        return rows, radios, button

    dialog, envelope, (rows, radios, button) = qloop.run_until_complete(
        _answer(builtin_runtime, scope, "echo hi; true", "c1", choose))
    assert envelope.ok, envelope.error
    assert rows[0] == ["echo hi", "Allowed", "rule “echo **” (shell) in permissions.toml line 3"]
    assert rows[1][0] == "true" and rows[1][1] == "No rule"
    assert radios == ["Allow “true **”"]  # one narrow rule per command not yet allowed
    assert button == "Allow “true **” for 15 minutes"
    decision = dialog.decision
    assert decision is not None and decision.grant_scope is GrantScope.MINUTES_15
    assert decision.suggestion is not None and decision.suggestion.pattern == "true **"
    (grant,) = builtin_runtime.permissions.active_grants()
    assert (grant.pattern, grant.created_by_call, grant.scope) == ("true **", "c1", GrantScope.MINUTES_15)

    async def again():
        host = QtHost()
        opened: list[object] = []
        host.dialog_opened.connect(opened.append)
        result = await builtin_runtime.dispatcher.execute_tool(_run("true && echo b", "c2"), scope, host)
        return result, opened

    second, opened = qloop.run_until_complete(again())
    assert second.ok and opened == []  # the grant answered; nobody was asked


def test_an_opaque_command_gets_no_suggested_rule_and_says_why(qloop, builtin_runtime, scope, rules_file):
    def look(dialog: ApprovalDialog):
        panel = dialog.grant_choices
        assert panel is not None
        reason = panel.parts.topLevelItem(0).text(2)
        shown = (len(panel.radios), panel.allow.isVisible(), reason)
        dialog.deny.click()
        return shown

    _, envelope, (radios, allow_visible, reason) = qloop.run_until_complete(
        _answer(builtin_runtime, scope, "eval echo hi", "c3", look))
    assert not envelope.ok
    assert radios == 0 and not allow_visible
    assert "eval" in reason and reason.startswith("cannot be allowed by a rule")
    assert builtin_runtime.permissions.active_grants() == []


def test_always_appends_a_rule_and_the_keyboard_reaches_every_choice(qloop, builtin_runtime, scope, rules_file):
    def keyboard(dialog: ApprovalDialog):
        panel = dialog.grant_choices
        assert panel is not None
        # The scope list is reachable by its own keys; Enter in the dialog still denies.
        panel.scope.setFocus()
        QTest.keyClick(panel.scope, Qt.Key.Key_End)
        chosen = panel.scope.currentData()
        panel.allow.setFocus()
        QTest.keyClick(panel.allow, Qt.Key.Key_Space)
        return chosen

    _dialog, envelope, chosen = qloop.run_until_complete(_answer(builtin_runtime, scope, "true", "c4", keyboard))
    assert chosen == GrantScope.ALWAYS and envelope.ok
    text = rules_file.read_text()
    assert text.startswith(RULES) and 'pattern = "true **"' in text
    rules = [r for r in builtin_runtime.permissions.load().rules if r.pattern == "true **"]
    assert len(rules) == 1 and rules[0].source.path == rules_file


def test_the_panel_shows_untrusted_text_plainly_and_in_chinese(qtbot, builtin_runtime, workspace, rules_file):
    from echo_desk.ui.core import i18n_qt

    engine = builtin_runtime.permissions
    verdict = engine.check_command("echo '<b>x</b>' && printf '%s' 'a&b'", workspace=workspace)
    panel = GrantChoices(verdict)
    qtbot.addWidget(panel)
    assert panel.parts.topLevelItem(0).text(0) == "echo '<b>x</b>'"
    assert panel.parts.topLevelItem(1).text(0) == "printf '%s' 'a&b'"
    assert [r.text() for r in panel.radios] == [plain_button_text("Allow “printf **”")]
    assert plain_button_text("a && b") == "a &&&& b"  # shown literally, no mnemonic
    i18n_qt.apply_language("zh_CN")
    assert panel.parts.topLevelItem(0).text(1) == "已允许"
    assert "规则" in panel.parts.topLevelItem(0).text(2)
    assert panel.scope.itemText(0) == "15 分钟内"


@pytest.mark.parametrize("write", [True, False], ids=["write", "read"])
def test_a_path_grant_says_its_use_and_that_it_covers_more_than_the_asking_tool(qtbot, builtin_runtime, workspace,
                                                                                 write):
    """"Allow “@workspace/notes.txt”" chosen in an edit_file dialog also covers write_file and
    delete_path: the choice says what use it allows, and its tooltip that every such tool counts."""
    from echo_desk.ui.core import i18n_qt

    verdict = builtin_runtime.permissions.check_path(str(workspace / "notes.txt"), write=write, workspace=workspace)
    panel = GrantChoices(verdict)
    qtbot.addWidget(panel)
    use = "changes to" if write else "reading"
    assert [r.text() for r in panel.radios] == [f"Allow {use} “@workspace/notes.txt”"]
    assert "Covers every tool that " + ("changes" if write else "reads") in panel.radios[0].toolTip()
    i18n_qt.apply_language("zh_CN")
    assert panel.radios[0].text() == ("允许更改“@workspace/notes.txt”" if write else "允许读取“@workspace/notes.txt”")
    assert "适用于所有会" + ("更改" if write else "读取") in panel.radios[0].toolTip()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_allow_and_remember_button_shows_its_whole_text_at_the_dialog_s_minimum_width(
        qloop, builtin_runtime, scope, language) -> None:
    """The button names the rule and the scope; beside the scope box it was cut at both ends
    ("…w changes to “@workspace/notes.txt” for 15 minu…") in an approval dialog of its minimum size."""
    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language(language)
    call = ToolCall(id="w1", name="write_file", arguments=json.dumps({"path": "notes.txt", "content": "a\n"}))

    async def look() -> list[str]:
        host = QtHost()
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(builtin_runtime.dispatcher.execute_tool(call, scope, host))
        dialog = await within(opened)
        dialog.resize(dialog.minimumSize())
        panel = dialog.grant_choices
        assert panel is not None and panel.has_choices
        cut = []
        for index in range(panel.scope.count()):
            panel.scope.setCurrentIndex(index)
            QApplication.processEvents()
            right = panel.allow.mapTo(dialog, panel.allow.rect().topRight()).x()
            if panel.allow.width() < panel.allow.sizeHint().width() or right > dialog.width():
                cut.append(panel.allow.text())
        dialog.deny.click()
        await within(task)
        return cut

    assert qloop.run_until_complete(look()) == []


def test_always_says_whose_rule_it_writes(qtbot, builtin_runtime, workspace) -> None:
    """The rule "always" writes speaks for the caller whose dialog it was chosen in (the chat's
    says ``client = "@chat"``): the choice says so, in the chat and in a client's dialog."""
    from echo_desk.agent.permissions import GrantScope
    from echo_desk.ui.approval.grant_choices import OFFERED_SCOPES

    verdict = builtin_runtime.permissions.check_command("git status", workspace=workspace)
    always = OFFERED_SCOPES.index(GrantScope.ALWAYS)
    chat = GrantChoices(verdict)
    cursor = GrantChoices(verdict, client="Cursor")
    for panel in (chat, cursor):
        qtbot.addWidget(panel)
        panel.scope.setCurrentIndex(always)
    assert chat.scope.itemText(always) == "always, in Echo Desk's chat only (added to permissions.toml)"
    assert cursor.scope.itemText(always) == "always, for Cursor only (added to permissions.toml)"
    assert "for Cursor only" in cursor.allow.text()
    assert chat.scope.itemText(0) == cursor.scope.itemText(0) == "for 15 minutes"
