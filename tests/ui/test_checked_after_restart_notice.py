"""At start-up the app makes the checks of sandboxed commands that Echo Desk owed when it was
last closed, and one notice says that they were made only now, after a restart, and what each
found (every full path); the Activity page and the call's card say it too, in both languages."""

from __future__ import annotations

import os
import pickle
import re
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.runtime import Runtime
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.store.audit import AuditLog, checked_after_restart
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OwedChecksStore, this_process
from echo_desk.tools.planted import Change, Planted
from echo_desk.ui.app.checked_after_restart_notice import CheckedAfterRestartNotice, checked_after_restart_box
from echo_desk.ui.app.start_notice_box import LEAST_WIDTH_CHARS
from echo_desk.ui.approval.host import QtHost
from echo_desk.ui.chat.card_facts import SandboxFacts
from echo_desk.ui.chat.chat_session import ChatSession
from echo_desk.ui.chat.sandbox_card import sandbox_html, sandbox_lines
from echo_desk.ui.chat.tool_card import card_html
from echo_desk.ui.chat.transcript import TranscriptItem
from echo_desk.ui.core import i18n_qt
from echo_desk.ui.settings.activity_tab import COL_VERDICT, ActivityTab
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of
from tests.ui.start_notices import text_of_the_notice_at_start

CJK = re.compile(r"[\u4e00-\u9fff]")
SHOTS = os.environ.get("S304_SCREENSHOTS")  # a file prefix: screenshots of what is shown


def _owed_hook(tmp_path: Path) -> tuple[Runtime, Path]:
    """A runtime whose store holds a check owed by a gone process, whose command planted a hook."""
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    assert runtime.owed_checks is not None
    runtime.owed_checks.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(workspace),
                            snapshot=snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    owed_by_a_gone_process(runtime.owed_checks)
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    return runtime, hook


def test_the_notice_says_the_check_was_made_after_a_restart_and_names_what_it_found(qtbot: Any, tmp_path: Path) -> None:
    i18n_qt.apply_language("en")
    runtime, hook = _owed_hook(tmp_path)
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        notice = CheckedAfterRestartNotice(runtime, None, parent)
        notice.check()
        qtbot.waitUntil(lambda: notice.box is not None and notice.box.isVisible(), timeout=10000)
        assert notice.box is not None and not hook.exists()
        assert "It checked that now, at this start." in notice.box.text()
        text = notice.box.informativeText()
        assert f"in {tmp_path / 'project'} had left what would run code later" in text
        assert f"{hook} (new: put aside)" in text and "kept, never run, at " in text
        for label in (x for x in notice.box.findChildren(QLabel) if x.isVisible() and x.text()):
            # the reading width of every start-up notice (``start_notice_box``), not a narrow column
            assert label.width() >= min(LEAST_WIDTH_CHARS * label.fontMetrics().averageCharWidth(),
                                        notice.box.screen().availableGeometry().width() * 3 // 4), label.text()
        assert runtime.owed_checks is not None
        store = runtime.owed_checks
        notice.box.button(QMessageBox.StandardButton.Ok).click()
        qtbot.waitUntil(lambda: store.untold() == [], timeout=5000)
        again = CheckedAfterRestartNotice(runtime, None, parent)
        again.check()
        qtbot.waitUntil(lambda: again.done, timeout=10000)
        assert again.box is None
    finally:
        runtime.close()


def test_nothing_owed_shows_nothing_and_makes_no_database(qtbot: Any, tmp_path: Path) -> None:
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        notice = CheckedAfterRestartNotice(runtime, None, parent)
        notice.check()
        qtbot.waitUntil(lambda: notice.done, timeout=10000)
        assert notice.box is None and runtime.owed_checks is not None and not runtime.owed_checks.path.exists()
    finally:
        runtime.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_notice_the_activity_row_and_the_card_in_both_languages(qtbot: Any, tmp_path: Path, language: str) -> None:
    runtime, hook = _owed_hook(tmp_path)
    try:
        runtime.make_owed_checks()
        assert runtime.owed_checks is not None
        records = runtime.owed_checks.untold()
    finally:
        runtime.close()
    i18n_qt.apply_language(language)
    try:
        box = checked_after_restart_box(records, None)
        qtbot.addWidget(box)
        box.show()
        qtbot.waitExposed(box)
        if language == "zh_CN":
            assert CJK.search(box.windowTitle()) and CJK.search(box.text())
            assert all(CJK.search(line) for line in box.informativeText().splitlines()
                       if line.strip() and not line.strip().startswith(str(tmp_path)))
        if SHOTS:
            box.grab().save(f"{SHOTS}-notice-{language}.png")
        box.close()

        log = AuditLog(tmp_path / "data" / "audit.sqlite3")
        try:
            tab = ActivityTab(log)
            qtbot.addWidget(tab)
            item = tab.calls.topLevelItem(0)
            assert item is not None
            tab.calls.setCurrentItem(item)
            detail = tab.detail.text()
            assert str(hook) in detail and "call-1" in detail
            if language == "en":
                assert item.text(COL_VERDICT).startswith("checked after a restart")
                assert detail.startswith("Echo Desk was closed before it had checked what call call-1")
            else:
                assert CJK.search(item.text(COL_VERDICT).split(" · ")[0]) and CJK.search(detail.splitlines()[0])
            if SHOTS:
                tab.resize(900, 500)
                tab.show()
                qtbot.waitExposed(tab)
                tab.grab().save(f"{SHOTS}-activity-{language}.png")
        finally:
            log.close()

        facts = SandboxFacts(sandboxed=True, planted=(Planted(str(hook), Change.CREATED, kept="/k/pre-commit"),),
                             checked_after_restart=True)
        nothing = SandboxFacts(sandboxed=True, checked_after_restart=True)
        said = [text for text, _colour in sandbox_lines(facts)][-1]
        none_said = [text for text, _colour in sandbox_lines(nothing)][-1]
        if SHOTS:
            card = QLabel(sandbox_html(facts) + "<hr>" + sandbox_html(nothing))
            card.setWordWrap(True)
            card.setFixedWidth(640)
            qtbot.addWidget(card)
            card.show()
            qtbot.waitExposed(card)
            card.grab().save(f"{SHOTS}-card-{language}.png")
        if language == "en":
            assert said.endswith("checked at the next start, and what is said above was found")
            assert none_said.endswith("checked at the next start, and nothing was found")
        else:
            assert CJK.search(said) and CJK.search(none_said) and said != none_said
    finally:
        i18n_qt.apply_language("en")


def test_a_check_that_could_not_be_made_says_so(qtbot: Any, tmp_path: Path) -> None:
    i18n_qt.apply_language("en")
    log = AuditLog(tmp_path / "audit.sqlite3")
    try:
        log.append(checked_after_restart(conversation_id="c", call_id="call-9", tool="run_command",
                                         workspace="/home/me/ws", started=time.time() - 60, planted=(),
                                         error="other_version", at=time.time() - 1))
        # A row of an older Echo Desk kept its reason as English words: said as a failed check.
        log.append(checked_after_restart(conversation_id="c", call_id="call-8", tool="run_command",
                                         workspace="/home/me/old", started=time.time() - 90, planted=(),
                                         error="its snapshot could not be read back (truncated)", at=time.time()))
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        details = []
        for row in range(2):
            item = tab.calls.topLevelItem(row)
            assert item is not None
            tab.calls.setCurrentItem(item)
            details.append(tab.detail.text())
        [older] = [d for d in details if "/home/me/old" in d]
        [kind] = [d for d in details if "/home/me/ws" in d]
        assert "the check could not be made (the check failed (its snapshot could not be read back" in older
        assert ("the check could not be made (what was kept for it was written by another version of Echo Desk, "
                "whose snapshots this version does not read)") in kind and "other_version" not in kind
    finally:
        log.close()


def test_the_app_makes_the_owed_check_and_tells_it_at_start(qapp: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The whole way: a check owed in the real data folder is made once the app has loaded, and
    its notice shown; closing the notice marks it told."""

    from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
    from echo_desk.store.paths import data_dir

    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    conversations = ConversationStore(data_dir() / "conversations.sqlite3")
    try:
        conversation = conversations.create("saved")
        call = ToolCall(id="call-1", name="run_command", arguments="{}")
        conversations.append(conversation.id, ChatMessage(role="assistant", tool_calls=(call,)), node="a1")
        conversations.append(conversation.id, ChatMessage(role="tool", content="done", tool_call_id="call-1"),
                             {"ok": True, "content": "done", "sandbox": {"sandboxed": True, "checked_later": True}},
                             node="t1")
    finally:
        conversations.close()
    store = OwedChecksStore(data_dir() / OWED_CHECKS_FILE)
    store.owe(conversation_id=conversation.id, call_id="call-1", tool="run_command", workspace=str(workspace),
              snapshot=snapshot_of(workspace, home, tmp_path / "put-aside"))
    owed_by_a_gone_process(store)
    hook = workspace / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\necho planted\n")
    # The updated card reaches the window's chat (which shows it if that conversation is open).
    cards: list[tuple[str, str, bool]] = []
    monkeypatch.setattr(ChatSession, "show_updated_card", lambda _self, conversation_id, call_id, stored: cards.append(
        (conversation_id, call_id, stored["sandbox"]["checked_after_restart"])))
    text = text_of_the_notice_at_start(monkeypatch, lambda app: app._checked_after_restart, lambda: bool(store.untold()))
    assert f"{hook} (new: put aside)" in text and not hook.exists()
    assert store.untold() == [] and store.owed() == []
    assert cards == [(conversation.id, "call-1", True)]


def _open_chat_with_the_call(runtime: Runtime, tmp_path: Path, workspace: Path,
                             snapshot: bytes) -> tuple[ConversationStore, ChatSession, TranscriptItem]:
    """A saved conversation whose run_command call is owed its check (by a gone process), open in a chat."""
    conversations = ConversationStore(tmp_path / "data" / "conversations.sqlite3")
    conversation = conversations.create("open")
    call = ToolCall(id="call-1", name="run_command", arguments="{}")
    conversations.append(conversation.id, ChatMessage(role="assistant", tool_calls=(call,)), node="a1")
    conversations.append(conversation.id, ChatMessage(role="tool", content="done", tool_call_id="call-1"),
                         {"ok": True, "content": "done",
                          "sandbox": {"sandboxed": True, "mode": "sandboxed", "checked_later": True}}, node="t1")
    assert runtime.owed_checks is not None
    runtime.owed_checks.owe(conversation_id=conversation.id, call_id="call-1", tool="run_command",
                            workspace=str(workspace), snapshot=snapshot)
    owed_by_a_gone_process(runtime.owed_checks)
    session = ChatSession(QtHost(lambda: None))
    session.store = conversations
    session.open(conversation)
    [card] = [i for i in session.transcript._items if i.call_id == "call-1"]
    assert card.sandbox is not None and card.sandbox.checked_later and not card.sandbox.checked_after_restart
    return conversations, session, card


def test_a_chat_open_on_the_call_shows_its_card_brought_up_to_date_at_once(qtbot: Any, tmp_path: Path) -> None:
    """The check made at a start updates the saved card; the chat already showing it shows the
    new card without being reopened (as a late check's card does while the app runs)."""
    i18n_qt.apply_language("en")
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    conversations, session, card = _open_chat_with_the_call(
        runtime, tmp_path, workspace, snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        notice = CheckedAfterRestartNotice(runtime, conversations, parent, on_card=lambda c: session.show_updated_card(
            c.conversation_id, c.call_id, c.envelope))
        notice.check()
        qtbot.waitUntil(lambda: "checked at the next start" in card_html(card, "Run command"), timeout=10000)
        html = card_html(card, "Run command")
        assert "pre-commit (new: put aside)" in html and "still ran in the sandbox" not in html
        assert card.result == "done"
        # Another conversation open instead: its cards are left alone.
        other = conversations.create("other")
        session.open(other)
        session.show_updated_card("not-it", "call-1", {"ok": False})
    finally:
        session.store = None
        conversations.close()
        runtime.close()


@pytest.mark.parametrize("server_first", ["before the notice", "after the notice"])
def test_a_chat_open_on_the_call_shows_its_card_brought_up_to_date_by_a_servers_start(
        qtbot: Any, tmp_path: Path, server_first: str) -> None:
    """A sandboxed server's start makes the owed checks first (s328), on its own thread, maybe
    before the notice's pass (the servers start before the window's notices): the chat already
    showing the call shows its new card all the same (before s331 only the saved card had it)."""
    i18n_qt.apply_language("en")
    workspace, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    conversations, session, card = _open_chat_with_the_call(
        runtime, tmp_path, workspace, snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
    hook = workspace / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho planted\n")
    parent = QWidget()
    qtbot.addWidget(parent)
    server_start = threading.Thread(target=runtime.make_owed_checks_first)  # (as ``connection`` calls it)
    try:
        if server_first == "before the notice":
            server_start.start()
            server_start.join()
            assert not hook.exists()  # made by the server's start
        notice = CheckedAfterRestartNotice(runtime, conversations, parent, on_card=lambda c: session.show_updated_card(
            c.conversation_id, c.call_id, c.envelope))
        if server_first == "after the notice":
            # Owed by a process still running (a CLI) during the notice's pass, then gone before a
            # server's start: that start makes it, on its own thread, after the notice listens.
            assert runtime.owed_checks is not None
            _owned_by_this_process(runtime.owed_checks)
            notice.check()
            qtbot.waitUntil(lambda: notice.done, timeout=10000)
            assert hook.exists()
            owed_by_a_gone_process(runtime.owed_checks)
            server_start.start()
        else:
            notice.check()
        qtbot.waitUntil(lambda: "checked at the next start" in card_html(card, "Run command"), timeout=10000)
        assert "pre-commit (new: put aside)" in card_html(card, "Run command")
        qtbot.waitUntil(lambda: notice.done, timeout=10000)
    finally:
        if server_start.ident is not None:
            server_start.join()
        session.store = None
        conversations.close()
        runtime.close()


def _owned_by_this_process(store: OwedChecksStore) -> None:
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE owed_checks SET owner = ?", (this_process(),))


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_check_that_could_not_be_made_says_why_in_the_notice_and_on_the_open_card(
        qtbot: Any, tmp_path: Path, language: str) -> None:
    """A snapshot of another version: the notice and the card say so in the person's language,
    with what to do, never the exception's words."""
    i18n_qt.apply_language(language)
    workspace = tmp_path / "project"
    workspace.mkdir()
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    conversations, session, card = _open_chat_with_the_call(
        runtime, tmp_path, workspace, pickle.dumps((sandbox_owed.FORMAT + 1, (), ())))
    parent = QWidget()
    qtbot.addWidget(parent)
    try:
        notice = CheckedAfterRestartNotice(runtime, conversations, parent, on_card=lambda c: session.show_updated_card(
            c.conversation_id, c.call_id, c.envelope))
        notice.check()
        qtbot.waitUntil(lambda: notice.box is not None and notice.box.isVisible(), timeout=10000)
        assert notice.box is not None
        text = notice.box.informativeText()
        qtbot.waitUntil(lambda: card.sandbox is not None and bool(card.sandbox.not_checked_after_restart),
                        timeout=5000)
        html = card_html(card, "Run command")
        assert "other_version" not in text and "other_version" not in html and str(workspace) in text
        if language == "en":
            assert ("the check could not be made (what was kept for it was written by another version of Echo Desk, "
                    "whose snapshots this version does not read). Look yourself") in text
            assert "at the next start the check could not be made (what was kept for it was written by another" in html
        else:
            assert "为它保存的快照是另一个版本的 Echo Desk 写下的" in text and "为它保存的快照是另一个版本" in html
            assert all(CJK.search(line) for line in text.splitlines() if line.strip())
        if SHOTS:
            notice.box.grab().save(f"{SHOTS}-failed-notice-{language}.png")
            view = QLabel(html)
            view.setWordWrap(True)
            view.setFixedWidth(640)
            qtbot.addWidget(view)
            view.show()
            qtbot.waitExposed(view)
            view.grab().save(f"{SHOTS}-failed-card-{language}.png")
        notice.box.close()
    finally:
        i18n_qt.apply_language("en")
        session.store = None
        conversations.close()
        runtime.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_a_sandboxed_servers_check_is_said_as_the_servers(qtbot: Any, tmp_path: Path, language: str) -> None:
    """A sandboxed MCP server's check owed by a killed Echo Desk (s328): the notice and Activity
    name the server and the folder it worked in, not a call."""
    from echo_desk.ui.settings.activity_tab import COL_WHO

    workspace, home = tmp_path / "notes-folder", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False)
    try:
        assert runtime.owed_checks is not None
        runtime.owed_checks.owe(conversation_id="", call_id="", tool="notes", server="notes", workspace=str(workspace),
                                snapshot=snapshot_of(workspace, home, tmp_path / "data" / "put-aside"))
        owed_by_a_gone_process(runtime.owed_checks)
        hook = workspace / ".git" / "hooks" / "pre-commit"
        hook.write_text("#!/bin/sh\necho planted\n")
        runtime.make_owed_checks()
        records = runtime.owed_checks.untold()
    finally:
        runtime.close()
    assert not hook.exists()
    i18n_qt.apply_language(language)
    try:
        box = checked_after_restart_box(records, None)
        qtbot.addWidget(box)
        text = box.informativeText()
        assert "“notes”" in text and str(workspace) in text and str(hook) in text
        log = AuditLog(tmp_path / "data" / "audit.sqlite3")
        try:
            tab = ActivityTab(log)
            qtbot.addWidget(tab)
            item = tab.calls.topLevelItem(0)
            assert item is not None
            tab.calls.setCurrentItem(item)
            detail = tab.detail.text()
            assert "“notes”" in detail and str(hook) in detail
            if language == "en":
                assert "sandboxed commands or MCP servers ran" in box.text()
                assert text.startswith("The sandboxed MCP server “notes” started on ")
                assert f"in {workspace} had left what would run code later" in text
                assert detail.startswith("Echo Desk was closed while the sandboxed MCP server “notes” ran")
                assert item.text(COL_WHO) == "notes (MCP server)"
            else:
                assert CJK.search(box.text()) and CJK.search(text.splitlines()[0]) and CJK.search(detail.splitlines()[0])
                assert "notes" in item.text(COL_WHO) and CJK.search(item.text(COL_WHO))
        finally:
            log.close()
    finally:
        i18n_qt.apply_language("en")


def test_a_check_of_a_server_the_gateways_engine_started_names_the_app_in_from(qtbot: Any, tmp_path: Path) -> None:
    """The gateway's own engine runs a server for one connected app (``Runtime.client``): the row
    kept while it runs names that app, and so does Activity's From for its check made after a
    restart, as it does for the server's ``server_left`` rows (before s331: the server alone)."""
    from echo_desk.sandbox import inventory
    from echo_desk.sandbox.guard import Guard
    from echo_desk.sandbox.launch import Launch
    from echo_desk.ui.settings.activity_tab import COL_WHO

    i18n_qt.apply_language("en")
    workspace, home = tmp_path / "notes-folder", tmp_path / "home"
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    runtime = Runtime.create(data_dir=tmp_path / "data", with_builtins=False, with_plugins=False, client="cursor")
    try:
        owed = runtime.owed_server_checks()
        assert owed is not None and runtime.owed_checks is not None
        guard = Guard.before(inventory.take(workspace, home=home), home=home, put_aside=tmp_path / "data" / "put-aside")
        assert owed.owe("notes", Launch(argv=[], pass_fds=(), hidden=(), read_only=(), guards=(guard,))) is not None
        owed_by_a_gone_process(runtime.owed_checks)  # Echo Desk killed while the server ran
        (workspace / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho planted\n")
        assert runtime.make_owed_checks() == 1
    finally:
        runtime.close()
    log = AuditLog(tmp_path / "data" / "audit.sqlite3")
    try:
        tab = ActivityTab(log)
        qtbot.addWidget(tab)
        item = tab.calls.topLevelItem(0)
        assert item is not None
        assert item.text(COL_WHO) == "notes (MCP server) · Cursor (through MCP)"  # (its display name)
    finally:
        log.close()
