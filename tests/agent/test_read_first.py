"""Read before overwriting: write_file on an existing file not read in this conversation."""

from __future__ import annotations

import json
from pathlib import Path

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.read_first import unread_overwrite


def _call(name: str, path: str, number: int = 0) -> ToolCall:
    return ToolCall(id=f"c{number}", name=name, arguments=json.dumps({"path": path, "content": "x"}))


def _done(call: ToolCall, ok: bool = True) -> list[ChatMessage]:
    envelope = {"ok": ok, "tool": call.name, "content": "", "error": "" if ok else "no", "file_changes": []}
    return [ChatMessage(role="assistant", tool_calls=(call,)),
            ChatMessage(role="tool", content=json.dumps(envelope), tool_call_id=call.id, name=call.name)]


def test_an_existing_file_not_read_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("milk\neggs\n")
    write = _call("write_file", "notes.txt", 9)
    why = unread_overwrite(write, [ChatMessage(role="user", content="add a line")], (tmp_path,))
    assert why.startswith("not run:") and "notes.txt already exists" in why and "It holds now:" in why
    # Read (successfully) in this conversation, by a relative or an absolute path: it may run.
    assert unread_overwrite(write, _done(_call("read_file", "notes.txt", 1)), (tmp_path,)) == ""
    assert unread_overwrite(write, _done(_call("read_file", str(tmp_path / "notes.txt"), 1)), (tmp_path,)) == ""
    # A failed read, or a read of another file, does not count.
    assert unread_overwrite(write, _done(_call("read_file", "notes.txt", 1), ok=False), (tmp_path,))
    assert unread_overwrite(write, _done(_call("read_file", "other.txt", 1)), (tmp_path,))


def test_a_new_file_a_file_written_here_and_other_tools_are_left_alone(tmp_path: Path) -> None:
    assert unread_overwrite(_call("write_file", "new.txt"), [], (tmp_path,)) == ""
    (tmp_path / "made.txt").write_text("x")
    assert unread_overwrite(_call("write_file", "made.txt", 2), _done(_call("write_file", "made.txt", 1)),
                            (tmp_path,)) == ""
    (tmp_path / "a.txt").write_text("a\n")
    assert unread_overwrite(_call("edit_file", "a.txt"), [], (tmp_path,)) == ""
    assert unread_overwrite(ToolCall(id="c", name="write_file", arguments="{not json"), [], (tmp_path,)) == ""


def test_the_refusal_shows_the_file_and_the_next_write_then_runs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("milk\neggs\n")
    blind = _call("write_file", "notes.txt", 1)  # content "x"
    why = unread_overwrite(blind, [], (tmp_path,))
    assert "It holds now:\nmilk\neggs\n\n[end of file]" in why
    refused = [ChatMessage(role="assistant", tool_calls=(blind,)),
               ChatMessage(role="tool", tool_call_id="c1", name="write_file",
                           content=json.dumps({"ok": False, "error": why}))]
    same = _call("write_file", "notes.txt", 2)
    assert unread_overwrite(same, refused, (tmp_path,)) == "", "shown the file: the person decides on the diff"
    kept = ToolCall(id="c3", name="write_file", arguments=json.dumps({"path": "notes.txt",
                                                                      "content": "milk\neggs\nBuy butter\n"}))
    assert unread_overwrite(kept, refused, (tmp_path,)) == ""


def test_a_big_file_is_not_shown_only_named(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * 5000)
    why = unread_overwrite(_call("write_file", "big.txt"), [], (tmp_path,))
    assert "Read it with read_file first" in why and "xxxx" not in why
