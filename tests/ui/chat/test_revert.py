"""Revert in the chat: the card's Revert link, the three-way choice when the file changed
since, and the one confirmation for a turn. Real tools, real files, real widgets offscreen."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt

from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.undo.resolution import Resolution
from echo_desk.runtime import Runtime
from echo_desk.ui.chat.revert_dialog import ConfirmRevertDialog, ConflictDialog
from echo_desk.ui.chat.revert_flow import RevertFlow
from echo_desk.ui.chat.tool_card import REVERT_ANCHOR
from echo_desk.ui.chat.transcript import TranscriptModel
from echo_desk.ui.chat.transcript_view import TranscriptView


def _write(runtime: Runtime, scope: Scope, cid: str, path: str, content: str):
    call = ToolCall(id=cid, name="write_file", arguments=json.dumps({"path": path, "content": content}))
    envelope = asyncio.new_event_loop().run_until_complete(
        runtime.dispatcher.execute_tool(call, scope, ScriptedHost(choice=ApprovalChoice.ALLOW_ONCE)))
    assert envelope.ok, envelope.error
    return call, envelope


def chat_with_revert(qtbot, runtime: Runtime) -> tuple[TranscriptView, TranscriptModel, RevertFlow]:
    """A transcript shown with its Revert flow on ``runtime``'s change log."""
    model = TranscriptModel()
    view = TranscriptView()
    view.setModel(model)
    view.resize(760, 560)
    qtbot.addWidget(view)
    view.show()
    flow = RevertFlow(lambda: runtime.reverter, model, view)
    view.revert_call.connect(flow.revert_call)
    view.revert_turn.connect(flow.revert_turn)
    return view, model, flow


@pytest.fixture
def chat(qtbot, builtin_runtime: Runtime):
    return chat_with_revert(qtbot, builtin_runtime)


def _show_card(model: TranscriptModel, call: ToolCall, envelope) -> None:
    model.add_tool_call(call.id, call.name, call.arguments)
    model.set_tool_result(call.id, envelope)
    model.flush()


def _click_revert(qtbot, view: TranscriptView, row: int) -> None:
    view.doItemsLayout()
    index = view.model().index(row, 0)
    rect = view.visualRect(index)
    for y in range(rect.top(), rect.bottom(), 2):
        for x in range(rect.left() + 10, rect.left() + 90, 4):
            if view.anchor_at(index, QPoint(x, y)) == REVERT_ANCHOR:
                qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, y))
                return
    raise AssertionError("no Revert link on the card")


def test_revert_after_an_outside_change_never_overwrites_without_a_choice(
        qtbot, chat, builtin_runtime: Runtime, scope: Scope, workspace: Path) -> None:
    view, model, flow = chat
    target = workspace / "a.txt"
    target.write_text("one\n")
    call, envelope = _write(builtin_runtime, scope, "c1", "a.txt", "two\n")
    _show_card(model, call, envelope)
    target.write_text("three\n")  # someone else edits the file after the agent

    _click_revert(qtbot, view, 0)
    qtbot.waitUntil(lambda: isinstance(flow.dialog, ConflictDialog) and flow.dialog.isVisible(), timeout=5000)
    dialog = flow.dialog
    assert isinstance(dialog, ConflictDialog)
    assert [dialog.panes[r].toPlainText() for r in Resolution] == ["one\n", "two\n", "three\n"]
    assert target.read_text() == "three\n"  # asking wrote nothing
    dialog.reject()  # closing the dialog keeps the file as it is now
    qtbot.waitUntil(lambda: not flow.busy, timeout=5000)  # the revert runs off the UI thread
    assert target.read_text() == "three\n" and not model.items()[0].reverted
    assert "Not reverted" in model.items()[-1].text

    _click_revert(qtbot, view, 0)
    qtbot.waitUntil(lambda: isinstance(flow.dialog, ConflictDialog) and flow.dialog.isVisible(), timeout=5000)
    target.write_text("four\n")  # it changes again while the person looks: their choice is not applied
    qtbot.mouseClick(flow.dialog.buttons[Resolution.WHAT_IT_WAS], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not flow.busy, timeout=5000)  # the revert runs off the UI thread
    assert target.read_text() == "four\n"

    target.write_text("two\n")  # as the tool left it: Revert needs no choice
    _click_revert(qtbot, view, 0)
    qtbot.waitUntil(lambda: model.items()[0].reverted, timeout=5000)
    assert target.read_text() == "one\n"


def test_revert_this_turn_confirms_once_with_every_file(qtbot, chat, builtin_runtime: Runtime, scope: Scope,
                                                        workspace: Path) -> None:
    view, model, flow = chat
    (workspace / "b.txt").write_text("b\n")
    model.add_user("change both")
    from echo_desk.agent.undo.journal import turn

    with turn("t1"):
        for cid, name in (("c1", "b.txt"), ("c2", "new.txt")):
            _show_card(model, *_write(builtin_runtime, scope, cid, name, "agent\n"))
    view.revert_turn.emit(0)
    qtbot.waitUntil(lambda: isinstance(flow.dialog, ConfirmRevertDialog), timeout=5000)
    dialog = flow.dialog
    assert isinstance(dialog, ConfirmRevertDialog)
    listed = [dialog.files.item(i).text() for i in range(dialog.files.count())]
    assert len(listed) == 2 and str(workspace / "new.txt") in listed[0] and str(workspace / "b.txt") in listed[1]
    assert (workspace / "b.txt").read_text() == "agent\n"  # nothing before the confirmation
    qtbot.mouseClick(dialog.revert_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: all(i.reverted for i in model.items()[1:3]), timeout=5000)
    assert (workspace / "b.txt").read_text() == "b\n" and not (workspace / "new.txt").exists()


def test_reopened_conversation_shows_reverted_cards(qtbot, chat, builtin_runtime: Runtime, scope: Scope,
                                                    workspace: Path) -> None:
    _view, model, flow = chat
    (workspace / "r.txt").write_text("r\n")
    call, envelope = _write(builtin_runtime, scope, "c1", "r.txt", "agent\n")
    _show_card(model, call, envelope)
    assert builtin_runtime.reverter is not None
    assert builtin_runtime.reverter.apply(builtin_runtime.reverter.plan_calls(["c1"])).complete
    model.clear()  # as when the conversation is opened again from the store
    _show_card(model, call, envelope)
    assert not model.items()[0].reverted
    flow.mark_reverted_cards()
    assert model.items()[0].reverted


def test_a_card_whose_changes_the_log_took_late_offers_revert_when_reopened(qtbot, chat, builtin_runtime: Runtime,
                                                                           scope: Scope, workspace: Path) -> None:
    """The change log was full when the call ran (the card said Revert cannot find the change);
    it took the record with a later write: opened again, the card offers Revert."""
    from dataclasses import replace

    from echo_desk.agent.envelope import UNDO_NOT_RECORDED_KEY

    _view, model, flow = chat
    call, envelope = _write(builtin_runtime, scope, "c1", "late.txt", "agent\n")
    told = replace(envelope, metadata={**envelope.metadata,
                                       UNDO_NOT_RECORDED_KEY: {"cause": "SQLITE_FULL", "error": "full"}})
    _show_card(model, call, told)
    assert model.items()[0].not_recorded is not None
    flow.mark_reverted_cards()
    assert model.items()[0].not_recorded is None and not model.items()[0].reverted


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def test_every_revert_outcome_is_worded_in_the_ui_language() -> None:
    """The engine hands typed outcomes; the UI words each one, none is English in Chinese."""
    from echo_desk import i18n
    from echo_desk.agent.undo.revert import LeftAlone, RevertIssue
    from echo_desk.store.changes import NotRestorable
    from echo_desk.ui.chat.revert_text import issue_text

    issues = [RevertIssue(reason) for reason in LeftAlone if reason is not LeftAlone.NOT_RESTORABLE]
    issues += [RevertIssue(LeftAlone.NOT_RESTORABLE, why) for why in (*NotRestorable, None)]
    english = {issue: issue_text(issue) for issue in issues}
    i18n.set_language("zh_CN")
    try:
        for issue in issues:
            text = issue_text(issue)
            assert _has_chinese(text) and text != english[issue], (issue, text)
            assert not any(word in text for word in ("restorable", "changed", "folder", "file")), text
    finally:
        i18n.set_language("en")


def test_a_change_that_cannot_be_restored_says_so_once() -> None:
    """Every reason is worded on its own: "not restorable: <why>", never the prefix twice
    ("无法还原：已无法还原……"), in the chat and in ``echo-desk changes``, in both languages."""
    from echo_desk import i18n
    from echo_desk.agent.undo.revert import LeftAlone, RevertIssue
    from echo_desk.cli.changes import _issue as terminal_text
    from echo_desk.store.changes import NotRestorable
    from echo_desk.ui.chat.revert_text import issue_text

    issues = [RevertIssue(LeftAlone.NOT_RESTORABLE, why) for why in (*NotRestorable, None)]
    try:
        for language, prefix in (("en", "restorable"), ("zh_CN", "无法还原")):
            i18n.set_language(language)
            for issue in issues:
                for text in (issue_text(issue), terminal_text(issue)):
                    assert text.count(prefix) == 1, (language, issue, text)
    finally:
        i18n.set_language("en")


def test_a_pruned_change_says_no_longer_restorable_in_chinese(qtbot, chat, builtin_runtime: Runtime,
                                                              scope: Scope, workspace: Path) -> None:
    from echo_desk import i18n
    from echo_desk.store.changes import NotRestorable

    _view, model, flow = chat
    (workspace / "p.txt").write_text("before\n")
    call, envelope = _write(builtin_runtime, scope, "c1", "p.txt", "agent\n")
    _show_card(model, call, envelope)
    assert builtin_runtime.reverter is not None
    [record] = builtin_runtime.reverter.changes.for_call("c1")
    builtin_runtime.reverter.changes.forget([record.id], NotRestorable.OVER_SPACE_LIMIT)  # as pruning does
    i18n.set_language("zh_CN")
    try:
        flow.revert_call("c1")
        qtbot.waitUntil(lambda: "未还原" in model.items()[-1].text, timeout=5000)
    finally:
        i18n.set_language("en")
    notice = model.items()[-1].text
    assert "无法还原：" in notice and "已无法还原" not in notice  # said once (it was said twice)
    assert "restorable" not in notice and "space" not in notice
    assert (workspace / "p.txt").read_text() == "agent\n" and not model.items()[0].reverted


class _SlowBlobs:
    """The real blob store, except that reading a kept copy waits for ``gate`` (a slow disk)."""

    def __init__(self, real, gate: threading.Event, entered: threading.Event) -> None:
        self._real = real
        self._gate = gate
        self._entered = entered

    def get(self, digest: str):
        self._entered.set()
        assert self._gate.wait(20), "the test never opened the gate"
        return self._real.get(digest)

    def __getattr__(self, name: str):
        return getattr(self._real, name)


def test_a_long_revert_leaves_the_ui_thread_free_and_shows_progress(
        qtbot, chat, builtin_runtime: Runtime, scope: Scope, workspace: Path) -> None:
    from PySide6.QtCore import QTimer

    from echo_desk.agent.undo.journal import turn

    view, model, flow = chat
    model.add_user("rewrite them all")
    with turn("t-big"):
        for index in range(12):
            (workspace / f"f{index}.txt").write_text(f"original {index}\n")
            _show_card(model, *_write(builtin_runtime, scope, f"c{index}", f"f{index}.txt", "agent\n"))
    reverter = builtin_runtime.reverter
    assert reverter is not None
    gate, entered = threading.Event(), threading.Event()
    reverter.blobs = _SlowBlobs(reverter.blobs, gate, entered)  # type: ignore[assignment]
    steps: list[tuple[int, int]] = []
    flow.progress.connect(lambda done, total: steps.append((done, total)))
    ticks: list[int] = []
    heartbeat = QTimer()
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: ticks.append(1))
    heartbeat.start()
    try:
        view.revert_turn.emit(0)
        qtbot.waitUntil(lambda: isinstance(flow.dialog, ConfirmRevertDialog), timeout=5000)
        qtbot.mouseClick(flow.dialog.revert_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(entered.is_set, timeout=5000)  # the engine is stuck reading a kept copy...
        seen = len(ticks)
        qtbot.waitUntil(lambda: len(ticks) >= seen + 10, timeout=5000)  # ...and the UI thread keeps running
        qtbot.waitUntil(lambda: flow.progress_dialog is not None and flow.progress_dialog.isVisible(), timeout=5000)
        assert flow.busy and steps and steps[0] == (0, 12)
        assert (workspace / "f0.txt").read_text() == "agent\n"
        view.revert_turn.emit(0)  # a second revert waits its turn: said, not started
        assert "still running" in model.items()[-1].text
    finally:
        gate.set()
        heartbeat.stop()
    qtbot.waitUntil(lambda: not flow.busy, timeout=20000)
    assert flow.progress_dialog is None
    assert [(workspace / f"f{i}.txt").read_text() for i in range(12)] == [f"original {i}\n" for i in range(12)]
    assert all(item.reverted for item in model.items()[1:13])


def test_a_card_whose_changes_the_log_took_late_offers_revert_when_the_next_change_is_recorded(
        qtbot, builtin_runtime: Runtime, scope: Scope, workspace: Path, tmp_path: Path) -> None:
    """In the open conversation, not only when it is opened again: the change log was full when
    the first call ran, so its card said Revert cannot undo it; the next change writes both
    records, and the first card offers Revert at once."""
    from echo_desk.agent.envelope import UNDO_NOT_RECORDED_KEY
    from echo_desk.store.conversations import ConversationStore
    from tests.ui.conftest import attached_window
    from tests.undo.change_log import change_log_full

    store = ConversationStore(tmp_path / "conversations.sqlite3")
    window = attached_window(qtbot, builtin_runtime, store)
    model = window.session.transcript
    give_room = change_log_full(builtin_runtime)
    first, told = _write(builtin_runtime, scope, "c1", "a.txt", "a\n")
    assert UNDO_NOT_RECORDED_KEY in told.metadata
    _show_card(model, first, told)
    assert model.items()[0].not_recorded is not None

    full_again, still_full = _write(builtin_runtime, scope, "c2", "b.txt", "b\n")
    _show_card(model, full_again, still_full)
    assert [i.not_recorded is not None for i in model.items()] == [True, True]  # nothing was recorded yet

    give_room()
    second, recorded = _write(builtin_runtime, scope, "c3", "c.txt", "c\n")
    assert UNDO_NOT_RECORDED_KEY not in recorded.metadata
    _show_card(model, second, recorded)
    assert [i.not_recorded for i in model.items()] == [None, None, None]
    assert not any(i.reverted for i in model.items())
    window.session.stop()
    store.close()


def test_revert_dialogs_show_the_hidden_characters_of_a_file_name_and_its_content(
        qtbot, chat, builtin_runtime: Runtime, scope: Scope, workspace: Path) -> None:
    """A name the agent chose can draw as another file's name: a line feed (one list row reads as
    two files), a braille blank or a no-break space at the end ("report.txt⠀" is not "report.txt"),
    and content can hold the same. Revert's dialogs show them as ⟨…⟩ and say so, as approvals do."""
    view, model, flow = chat
    (workspace / "report.txt").write_text("mine\n")
    decoy = "report.txt\u2800"
    spoof = "build.log\nreport.txt — restore"  # two rows: "…/build.log", then "report.txt — restore — …"
    model.add_user("make notes")
    from echo_desk.agent.undo.journal import turn

    with turn("t1"):
        for cid, name, text in (("c1", decoy, "agent\u00a0one\n"), ("c2", spoof, "agent\n")):
            _show_card(model, *_write(builtin_runtime, scope, cid, name, text))
    view.revert_turn.emit(0)
    qtbot.waitUntil(lambda: isinstance(flow.dialog, ConfirmRevertDialog), timeout=5000)
    dialog = flow.dialog
    assert isinstance(dialog, ConfirmRevertDialog)
    listed = [dialog.files.item(i).text() for i in range(dialog.files.count())]
    assert all("\n" not in row for row in listed), listed  # one row per file
    assert any("report.txt⟨U+2800⟩" in row for row in listed), listed
    assert any("build.log⟨LF⟩" in row for row in listed), listed
    assert dialog.hidden_warning.isVisibleTo(dialog)
    dialog.reject()
    qtbot.waitUntil(lambda: not flow.busy, timeout=5000)
    assert (workspace / "report.txt").read_text() == "mine\n" and (workspace / decoy).exists()

    (workspace / decoy).write_text("changed\u00a0since\n")  # someone else edits it after the agent
    _click_revert(qtbot, view, 1)
    qtbot.waitUntil(lambda: isinstance(flow.dialog, ConflictDialog) and flow.dialog.isVisible(), timeout=5000)
    conflict = flow.dialog
    assert isinstance(conflict, ConflictDialog)
    assert conflict.path_label.text() == str(workspace / "report.txt⟨U+2800⟩")
    assert conflict.panes[Resolution.WHAT_THE_TOOL_WROTE].toPlainText() == "agent⟨U+00A0⟩one\n"
    assert conflict.panes[Resolution.WHAT_IT_IS_NOW].toPlainText() == "changed⟨U+00A0⟩since\n"
    assert conflict.hidden_warning.isVisibleTo(conflict)
    conflict.reject()
    qtbot.waitUntil(lambda: not flow.busy, timeout=5000)
    assert (workspace / decoy).read_text() == "changed\u00a0since\n"


def test_a_file_too_long_to_show_whole_says_how_much_is_shown() -> None:
    """The three-way choice shows at most 200,000 characters of a side: the pane says so, with
    the file's length, rather than ending in a bare "…" the person may read as the file's end."""
    from echo_desk import i18n
    from echo_desk.ui.chat.revert_dialog import shown_content

    long = ("x" * 99 + "\n") * 3000  # 300,000 characters
    shown = shown_content(long.encode(), absent="")
    assert shown.startswith(long[:1000]) and "x" * 99 + "\n" in shown
    assert "200,000" in shown and "300,000" in shown and len(shown) < 201_000
    assert shown_content(b"short\n", absent="") == "short\n"  # nothing said of a file shown whole
    i18n.set_language("zh_CN")
    try:
        assert _has_chinese(shown_content(long.encode(), absent="").rsplit("\n", 1)[-1])
    finally:
        i18n.set_language("en")
