"""The approval story end to end: dispatcher → Qt host → dialog → decision → file (or not)."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from echo_desk.agent.model import ToolCall
from echo_desk.store.settings import SettingsStore, ToolPolicy
from echo_desk.tools import Question
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.approval.question_dialog import QuestionDialog
from echo_desk.ui.core import i18n_qt
from tests.ui.conftest import next_emission, within


def _call(text: str, call_id: str = "call-1") -> ToolCall:
    return ToolCall(id=call_id, name="write_note", arguments=json.dumps({"path": "notes.txt", "text": text}))


async def _run_with_answer(runtime, scope, answer):
    """Execute the call; when the dialog opens, let ``answer(dialog)`` respond."""
    host = QtHost()
    opened = next_emission(host.dialog_opened)
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(_call("new text\n"), scope, host))
    dialog = await within(opened)
    seen = answer(dialog)
    envelope = await within(task)
    return dialog, envelope, seen


def test_dialog_shows_the_absolute_path_and_the_diff_and_allow_writes(qloop, runtime, scope, workspace):
    target = workspace / "notes.txt"
    target.write_text("old text\n")

    def allow(dialog: ApprovalDialog):
        shown = (dialog.targets.toPlainText(), dialog.diff_panes[0].unified.toPlainText(), dialog.tabs.count())
        assert dialog.isVisible()
        dialog.allow_once.click()
        return shown

    _, envelope, (targets, diff, tabs) = qloop.run_until_complete(_run_with_answer(runtime, scope, allow))
    assert str(target.resolve()) in targets
    assert "-old text" in diff and "+new text" in diff
    assert tabs == 1
    assert envelope.ok, envelope.error
    assert target.read_text() == "new text\n"


def test_deny_leaves_the_file_byte_identical_and_the_model_gets_the_message(qloop, runtime, scope, workspace):
    target = workspace / "notes.txt"
    original = b"keep me\r\n\xef\xbb\xbf exact bytes\n"
    target.write_bytes(original)

    def deny(dialog: ApprovalDialog):
        dialog.message.setText("use a new file instead")
        dialog.deny.click()

    _, envelope, _ = qloop.run_until_complete(_run_with_answer(runtime, scope, deny))
    assert target.read_bytes() == original
    assert not envelope.ok and envelope.error_kind == "rejected"
    assert "use a new file instead" in envelope.error


def test_escape_and_closing_the_window_deny(qloop, runtime, scope, workspace):
    target = workspace / "notes.txt"
    target.write_text("same\n")

    def escape(dialog: ApprovalDialog):
        QTest.keyClick(dialog, Qt.Key.Key_Escape)

    def enter(dialog: ApprovalDialog):
        QTest.keyClick(dialog, Qt.Key.Key_Return)

    for answer in (escape, enter, lambda d: d.close()):
        _, envelope, _ = qloop.run_until_complete(_run_with_answer(runtime, scope, answer))
        assert envelope.error_kind == "rejected"
        assert target.read_text() == "same\n"


def test_always_allow_persists_across_a_restart(qloop, runtime, scope, workspace, config_dir):
    (workspace / "notes.txt").write_text("v1\n")
    _, envelope, _ = qloop.run_until_complete(
        _run_with_answer(runtime, scope, lambda d: d.always_allow.click()))
    assert envelope.ok
    reopened = SettingsStore.in_dir(config_dir)  # what the next start of the app reads
    assert reopened.current.tool("write_note").policy is ToolPolicy.ALWAYS

    # And it is honoured: the next call runs without a dialog.
    host = QtHost()
    host.dialog_opened.connect(lambda d: (_ for _ in ()).throw(AssertionError("asked again")))
    second = qloop.run_until_complete(runtime.dispatcher.execute_tool(_call("v2\n", "call-2"), scope, host))
    assert second.ok and (workspace / "notes.txt").read_text() == "v2\n"


def test_every_control_has_an_accessible_name(qloop, runtime, scope, workspace):
    (workspace / "notes.txt").write_text("a\n")

    def inspect(dialog: ApprovalDialog):
        from PySide6.QtWidgets import QAbstractButton, QLineEdit, QPlainTextEdit, QTabWidget

        controls = [w for kind in (QAbstractButton, QLineEdit, QPlainTextEdit, QTabWidget)
                    for w in dialog.findChildren(kind)]
        # The tab bar's own scroll arrows (QToolButton) are Qt's, not ours.
        unnamed = [w.metaObject().className() for w in controls
                   if w.isVisibleTo(dialog) and not w.accessibleName()
                   and w.metaObject().className() != "QToolButton"]
        dialog.deny.click()
        return unnamed

    _, _, unnamed = qloop.run_until_complete(_run_with_answer(runtime, scope, inspect))
    assert unnamed == []


def test_a_question_from_the_tool_worker_thread_opens_a_form_and_returns_the_values(qloop):
    host = QtHost()
    question = Question(prompt="Which branch?", schema={"type": "object", "properties": {
        "branch": {"type": "string", "default": "main"},
        "force": {"type": "boolean", "default": False},
        "depth": {"type": "integer", "default": 3},
        "mode": {"enum": ["fast", "safe"], "default": "safe"}}})
    asked_from: list[str] = []

    def worker() -> object:
        # A tool handler: its own thread, its own event loop.
        asked_from.append(threading.current_thread().name)
        return asyncio.run(host.ask(question))

    async def scenario():
        opened = next_emission(host.dialog_opened)
        answer_future = asyncio.get_running_loop().run_in_executor(None, worker)
        dialog: QuestionDialog = await within(opened)
        assert dialog.values() == {"branch": "main", "force": False, "depth": 3, "mode": "safe"}
        dialog.fields["branch"].setText("release")
        dialog.ok.click()
        return await within(answer_future)

    answer = qloop.run_until_complete(scenario())
    assert asked_from and asked_from[0] != "MainThread"
    assert answer.accepted and answer.values["branch"] == "release" and answer.values["mode"] == "safe"


def test_stop_while_asking_closes_the_dialog_and_denies(qloop, runtime, scope, workspace):
    (workspace / "notes.txt").write_text("a\n")
    host = QtHost()

    async def scenario():
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(runtime.dispatcher.execute_tool(_call("b\n"), scope, host))
        dialog = await within(opened)
        task.cancel()
        try:
            await within(task)
        except asyncio.CancelledError:
            pass
        await asyncio.sleep(0)
        return dialog

    dialog = qloop.run_until_complete(scenario())
    assert dialog.decision is not None and not dialog.decision.allowed
    assert (workspace / "notes.txt").read_text() == "a\n"
    assert host.open_dialogs == []


def test_questions_with_choices_or_free_text_and_declining(qloop):
    host = QtHost()

    async def ask(question: Question, respond) -> object:
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(host.ask(question))
        respond(await within(opened))
        return await within(task)

    def pick_second(dialog: QuestionDialog) -> None:
        dialog.choices.setCurrentRow(1)
        dialog.ok.click()

    def type_text(dialog: QuestionDialog) -> None:
        dialog.text.setText("blue")
        QTest.keyClick(dialog.text, Qt.Key.Key_Return)  # Enter answers

    choice = qloop.run_until_complete(ask(Question(prompt="Which?", choices=("a", "b")), pick_second))
    text = qloop.run_until_complete(ask(Question(prompt="Colour?"), type_text))
    declined = qloop.run_until_complete(ask(Question(prompt="Colour?"), lambda d: d.decline.click()))
    escaped = qloop.run_until_complete(ask(Question(prompt="Colour?"), lambda d: QTest.keyClick(d, Qt.Key.Key_Escape)))
    assert (choice.action, choice.text) == ("accept", "b")
    assert (text.action, text.text) == ("accept", "blue")
    assert declined.action == "decline" and escaped.action == "cancel"


def _edit(call_id: str = "e1") -> ToolCall:
    return ToolCall(id=call_id, name="edit_file", arguments=json.dumps(
        {"path": "notes.txt", "edits": [{"old": "milk", "new": "oat milk"}]}))


async def _answer_real(runtime, scope, call, answer, host=None):
    host = host or QtHost()
    opened = next_emission(host.dialog_opened)
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(call, scope, host))
    dialog = await within(opened)
    while not dialog.allow_once.isEnabled():  # noqa: ASYNC110  (the diff loads in slices)
        await asyncio.sleep(0.01)
    seen = (dialog.targets.toPlainText(), dialog.diff_panes[0].unified.toPlainText())
    answer(dialog)
    return seen, await within(task)


def test_real_edit_file_shows_absolute_path_and_diff_allow_writes(qloop, builtin_runtime, scope, workspace):
    target = workspace / "notes.txt"
    target.write_text("eggs\nmilk\nbread\n")
    (targets, diff), envelope = qloop.run_until_complete(
        _answer_real(builtin_runtime, scope, _edit(), lambda d: d.allow_once.click()))
    assert str(target.resolve()) in targets
    assert "-milk" in diff and "+oat milk" in diff
    assert envelope.ok, envelope.error
    assert target.read_text() == "eggs\noat milk\nbread\n"


def test_real_edit_file_deny_keeps_bytes_and_the_model_gets_rejected_with_the_message(
        qloop, builtin_runtime, scope, workspace):
    target = workspace / "notes.txt"
    original = b"eggs\r\nmilk\r\n"
    target.write_bytes(original)

    def deny(dialog):
        dialog.message.setText("keep it as it is")
        dialog.deny.click()

    _, envelope = qloop.run_until_complete(_answer_real(builtin_runtime, scope, _edit(), deny))
    assert target.read_bytes() == original
    assert envelope.error_kind == "rejected" and "keep it as it is" in envelope.error
    assert "keep it as it is" in envelope.to_text()  # what the model receives


def test_run_command_output_streams_into_its_card(qloop, builtin_runtime, scope):
    from echo_desk.ui.chat.transcript import TranscriptModel

    transcript = TranscriptModel()
    host = QtHost(transcript=transcript)
    call = ToolCall(id="r1", name="run_command", arguments=json.dumps({"command": "printf 'one\\ntwo\\n'"}))
    transcript.add_tool_call(call.id, call.name, call.arguments)
    (targets, _), envelope = qloop.run_until_complete(
        _answer_real_no_diff(builtin_runtime, scope, call, host))
    assert "printf 'one\\ntwo\\n'" in targets  # the full command line, with its folder
    assert str(scope.workspace_roots[0]) in targets
    assert envelope.ok, envelope.error
    transcript.flush()
    assert "one" in transcript.card("r1").output and "two" in transcript.card("r1").output


async def _answer_real_no_diff(runtime, scope, call, host):
    opened = next_emission(host.dialog_opened)
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(call, scope, host))
    dialog = await within(opened)
    seen = (dialog.targets.toPlainText(), "")
    dialog.allow_once.click()
    return seen, await within(task)


def test_the_real_ask_user_tool_asks_from_its_worker_thread_and_gets_the_choice(qloop, builtin_runtime, scope):
    host = QtHost()
    call = ToolCall(id="q1", name="ask_user", arguments=json.dumps(
        {"question": "Which colour?", "choices": ["red", "green"]}))

    async def scenario():
        opened = next_emission(host.dialog_opened)
        task = asyncio.ensure_future(builtin_runtime.dispatcher.execute_tool(call, scope, host))
        dialog: QuestionDialog = await within(opened)
        prompt_shown = "Which colour?" in [label.text() for label in dialog.findChildren(QLabel)]
        dialog.choices.setCurrentRow(1)
        dialog.ok.click()
        return prompt_shown, await within(task)

    from PySide6.QtWidgets import QLabel

    prompt_shown, envelope = qloop.run_until_complete(scenario())
    assert prompt_shown
    assert envelope.ok and "green" in envelope.content


def test_a_folder_of_many_files_is_listed_in_targets_not_as_a_tab_each(qtbot) -> None:
    """delete_path of a folder reports every file (no diffs): the dialog lists them in Targets,
    which must be read to the end before Allow, instead of building thousands of tabs."""
    from echo_desk.agent.host import ApprovalRequest
    from echo_desk.tools import FileChange, FileChangeKind, RiskLevel, Target
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    changes = tuple(FileChange(path=f"/w/proj/f{i}.txt", kind=FileChangeKind.DELETE, before_sha256="a" * 64,
                               after_sha256=None, diff="") for i in range(300))
    request = ApprovalRequest(call_id="c1", tool_name="delete_path", tool_title="Delete file", risk=RiskLevel.WRITE,
                              scope_id="s", scope_label="conversation", scope_chain=(), arguments={"path": "proj"},
                              targets=(Target(kind="path", value="/w/proj", detail="delete folder"),),
                              file_changes=changes, summary="", binding="x")
    dialog = ApprovalDialog(request)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.tabs.count() == 0 and not dialog.tabs.isVisibleTo(dialog)
    listed = dialog.targets.toPlainText()
    assert all(c.path in listed for c in changes)
    assert not dialog.allow_once.isEnabled()  # the list must be read to its end first
    bar = dialog.targets.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    qtbot.waitUntil(dialog.allow_once.isEnabled)


def test_a_plugin_tools_title_comes_from_the_plugins_own_catalog(qtbot) -> None:
    from echo_desk import i18n
    from echo_desk.agent.host import ApprovalRequest
    from echo_desk.tools import RiskLevel
    from echo_desk.ui.approval.approval_dialog import ApprovalDialog

    weather = pytest.importorskip("echo_desk_weather")
    tool = weather.WeatherTool()
    request = ApprovalRequest(call_id="c1", tool_name=tool.name, tool_title=tool.display_title,
                              tool_domain=tool.translation_domain, tool_locale_dir=i18n.locale_dir_of(type(tool)),
                              risk=RiskLevel.READ, scope_id="s",
                              scope_label="conversation", scope_chain=(), arguments={"city": "Paris"},
                              targets=(), file_changes=(), summary="", binding="x")
    i18n_qt.apply_language("zh_CN")
    try:
        dialog = ApprovalDialog(request)
        qtbot.addWidget(dialog)
        assert "天气" in dialog.windowTitle() and "Weather" not in dialog.windowTitle()
    finally:
        i18n_qt.apply_language("en")
