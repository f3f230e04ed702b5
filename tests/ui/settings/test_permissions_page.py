"""Settings › Permissions with the real engine, grant store, audit log and dispatcher: rules of
every layer with file and line, editing with the engine's validation, trust after seeing what it
allows, revoking before the next call, the tester, the activity log and its export."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import Effect, GrantScope, Suggestion
from echo_desk.ui.core.backend import CatalogBackend
from echo_desk.ui.settings.permissions_page import PermissionsPage
from echo_desk.ui.settings.settings_dialog import SettingsDialog

USER_RULES = """[[rule]]
effect = "allow"
tool = "shell"
pattern = "echo **"
reason = "printing is harmless"
"""

WORKSPACE_RULES = """[[rule]]
effect = "deny"
tool = "shell"
pattern = "git push **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "<b>true</b> **"
reason = "from the repository"
"""


@pytest.fixture
def page(qtbot, builtin_runtime, config_dir: Path, workspace: Path) -> PermissionsPage:
    (config_dir / "permissions.toml").write_text(USER_RULES)
    (workspace / ".echo-desk").mkdir()
    (workspace / ".echo-desk" / "permissions.toml").write_text(WORKSPACE_RULES)
    builtin_runtime.permissions.refresh()
    backend = CatalogBackend(builtin_runtime.settings, builtin_runtime)
    widget = PermissionsPage(builtin_runtime.permissions, builtin_runtime.audit, lambda: str(workspace),
                             backend.standing)
    qtbot.addWidget(widget)
    return widget


def _rows(tree) -> list[list[str]]:
    return [[tree.topLevelItem(i).text(c) for c in range(tree.columnCount())] for i in range(tree.topLevelItemCount())]


def _run(runtime, scope, command: str, call_id: str, host=None):
    host = host or ScriptedHost(choice=ApprovalChoice.DENY)
    call = ToolCall(id=call_id, name="run_command", arguments=json.dumps({"command": command}))
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(runtime.dispatcher.execute_tool(call, scope, host)), host
    finally:
        loop.close()


def test_rules_of_every_layer_with_file_and_line_and_the_workspace_allow_inactive_until_trusted(page, workspace):
    rows = _rows(page.rules.rules)
    mine = next(r for r in rows if r[2] == "echo **")
    assert mine[:2] == ["allow", "shell"] and mine[3] == "printing is harmless"
    assert mine[4] == "Your rules · permissions.toml line 1" and mine[5] == "Active"
    untrusted = next(r for r in rows if r[2] == "<b>true</b> **")  # shown as written, never as markup
    assert untrusted[5] == "Inactive: not trusted"
    assert next(r for r in rows if r[2] == "git push **")[5] == "Active"  # deny applies untrusted
    assert any(r[4] == "Built-in" for r in rows)
    assert page.rules.trust_button.isVisibleTo(page) and "allow rules (1)" in page.rules.trust_note.text()
    shown = page.rules.trust_text(page.engine.trust_snapshot(workspace))
    assert "permissions.toml line 6: shell  <b>true</b> **  — from the repository" in shown and "git push" not in shown
    page.rules.ask_trust()
    assert page.rules.trust_box.textFormat() == Qt.TextFormat.PlainText
    page.rules.trust_box.done(QMessageBox.StandardButton.Yes)
    assert page.engine.is_trusted(workspace)
    assert next(r for r in _rows(page.rules.rules) if r[2] == "<b>true</b> **")[5] == "Active"
    assert not page.rules.trust_button.isVisibleTo(page)


def test_the_editor_validates_as_you_type_and_saves_only_valid_rules(page, config_dir):
    editor = page.rules
    editor.editor.setPlainText(USER_RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "ls **"\n'
                               'examples = { match = ["cat x"] }\n')
    assert not editor.save.isEnabled()
    assert "line 7" in editor.validation.text() and "cat x" in editor.validation.text()
    editor.editor.setPlainText(USER_RULES + '\n[[rule]]\neffect = "maybe"\n')
    assert not editor.save.isEnabled() and editor.validation.text().startswith("Error")
    assert (config_dir / "permissions.toml").read_text() == USER_RULES  # nothing written, nothing lost
    new = USER_RULES + '\n[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "ls **"\nreason = "no listing"\n'
    editor.editor.setPlainText(new)
    assert editor.save.isEnabled() and editor.validation.text() == "2 rules, all valid"
    editor.save.click()
    assert (config_dir / "permissions.toml").read_text() == new
    assert ["deny", "shell", "ls **", "no listing", "Your rules · permissions.toml line 7", "Active"] in \
        _rows(editor.rules)
    assert page.engine.check_command("ls -l").effect is Effect.DENY


def test_the_editor_counts_its_rules_in_the_right_number(page):
    editor = page.rules
    editor.editor.setPlainText('[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "ls **"\n')
    assert editor.validation.text() == "1 rule, all valid"
    editor.editor.setPlainText("")
    assert editor.validation.text() == "0 rules, all valid"


def test_revoke_takes_effect_before_the_next_call(page, builtin_runtime, scope):
    engine = builtin_runtime.permissions
    engine.grant(Suggestion(tool="shell", pattern="true **", label="true"), GrantScope.MINUTES_15, call_id="c0")
    page.tabs.setCurrentWidget(page.grants)
    rows = _rows(page.grants.grants)
    assert len(rows) == 1 and rows[0][0] == "shell  true **" and rows[0][1] == "for 15 minutes"
    assert rows[0][3].startswith("c0 · ") and rows[0][4] == "0"
    first, host = _run(builtin_runtime, scope, "true", "c1")
    assert first.ok and host.requests == []  # the grant allowed it
    page.grants.reload()
    assert _rows(page.grants.grants)[0][4] == "1"
    page.grants.grants.setCurrentItem(page.grants.grants.topLevelItem(0))
    page.grants.revoke.click()
    assert page.grants.grants.topLevelItemCount() == 0 and page.grants.empty.isVisibleTo(page)
    second, host = _run(builtin_runtime, scope, "true", "c2")
    assert not second.ok and len(host.requests) == 1  # asked at once (and denied)


def test_the_tester_shows_the_engines_verdict_per_sub_command(page, workspace):
    tester = page.tester
    tester.input.setText("echo hi && git push origin")
    expected = page.engine.check_command("echo hi && git push origin", workspace=workspace)
    assert tester.verdict == expected
    rows = _rows(tester.parts)
    assert rows[0] == ["echo hi", "Allowed", "rule “echo **” (shell) in permissions.toml line 1"]
    assert rows[1][:2] == ["git push origin", "Refused"] and "permissions.toml line 1" in rows[1][2]
    assert tester.result.text().startswith("Refused — decided by rule “git push **”")
    tester.input.setText("npm test")
    assert tester.result.text() == "No rule or grant decides: run_command asks you by default."
    tester.kind.setCurrentIndex(3)
    tester.input.setText("https://example.com/x")
    assert _rows(tester.parts)[0][:2] == ["https://example.com/x", "No rule"]
    tester.kind.setCurrentIndex(4)
    tester.input.setText("github create_issue {bad")
    assert "not valid JSON" in tester.result.text() and tester.verdict is None


def test_activity_filters_explains_and_exports(page, builtin_runtime, scope, tmp_path):
    _run(builtin_runtime, scope, "echo one", "c1")
    _run(builtin_runtime, scope, "uname", "c2")
    activity = page.activity
    assert activity is not None
    page.tabs.setCurrentWidget(activity)
    rows = _rows(activity.calls)
    assert [r[2] for r in rows] == ["run_command", "run_command"]
    assert rows[1][3] == "ran without asking" and rows[1][4] == "rule “echo **” (shell) in permissions.toml line 1"
    assert rows[0][3] == "refused or denied"
    activity.conversation.setText(rows[0][1])  # the first characters, as the table shows them
    assert activity.calls.topLevelItemCount() == 2
    activity.conversation.setText("zz-other")
    assert activity.calls.topLevelItemCount() == 0
    activity.conversation.setText("")
    activity.decision.setCurrentIndex(activity.decision.findData("auto"))
    assert activity.calls.topLevelItemCount() == 1
    activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
    assert activity.why_button.isEnabled()
    activity.why_button.click()
    assert page.tabs.currentWidget() is page.rules
    assert page.rules.rules.currentItem().text(2) == "echo **"
    out = tmp_path / "activity.jsonl"
    assert activity.export_to(out) == 1
    (line,) = out.read_text().splitlines()
    assert json.loads(line)["call_id"] == "c1"


def test_settings_has_the_page_in_both_languages(qtbot, builtin_runtime):
    from echo_desk.ui.core import i18n_qt

    dialog = SettingsDialog(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(dialog)
    dialog.show_page("permissions")
    assert isinstance(dialog.stack.currentWidget(), PermissionsPage)
    row = SettingsDialog.PAGES.index("permissions")
    assert dialog.nav.item(row).text() == "Permissions"
    i18n_qt.apply_language("zh_CN")
    assert dialog.nav.item(row).text() == "权限"
    assert dialog.permissions.tabs.tabText(2) == "策略测试(&P)"


def test_the_grants_columns_fit_the_page_in_both_languages(qtbot, builtin_runtime):
    from echo_desk.ui.core import i18n_qt

    builtin_runtime.permissions.grant(Suggestion(tool="shell", pattern="git status **", label="git status"),
                                      GrantScope.MINUTES_15, call_id="c0")
    dialog = SettingsDialog(CatalogBackend(builtin_runtime.settings, builtin_runtime))
    qtbot.addWidget(dialog)
    dialog.resize(900, 600)  # smaller than it opens: the window may be made so
    dialog.show_page("permissions")
    dialog.permissions.tabs.setCurrentIndex(1)
    dialog.show()
    grants = dialog.permissions.grants.grants
    dialog.permissions.grants.reload()
    qtbot.waitUntil(lambda: grants.isVisible() and grants.viewport().width() > 0)
    header = grants.header()
    for language in ("en", "zh_CN"):
        i18n_qt.apply_language(language)
        qtbot.waitUntil(lambda: header.length() <= grants.viewport().width())  # the id is not scrolled away
        clipped = [grants.headerItem().text(c) for c in range(grants.columnCount())
                   if header.sectionSize(c) < header.sectionSizeHint(c) - 2]
        assert clipped == [], language


def test_add_rule_appends_a_valid_template_and_selects_its_pattern(page, config_dir):
    rules = page.rules
    rules.add_rule.click()
    assert rules.editor.textCursor().selectedText() == "git status **"
    assert rules.save.isEnabled() and rules.validation.text() == "2 rules, all valid"
    rules.editor.textCursor().insertText("git status; rm")  # typing over the selection
    assert not rules.save.isEnabled() and rules.validation.text().startswith("Error")
    assert (config_dir / "permissions.toml").read_text() == USER_RULES


def test_delete_removes_only_the_selected_user_rule_and_saving_applies_it(page, config_dir):
    rules = page.rules
    two = USER_RULES + '\n# no listing\n[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "ls **"\n'
    rules.editor.setPlainText(two)
    rules.save.click()

    def select(pattern: str) -> None:
        tree = rules.rules
        item = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                    if tree.topLevelItem(i).text(2) == pattern)
        tree.setCurrentItem(item)

    select("git push **")  # a workspace rule: not the user's to delete here
    assert not rules.delete_rule.isEnabled()
    select("echo **")
    assert rules.delete_rule.isEnabled()
    rules.delete_rule.click()
    assert rules.editor.toPlainText() == '# no listing\n[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "ls **"\n'
    assert (config_dir / "permissions.toml").read_text() == two  # nothing written before Save
    assert not rules.delete_rule.isEnabled()  # line numbers now differ from the file's
    rules.save.click()
    patterns = [rules.rules.topLevelItem(i).text(2) for i in range(rules.rules.topLevelItemCount())]
    assert "echo **" not in patterns and "ls **" in patterns


def test_tool_tips_show_a_repository_pattern_literally(page):
    from PySide6.QtGui import QTextDocument

    item = next(page.rules.rules.topLevelItem(i) for i in range(page.rules.rules.topLevelItemCount())
                if page.rules.rules.topLevelItem(i).text(2) == "<b>true</b> **")
    doc = QTextDocument()
    doc.setHtml(item.toolTip(2))  # as Qt renders a tip it takes for rich text
    assert doc.toPlainText() == "<b>true</b> **"


def test_a_long_reason_can_be_read_whole_and_has_the_room(page, qtbot):
    rules = page.rules.rules
    page.resize(1000, 600)
    page.show()
    qtbot.waitUntil(lambda: rules.isVisible() and rules.viewport().width() > 0)
    floor = next(rules.topLevelItem(i) for i in range(rules.topLevelItemCount())
                 if rules.topLevelItem(i).text(4) == "Built-in" and len(rules.topLevelItem(i).text(3)) > 40)
    assert floor.toolTip(3) and floor.text(3) in floor.toolTip(3)  # the column elides it
    header = rules.header()
    for short in (0, 4, 5):  # the short columns fit their text; the room left is the reason's
        assert header.sectionSize(short) <= max(rules.sizeHintForColumn(short), header.sectionSizeHint(short)) + 2
    assert sum(header.sectionSize(c) for c in range(6)) >= rules.viewport().width() - 2
    # With nothing to trust, "Delete rule" is a button, not a bar across the page.
    delete = page.rules.delete_rule
    assert delete.isVisible() and delete.width() < rules.width() / 2


def test_activity_names_the_mcp_client_that_made_a_call(page, builtin_runtime, workspace):
    from echo_desk.agent.scope import Scope

    _run(builtin_runtime, Scope(label="Cursor", client="cursor", workspace_roots=(workspace,)), "echo hi", "g1")
    activity = page.activity
    assert activity is not None
    activity.reload()
    assert _rows(activity.calls)[0][1] == "Cursor (through MCP)"
    assert builtin_runtime.audit.query(client="cursor")[0]["call_id"] == "g1"


def test_activity_shows_a_session_handed_back_on_quit_in_both_languages(page, builtin_runtime):
    # Before, the hand-back went only to the app's log: the person could not see here that
    # Cursor's session went on without the app.
    import re
    import time

    from echo_desk.store.audit import session_handed_back
    from echo_desk.ui.core.i18n_qt import apply_language

    builtin_runtime.audit.append(session_handed_back("cursor", time.time()))
    activity = page.activity
    assert activity is not None
    activity.reload()
    [row] = _rows(activity.calls)
    assert row[1:] == ["Cursor (through MCP)", "", "session handed back on quit", ""]
    activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
    assert activity.detail.text().startswith("Echo Desk quit and handed Cursor's session back to its own echo-desk "
                                             "gateway"), activity.detail.text()
    assert "listed here too" in activity.detail.text()
    assert not activity.why_button.isEnabled()  # no rule or grant decided it
    # Found by its own entry in the verdict filter, and by no call's verdict.
    activity.decision.setCurrentIndex(activity.decision.findData("session_handed_back"))
    assert activity.decision.currentText() == "session handed back on quit"
    assert activity.calls.topLevelItemCount() == 1
    activity.decision.setCurrentIndex(activity.decision.findData("auto"))
    assert activity.calls.topLevelItemCount() == 0
    activity.decision.setCurrentIndex(0)
    try:
        apply_language("zh_CN")
        [row] = _rows(activity.calls)
        assert row[1:] == ["Cursor（通过 MCP）", "", "退出时已交还会话", ""]
        assert activity.decision.itemText(activity.decision.findData("session_handed_back")) == "退出时已交还会话"
        activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
        detail = activity.detail.text()
        assert detail.startswith("Echo Desk 退出时，已把 Cursor 的会话交还"), detail
        assert not re.search(r"[A-Za-z]{3,}", re.sub(r"Echo Desk|echo-desk|Cursor", "", detail)), detail
    finally:
        apply_language("en")


def test_activity_shows_a_session_closed_on_quit_and_why_in_both_languages(page, builtin_runtime):
    # Before, a hand-back that failed was only a line in the app's log: nothing here said that
    # Cursor's session had ended with the app, or why.
    import re
    import time

    from echo_desk.store.audit import session_not_handed_back
    from echo_desk.ui.core.i18n_qt import apply_language

    builtin_runtime.audit.append(session_not_handed_back("cursor", time.time(), "too_slow", "it took more than 5 s"))
    activity = page.activity
    assert activity is not None
    activity.reload()
    [row] = _rows(activity.calls)
    assert row[1:] == ["Cursor (through MCP)", "", "session closed on quit", ""]
    activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
    detail = activity.detail.text()
    assert detail.startswith("Echo Desk quit and could not hand Cursor's session back"), detail
    assert "took too long" in detail and "must start it again" in detail
    activity.decision.setCurrentIndex(activity.decision.findData("session_not_handed_back"))
    assert activity.calls.topLevelItemCount() == 1
    activity.decision.setCurrentIndex(activity.decision.findData("session_handed_back"))
    assert activity.calls.topLevelItemCount() == 0
    activity.decision.setCurrentIndex(0)
    try:
        apply_language("zh_CN")
        [row] = _rows(activity.calls)
        assert row[3] == "退出时已关闭会话"
        activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
        detail = activity.detail.text()
        assert "Cursor" in detail and "太久" in detail, detail
        assert not re.search(r"[A-Za-z]{3,}", re.sub(r"Echo Desk|echo-desk|Cursor", "", detail)), detail
    finally:
        apply_language("en")


def test_activity_says_which_servers_a_clients_list_was_answered_without(page, builtin_runtime):
    # A list of the tools no longer waits for a server whose start is slow: the person sees here
    # that Cursor got its tools without that server's, and that it is told to list them again.
    import re
    import time

    from echo_desk.store.audit import tools_listed_without
    from echo_desk.ui.core.i18n_qt import apply_language

    builtin_runtime.audit.append(tools_listed_without("cursor", time.time(), ["slow", "git\u202ehub"]))
    activity = page.activity
    assert activity is not None
    activity.reload()
    [row] = _rows(activity.calls)
    assert row[1:] == ["Cursor (through MCP)", "", "tools listed without servers still starting", ""]
    activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
    detail = activity.detail.text()
    assert detail.startswith("Cursor asked for its tools while these MCP servers were still starting: slow, git"), detail
    assert "\u202e" not in detail  # a server's name is shown as plain text
    activity.decision.setCurrentIndex(activity.decision.findData("tools_listed_without"))
    assert activity.calls.topLevelItemCount() == 1
    activity.decision.setCurrentIndex(0)
    try:
        apply_language("zh_CN")
        [row] = _rows(activity.calls)
        assert row[3] == "列出工具时有服务器仍在启动"
        activity.calls.setCurrentItem(activity.calls.topLevelItem(0))
        detail = activity.detail.text()
        assert "slow、git" in detail and "重新获取" in detail, detail
        rest = re.sub(r"MCP|Cursor|slow|git|hub|U\+202E|[^A-Za-z]", " ", detail)
        assert not re.search(r"[A-Za-z]{3,}", rest), detail
    finally:
        apply_language("en")


def test_a_rule_for_some_callers_says_whom_it_is_for(qtbot, builtin_runtime, config_dir: Path, workspace: Path) -> None:
    # A rule with client = … looked like one for every caller in the list and in "decided by".
    from echo_desk.ui.core.rules_text import rule_phrase

    (config_dir / "permissions.toml").write_text(
        '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git push **"\nclient = "@chat"\n\n'
        '[[rule]]\neffect = "deny"\ntool = "shell"\npattern = "rm **"\nclient = ["cursor", "*"]\n\n'
        '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "ls **"\n')
    builtin_runtime.permissions.refresh()
    backend = CatalogBackend(builtin_runtime.settings, builtin_runtime)
    widget = PermissionsPage(builtin_runtime.permissions, builtin_runtime.audit, lambda: str(workspace),
                             backend.standing)
    qtbot.addWidget(widget)
    rows = {r[2]: r[1] for r in _rows(widget.rules.rules)}
    assert rows["git push **"] == "shell (for Echo Desk's chat)"
    assert rows["rm **"] == "shell (for Cursor, any app through MCP)"
    assert rows["ls **"] == "shell"
    chat_rule = next(r for r in builtin_runtime.permissions.load().rules if r.pattern == "git push **")
    assert rule_phrase(chat_rule) == "rule “git push **” (shell) for Echo Desk's chat in permissions.toml line 1"


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_long_reason_wraps_whole_in_its_row_and_the_row_shrinks_again_when_there_is_room(page, qtbot, language):
    # Before: every row was one line tall and a long reason ended in "…" at 1,240 px.
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QFontMetrics

    from echo_desk.ui.core import i18n_qt

    i18n_qt.apply_language(language)
    rules = page.rules.rules
    page.resize(900, 600)
    page.show()
    qtbot.waitExposed(page)
    items = [rules.topLevelItem(i) for i in range(rules.topLevelItemCount())]
    longest = max(items, key=lambda item: QFontMetrics(rules.font()).horizontalAdvance(item.text(3)))
    one_line = min(rules.visualItemRect(item).height() for item in items)

    def fits() -> bool:
        width = rules.header().sectionSize(3) - 8  # the cell's own margins
        needed = QFontMetrics(rules.font()).boundingRect(QRect(0, 0, width, 10_000), Qt.TextFlag.TextWordWrap,
                                                         longest.text(3)).height()
        return needed > one_line and rules.visualItemRect(longest).height() >= needed

    qtbot.waitUntil(fits)  # wrapped over more lines, all of them shown
    page.resize(2400, 600)  # room for it on one line: the row is one line tall again
    qtbot.waitUntil(lambda: rules.visualItemRect(longest).height() == one_line)
