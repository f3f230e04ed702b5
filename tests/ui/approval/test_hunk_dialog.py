"""The approval dialog's per-hunk check boxes, end to end: the person unticks a hunk with the
keyboard, allows, and exactly the other hunks are written by the real write_file."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt

from echo_desk.agent.host import ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.ui.approval.approval_dialog import ApprovalDialog

OLD = "".join(f"line {i}\n" for i in range(40))
NEW = OLD.replace("line 2\n", "two\n").replace("line 20\n", "twenty\n").replace("line 37\n", "thirty-seven\n")


@dataclass
class DialogHost(ScriptedHost):
    """Shows the real dialog and lets ``act`` play the person."""

    qtbot: object = None
    act: object = None
    dialogs: list[ApprovalDialog] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        dialog = ApprovalDialog(request)
        self.qtbot.addWidget(dialog)  # type: ignore[attr-defined]
        dialog.show()
        self.dialogs.append(dialog)
        # Allow works once every diff line, target and argument was in front of the person: the
        # person scrolls the (long, one-line JSON) arguments to their end.
        for box in (dialog.targets, dialog.arguments):
            self.qtbot.waitUntil(lambda box=box: box.is_loaded or box.verticalScrollBar().maximum() > 0)  # type: ignore[attr-defined]
            box.verticalScrollBar().setValue(box.verticalScrollBar().maximum())
        self.qtbot.waitUntil(dialog.allow_once.isEnabled)  # type: ignore[attr-defined]
        self.act(dialog)  # type: ignore[operator]
        assert dialog.decision is not None
        return dialog.decision


def _run(runtime: Runtime, scope: Scope, host: DialogHost, content: str = NEW):
    call = ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": "f.txt", "content": content}))
    return asyncio.new_event_loop().run_until_complete(runtime.dispatcher.execute_tool(call, scope, host))


def test_untick_a_hunk_with_the_keyboard_and_only_the_rest_is_written(qtbot, builtin_runtime: Runtime,
                                                                      scope: Scope, workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)

    def person(dialog: ApprovalDialog) -> None:
        [picker] = dialog.hunk_pickers.values()
        assert picker.count() == 3 and picker.all_chosen
        picker.setFocus()
        picker.setCurrentRow(0)
        qtbot.keyClick(picker, Qt.Key.Key_J)  # to hunk 2
        qtbot.keyClick(picker, Qt.Key.Key_Space)  # untick it
        assert picker.chosen() == (picker.hunks[0].id, picker.hunks[2].id)
        assert picker.item(1).text() == "2. @@ -18,7 +18,7 @@  +twenty"
        dialog.message.setText("keep line 20 as it is")
        qtbot.mouseClick(dialog.allow_once, Qt.MouseButton.LeftButton)

    env = _run(builtin_runtime, scope, DialogHost(qtbot=qtbot, act=person))
    assert env.ok, env.error
    assert target.read_text() == OLD.replace("line 2\n", "two\n").replace("line 37\n", "thirty-seven\n")
    assert "approved only hunk(s) 1, 3" in env.content and "keep line 20 as it is" in env.content


def test_none_and_all_keys_and_side_by_side_still_works(qtbot, builtin_runtime: Runtime, scope: Scope,
                                                        workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)

    def person(dialog: ApprovalDialog) -> None:
        [picker] = dialog.hunk_pickers.values()
        qtbot.keyClick(picker, Qt.Key.Key_N)
        assert picker.chosen() == ()
        qtbot.keyClick(picker, Qt.Key.Key_A)
        assert picker.all_chosen
        qtbot.keyClick(picker, Qt.Key.Key_N)
        dialog.diff_panes[0].toggle.setChecked(True)  # side by side with the picker in place
        assert dialog.diff_panes[0].stack.currentWidget() is not dialog.diff_panes[0].unified
        qtbot.mouseClick(dialog.allow_once, Qt.MouseButton.LeftButton)

    env = _run(builtin_runtime, scope, DialogHost(qtbot=qtbot, act=person))
    assert env.ok and "nothing was written" in env.content and target.read_text() == OLD


def test_every_hunk_kept_is_the_whole_change_as_before(qtbot, builtin_runtime: Runtime, scope: Scope,
                                                       workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)
    host = DialogHost(qtbot=qtbot, act=lambda d: qtbot.mouseClick(d.allow_once, Qt.MouseButton.LeftButton))
    env = _run(builtin_runtime, scope, host)
    assert env.ok and target.read_text() == NEW
    assert host.dialogs[0].decision is not None and host.dialogs[0].decision.selection is None


def _row_colour(view, text: str):
    """The colour painted at the right end of the line ``text`` (scrolled into view)."""
    from PySide6.QtGui import QTextCursor

    block = view.document().find(text).block()
    assert block.isValid(), text
    view.setTextCursor(QTextCursor(block))
    view.centerCursor()
    view.viewport().repaint()
    geom = view.blockBoundingGeometry(block).translated(view.contentOffset())
    image = view.viewport().grab().toImage()
    return image.pixelColor(view.viewport().width() - 3, int(geom.center().y())).name()


def test_unticked_hunks_are_greyed_out_in_both_views(qtbot, builtin_runtime: Runtime, scope: Scope,
                                                     workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)
    seen: dict[str, object] = {}

    def person(dialog: ApprovalDialog) -> None:
        [picker] = dialog.hunk_pickers.values()
        pane = dialog.diff_panes[0]
        green = _row_colour(pane.unified, "twenty")
        picker.setFocus()
        picker.setCurrentRow(1)
        qtbot.keyClick(picker, Qt.Key.Key_Space)  # decline the middle hunk
        seen["declined"] = pane.unified.declined
        seen["unified"] = (green, _row_colour(pane.unified, "twenty"), _row_colour(pane.unified, "thirty-seven"))
        pane.toggle.setChecked(True)
        left, right = pane._side_views
        seen["side"] = (left.declined, right.declined, _row_colour(right, "twenty"), _row_colour(right, "two"))
        qtbot.keyClick(picker, Qt.Key.Key_Space)  # and take it back: no longer grey
        seen["back"] = (pane.unified.declined, _row_colour(right, "twenty"))
        qtbot.mouseClick(dialog.deny, Qt.MouseButton.LeftButton)

    env = _run(builtin_runtime, scope, DialogHost(qtbot=qtbot, act=person))
    assert not env.ok and target.read_text() == OLD
    assert seen["declined"] == frozenset({1})
    green, declined, kept = seen["unified"]  # type: ignore[misc]
    assert green == kept == "#e6ffec" and declined != green
    left_declined, right_declined, right_twenty, right_two = seen["side"]  # type: ignore[misc]
    assert left_declined == right_declined == frozenset({1})
    assert right_two == "#e6ffec" and right_twenty != "#e6ffec"
    assert seen["back"] == (frozenset(), "#e6ffec")


#: A name git allows: its line feeds put two fake hunk headers into a raw diff header.
HOSTILE = "notes\n@@ -1,1 +1,1 @@\n.txt"
HOSTILE_OLD = "".join(f"line {i}\n" for i in range(60))
HOSTILE_NEW = (HOSTILE_OLD.replace("line 3\n", "EVIL A\n").replace("line 20\n", "EVIL B\n")
               .replace("line 37\n", "EVIL C\n").replace("line 54\n", "EVIL D\n"))


def _hunk_text_at_cursor(dialog: ApprovalDialog) -> str:
    """What the person reads in the diff where the picker put the cursor: that hunk's lines."""
    view = dialog.diff_panes[0].unified
    block = view.textCursor().block()
    lines = [block.text()]
    block = block.next()
    while block.isValid() and not block.text().startswith("@@"):
        lines.append(block.text())
        block = block.next()
    return "\n".join(lines)


def test_a_file_name_with_fake_hunk_headers_cannot_shift_the_ticks(qtbot, builtin_runtime: Runtime, scope: Scope,
                                                                    workspace: Path) -> None:
    """The person reads each hunk the picker shows and unticks EVIL C and EVIL D: they are not written."""
    target = workspace / HOSTILE
    target.write_text(HOSTILE_OLD)
    seen: dict[str, object] = {}

    def person(dialog: ApprovalDialog) -> None:
        [picker] = dialog.hunk_pickers.values()
        seen["rows"] = picker.count()
        choices = dialog.grant_choices
        assert choices is not None and choices.parts.topLevelItemCount() and choices.radios
        seen["title"] = (dialog.windowTitle(), dialog.heading.text(), dialog.summary.text(),
                         dialog.targets.toPlainText(), dialog.tabs.tabText(0),
                         *(choices.parts.topLevelItem(i).text(0) for i in range(choices.parts.topLevelItemCount())),
                         *(radio.text() for radio in choices.radios), choices.allow.text(),
                         *(picker.item(i).text() for i in range(picker.count())))
        for row in range(picker.count()):
            picker.setCurrentRow(row)
            shown = _hunk_text_at_cursor(dialog)
            if "EVIL C" in shown or "EVIL D" in shown:
                picker.toggle(row)
        qtbot.mouseClick(dialog.allow_once, Qt.MouseButton.LeftButton)

    call = ToolCall(id="c1", name="write_file", arguments=json.dumps({"path": HOSTILE, "content": HOSTILE_NEW}))
    env = asyncio.new_event_loop().run_until_complete(
        builtin_runtime.dispatcher.execute_tool(call, scope, DialogHost(qtbot=qtbot, act=person)))
    assert env.ok, env.error
    written = target.read_text()
    assert "EVIL A" in written and "EVIL B" in written
    assert "EVIL C" not in written and "EVIL D" not in written, written
    assert "notes\n@@" not in env.content and 'notes\\n@@ -1,1 +1,1 @@\\n.txt"' in env.content  # named, C-escaped
    assert seen["rows"] == 4
    # The line feeds of the name are shown as ⟨LF⟩ wherever the name appears, never as a new line.
    for text in seen["title"]:  # type: ignore[attr-defined]
        assert "\n" not in text, text
    assert "notes⟨LF⟩@@ -1,1 +1,1 @@⟨LF⟩.txt" in seen["title"][3]  # type: ignore[index]
    assert all("notes⟨LF⟩@@" in text for text in seen["title"][5:8]), seen["title"]  # type: ignore[index]
