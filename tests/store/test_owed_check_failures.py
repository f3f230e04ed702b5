"""An owed check that could not be made keeps why as a kind (``sandbox.owed_failure``): the row,
the audit record and the saved card say it, and the person reads a sentence for each kind in
their own language, never the exception's English words."""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk.agent.owed_checks import NOT_CHECKED_KEY, UpdatedCard, make_owed_checks
from echo_desk.i18n import set_language
from echo_desk.sandbox import owed as sandbox_owed
from echo_desk.sandbox.owed_failure import OwedFailure
from echo_desk.store.audit import AuditLog
from echo_desk.store.conversations import ConversationStore
from echo_desk.store.owed_checks import OWED_CHECKS_FILE, OwedChecksStore
from echo_desk.ui.core.checked_after_restart_text import FAILURE_REASONS, command_lines, failure_reason
from tests.owed_check_helpers import owed_by_a_gone_process, snapshot_of

CJK = re.compile(r"[\u4e00-\u9fff]")


class _Refusable:
    """Pickled as a class no snapshot is made of."""


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    set_language("en")
    yield
    set_language("en")


def _kind_of(data: bytes) -> OwedFailure:
    with pytest.raises(sandbox_owed.UnreadableSnapshot) as caught:
        sandbox_owed.check_owed(data)
    return caught.value.kind


def test_each_way_a_snapshot_does_not_read_back_is_its_own_kind(tmp_path: Path) -> None:
    assert _kind_of(pickle.dumps((sandbox_owed.FORMAT, (_Refusable(),), ()))) is OwedFailure.REFUSED
    assert _kind_of(pickle.dumps((sandbox_owed.FORMAT + 1, (), ()))) is OwedFailure.OTHER_VERSION
    assert _kind_of(b"") is OwedFailure.UNREADABLE
    good = snapshot_of(tmp_path, tmp_path, tmp_path / "put-aside")
    assert _kind_of(good[: len(good) // 2]) is OwedFailure.UNREADABLE
    assert _kind_of(pickle.dumps(("not", "a", "snapshot"))) is OwedFailure.UNREADABLE


def _owed(tmp_path: Path, snapshot: bytes) -> OwedChecksStore:
    store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
    store.owe(conversation_id="c", call_id="call-1", tool="run_command", workspace=str(tmp_path / "ws"),
              snapshot=snapshot)
    owed_by_a_gone_process(store)
    return store


@pytest.mark.parametrize(("snapshot", "kind"), [
    (pickle.dumps((sandbox_owed.FORMAT, (_Refusable(),), ())), OwedFailure.REFUSED),
    (pickle.dumps((sandbox_owed.FORMAT + 1, (), ())), OwedFailure.OTHER_VERSION),
    (b"cut sh", OwedFailure.UNREADABLE),
])
def test_the_row_and_the_record_keep_the_kind_not_the_exception(tmp_path: Path, snapshot: bytes,
                                                                 kind: OwedFailure) -> None:
    store = _owed(tmp_path, snapshot)
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        assert make_owed_checks(store, audit) == 1
        audit.flush()
        [row] = [r for r in audit.query() if r["event"] == "checked_after_restart"]
    finally:
        audit.close()
    [told] = store.untold()
    assert told.error == kind.value and row["error"] == kind.value and row["ok"] is False


def test_a_check_that_fails_itself_is_kept_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(_data: bytes) -> tuple[()]:
        raise PermissionError(13, "Permission denied", "/ws/.git")

    monkeypatch.setattr(sandbox_owed, "check_owed", fails)
    store = _owed(tmp_path, b"x")
    audit = AuditLog(tmp_path / "audit.sqlite3")
    try:
        make_owed_checks(store, audit)
    finally:
        audit.close()
    [told] = store.untold()
    assert told.error == OwedFailure.CHECK_FAILED.value


def test_the_saved_card_says_the_check_could_not_be_made_and_is_handed_back(tmp_path: Path) -> None:
    from echo_desk.agent.model import ToolCall
    from echo_desk.chat_messages import ChatMessage

    conversations = ConversationStore(tmp_path / "conversations.sqlite3")
    try:
        conversation = conversations.create("t")
        envelope = {"ok": True, "content": "done", "sandbox": {"sandboxed": True, "checked_later": True}}
        call = ToolCall(id="call-1", name="run_command", arguments="{}")
        conversations.append(str(conversation.id), ChatMessage(role="assistant", tool_calls=(call,)), node="a1")
        conversations.append(str(conversation.id), ChatMessage(role="tool", content="done", tool_call_id="call-1"),
                             envelope, node="t1")
        store = OwedChecksStore(tmp_path / OWED_CHECKS_FILE)
        store.owe(conversation_id=str(conversation.id), call_id="call-1", tool="run_command", workspace="/ws",
                  snapshot=b"damaged")
        owed_by_a_gone_process(store)
        audit = AuditLog(tmp_path / "audit.sqlite3")
        updated: list[UpdatedCard] = []
        try:
            make_owed_checks(store, audit, conversations, updated)
        finally:
            audit.close()
        found = conversations.tool_envelope(str(conversation.id), "call-1")
        assert found is not None
        sandbox = found[1]["sandbox"]
        assert sandbox[NOT_CHECKED_KEY] == OwedFailure.UNREADABLE.value and sandbox["checked_after_restart"] is True
        assert [(u.conversation_id, u.call_id, u.envelope["sandbox"]) for u in updated] == [
            (str(conversation.id), "call-1", sandbox)]
    finally:
        conversations.close()


@pytest.mark.parametrize("kind", list(OwedFailure))
def test_every_kind_is_a_sentence_in_each_language(kind: OwedFailure) -> None:
    english = failure_reason(kind.value)
    assert english == FAILURE_REASONS[kind] and kind.value not in english
    [line] = command_lines("/ws", (), kind.value, 0.0)
    assert f"the check could not be made ({english})" in line
    set_language("zh_CN")
    chinese = failure_reason(kind.value)
    assert CJK.search(chinese) and chinese != english
    [line] = command_lines("/ws", (), kind.value, 0.0)
    assert chinese in line and not re.search(r"[a-z]{4,}", line.replace("Echo Desk", "").replace("/ws", "")
                                             .replace(".envrc", "").replace("git", ""))


def test_an_older_rows_english_reason_is_said_as_a_failed_check_in_the_persons_language() -> None:
    set_language("zh_CN")
    said = failure_reason("its snapshot could not be read back (truncated)")
    assert CJK.search(said) and "its snapshot could not be read back (truncated)" in said
