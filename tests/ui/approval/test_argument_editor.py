"""Edit the arguments in the approval dialog: the real host, dialog and engine; the edited call
is previewed again in a new dialog and only that version is approved and run."""

from __future__ import annotations

import asyncio
import json

from PySide6.QtWidgets import QLineEdit

from echo_desk.agent.model import ToolCall
from echo_desk.ui.approval.approval_dialog import ApprovalDialog
from echo_desk.ui.approval.host import QtHost
from tests.ui.conftest import next_emission, until, within


async def _edit_then_allow(runtime, scope, workspace):
    host = QtHost()
    opened = next_emission(host.dialog_opened)
    call = ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": "a.txt", "content": "model\n"}))
    task = asyncio.ensure_future(runtime.dispatcher.execute_tool(call, scope, host))
    dialog: ApprovalDialog = await within(opened)
    assert dialog.edit.isVisibleTo(dialog)
    dialog.edit.click()
    editor = dialog.editor
    assert editor.readers.keys() == {"path", "content"}
    # What is typed in the form is what the JSON tab shows.
    [path_box] = [w for w in editor.findChildren(QLineEdit) if w.accessibleName() == "path"]
    path_box.setText("typed.txt")
    editor.tabs.setCurrentWidget(editor.raw)
    assert json.loads(editor.raw.toPlainText())["path"] == "typed.txt"
    # A bad edit first: refused with the engine's reason, nothing else happens.
    editor.raw.setPlainText(json.dumps({"path": "../escape.txt", "content": "x"}))
    editor.apply_button.click()
    await until(lambda: editor.error.isVisibleTo(editor), 30)  # the engine checks it off the UI thread
    refused = editor.error.text()
    editor.raw.setPlainText(json.dumps({"path": "b.txt", "content": "person\n"}))
    editor.apply_button.click()
    await until(lambda: getattr(dialog, "follow", None) is not None, 30)
    follow: ApprovalDialog = dialog.follow
    shown = follow.targets.toPlainText(), follow.diff_panes[0].unified.toPlainText()
    follow.allow_once.click()
    envelope = await within(task)
    return refused, shown, envelope


def test_edited_arguments_are_previewed_again_and_run(qloop, builtin_runtime, scope, workspace):
    refused, (targets, diff), envelope = qloop.run_until_complete(
        _edit_then_allow(builtin_runtime, scope, workspace))
    assert "outside the workspace" in refused
    assert str(workspace / "b.txt") in targets and "+person" in diff
    assert envelope.ok, envelope.error
    assert (workspace / "b.txt").read_text() == "person\n" and not (workspace / "a.txt").exists()
    assert "The person edited the arguments" in envelope.content
