"""Read before overwriting: write_file on an existing workspace file not read in this
conversation. The pure rule here; what the refusal shows (a real read_file through the
dispatcher, with every check) in tests/agent/test_loop.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.agent.read_first import SHOWN_CHARS, refusal, unread_target


def _call(name: str, path: str, number: int = 0) -> ToolCall:
    return ToolCall(id=f"c{number}", name=name, arguments=json.dumps({"path": path, "content": "x"}))


def _done(call: ToolCall, ok: bool = True) -> list[ChatMessage]:
    envelope = {"ok": ok, "tool": call.name, "content": "", "error": "" if ok else "no", "file_changes": []}
    return [ChatMessage(role="assistant", tool_calls=(call,)),
            ChatMessage(role="tool", content=json.dumps(envelope), tool_call_id=call.id, name=call.name)]


def test_an_existing_file_not_read_is_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("milk\neggs\n")
    write = _call("write_file", "notes.txt", 9)
    assert unread_target(write, [ChatMessage(role="user", content="add a line")], (tmp_path,)) == "notes.txt"
    # Read (successfully) in this conversation, by a relative or an absolute path: it may run.
    assert unread_target(write, _done(_call("read_file", "notes.txt", 1)), (tmp_path,)) == ""
    assert unread_target(write, _done(_call("read_file", str(tmp_path / "notes.txt"), 1)), (tmp_path,)) == ""
    # A failed read, or a read of another file, does not count.
    assert unread_target(write, _done(_call("read_file", "notes.txt", 1), ok=False), (tmp_path,))
    assert unread_target(write, _done(_call("read_file", "other.txt", 1)), (tmp_path,))


def test_a_new_file_a_file_written_here_and_other_tools_are_left_alone(tmp_path: Path) -> None:
    assert unread_target(_call("write_file", "new.txt"), [], (tmp_path,)) == ""
    (tmp_path / "made.txt").write_text("x")
    assert unread_target(_call("write_file", "made.txt", 2), _done(_call("write_file", "made.txt", 1)),
                         (tmp_path,)) == ""
    (tmp_path / "a.txt").write_text("a\n")
    assert unread_target(_call("edit_file", "a.txt"), [], (tmp_path,)) == ""
    assert unread_target(ToolCall(id="c", name="write_file", arguments="{not json"), [], (tmp_path,)) == ""


def test_files_outside_the_workspace_are_left_to_the_dispatcher(tmp_path: Path) -> None:
    """Not an existence oracle: a path outside (directly, through .., or through a link) gets no
    answer from this rule, whether it exists or not."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    os.symlink(outside / "secret.txt", workspace / "link.txt")
    for path in (str(outside / "secret.txt"), "../outside/secret.txt", "link.txt", "/etc/hostname"):
        assert unread_target(_call("write_file", path), [], (workspace,)) == "", path


def test_the_refusal_shows_what_the_read_returned_and_the_next_write_then_runs(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("milk\neggs\n")
    blind = _call("write_file", "notes.txt", 1)  # content "x"
    why = refusal(unread_target(blind, [], (tmp_path,)), "milk\neggs\n")
    assert why.startswith("not run: notes.txt already exists") and "It holds now:\nmilk\neggs\n\n[end of file]" in why
    refused = [ChatMessage(role="assistant", tool_calls=(blind,)),
               ChatMessage(role="tool", tool_call_id="c1", name="write_file",
                           content=json.dumps({"ok": False, "error": why}))]
    assert unread_target(_call("write_file", "notes.txt", 2), refused, (tmp_path,)) == "", \
        "shown the file: the person decides on the diff"


def test_nothing_read_or_too_much_is_only_named() -> None:
    for shown in (None, "x" * (SHOWN_CHARS + 1)):
        why = refusal("big.txt", shown)
        assert "Read it with read_file first" in why and "xxxx" not in why
