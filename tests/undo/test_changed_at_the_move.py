"""What move_path and delete_path move is what was shown: a file written into the folder (or the
file rewritten) by another program between the last check and the rename is not carried along
unseen. The other program is simulated at the worst moment: right before the rename."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.common import entries
from echo_desk.runtime import Runtime


async def _call(runtime: Runtime, scope: Scope, host: ScriptedHost, name: str, args: dict[str, Any],
                cid: str) -> Envelope:
    return await runtime.dispatcher.execute_tool(ToolCall(id=cid, name=name, arguments=json.dumps(args)), scope, host)


def _meanwhile(monkeypatch: pytest.MonkeyPatch, act: Callable[[], None]) -> None:
    """``act`` runs once, right before the tool's rename (another program's write)."""
    real = entries.rename_noreplace
    done: list[bool] = []

    def racing(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
        if not done:
            done.append(True)
            act()
        real(src_dir, src, dst_dir, dst)

    monkeypatch.setattr(entries, "rename_noreplace", racing)


def _build(workspace: Path) -> Path:
    folder = workspace / "build"
    folder.mkdir()
    (folder / "old.o").write_bytes(b"\x7fELF old")
    return folder


@pytest.mark.parametrize("tool", ["delete_path", "move_path"])
async def test_a_file_written_into_the_folder_meanwhile_is_not_taken_along(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch,
        tool: str) -> None:
    folder = _build(workspace)
    _meanwhile(monkeypatch, lambda: (folder / "report.txt").write_text("written by the running build\n"))
    args = {"path": "build"} if tool == "delete_path" else {"source": "build", "destination": "moved"}
    env = await _call(runtime, scope, host, tool, args, "c1")
    shown = [c.path for c in host.requests[-1].file_changes]
    assert str(folder / "report.txt") not in shown and str(workspace / "moved" / "report.txt") not in shown
    # Not shown, so not moved: the folder is where it was, whole, and the call says so.
    assert not env.ok and env.error == (f"{folder} changed while it was being {'deleted' if tool == 'delete_path' else 'moved'} "
                                        "(another program wrote it): it was put back where it was and nothing was "
                                        "done. Read it again and redo the change."), env.error
    assert (folder / "report.txt").read_text() == "written by the running build\n"
    assert (folder / "old.o").read_bytes() == b"\x7fELF old"
    assert not (workspace / "moved").exists()


@pytest.mark.parametrize("tool", ["delete_path", "move_path"])
async def test_a_file_rewritten_meanwhile_is_not_moved_with_content_that_was_not_shown(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch,
        tool: str) -> None:
    notes = workspace / "notes.txt"
    notes.write_text("draft\n")
    _meanwhile(monkeypatch, lambda: notes.write_text("draft\nthe person's new paragraph\n"))
    args = {"path": "notes.txt"} if tool == "delete_path" else {"source": "notes.txt", "destination": "kept.txt"}
    env = await _call(runtime, scope, host, tool, args, "c1")
    assert not env.ok and "changed" in env.error and "nothing was" in env.error, env.error
    assert notes.read_text() == "draft\nthe person's new paragraph\n"
    assert not (workspace / "kept.txt").exists()


async def test_a_folder_unchanged_meanwhile_still_moves_and_reverts(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    folder = _build(workspace)
    env = await _call(runtime, scope, host, "delete_path", {"path": "build"}, "c1")
    assert env.ok, env.error
    assert not folder.exists()
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete, (report.kept, report.failed)
    assert (folder / "old.o").read_bytes() == b"\x7fELF old"


async def test_what_cannot_be_put_back_is_said_with_where_it_is(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _build(workspace)
    real = entries.rename_noreplace
    calls: list[str] = []

    def racing(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
        calls.append(src)
        if len(calls) == 1:
            (folder / "report.txt").write_text("written by the running build\n")
            real(src_dir, src, dst_dir, dst)
            folder.mkdir()  # and the build made its folder again at once
            return
        real(src_dir, src, dst_dir, dst)

    monkeypatch.setattr(entries, "rename_noreplace", racing)
    env = await _call(runtime, scope, host, "delete_path", {"path": "build"}, "c1")
    assert not env.ok and env.error.startswith(f"{folder} changed while it was being deleted"), env.error
    trash = Path(env.error.split("it is now at ")[1].split(". Look at it there")[0])
    assert (trash / "report.txt").read_text() == "written by the running build\n"
    assert (trash / "old.o").read_bytes() == b"\x7fELF old"


async def test_a_folder_made_by_another_program_meanwhile_is_not_reported_as_created(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from echo_desk.common import fs

    real = fs.open_dir
    theirs = workspace / "reports"

    def racing(root: Path, parts: Any, *, create: bool = False) -> int:
        if create and not theirs.exists():
            theirs.mkdir()  # a sync client makes the same folder, with its own file, at that moment
            (theirs / "synced.txt").write_text("theirs\n")
        return real(root, parts, create=create)

    monkeypatch.setattr(fs, "open_dir", racing)
    env = await _call(runtime, scope, host, "create_folder", {"path": "reports"}, "c1")
    assert not env.ok and "appeared meanwhile" in env.error and "nothing was created" in env.error, env.error
    assert (theirs / "synced.txt").read_text() == "theirs\n"


async def test_a_write_just_before_a_delete_across_file_systems_is_not_lost(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    notes = workspace / "notes.txt"
    notes.write_text("draft\n")
    real_rename, real_unlink = entries.rename_noreplace, os.unlink

    def across(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
        if Path(os.readlink(f"/proc/self/fd/{dst_dir}")).parent.name == "trash":
            raise OSError(errno.EXDEV, "Invalid cross-device link")  # the trash is on another disk
        real_rename(src_dir, src, dst_dir, dst)

    late: list[bool] = []

    def unlink(path: Any, *args: Any, **kwargs: Any) -> None:
        if "dir_fd" in kwargs and not late:  # the editor saves once more at the last moment
            late.append(True)
            notes.write_text("draft\nsaved at the last moment\n")
        real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(entries, "rename_noreplace", across)
    monkeypatch.setattr(os, "unlink", unlink)
    env = await _call(runtime, scope, host, "delete_path", {"path": "notes.txt"}, "c1")
    assert late
    # What was shown went to the trash; the later save was not erased with it.
    assert env.ok, env.error
    assert notes.read_text() == "draft\nsaved at the last moment\n"


async def test_a_trash_on_another_full_disk_leaves_the_file_where_it_was(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import errno

    from echo_desk.builtins.files import operations
    from echo_desk.tools import ToolError

    notes = workspace / "notes.txt"
    notes.write_text("draft\n")
    real_rename = entries.rename_noreplace

    def across(src_dir: int, src: str, dst_dir: int, dst: str) -> None:
        if Path(os.readlink(f"/proc/self/fd/{dst_dir}")).parent.name == "trash":
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        real_rename(src_dir, src, dst_dir, dst)

    def full(*_args: object, **_kwargs: object) -> None:
        raise ToolError("could not write the trash copy: the disk is full")

    monkeypatch.setattr(entries, "rename_noreplace", across)
    monkeypatch.setattr(operations, "atomic_write", full)
    env = await _call(runtime, scope, host, "delete_path", {"path": "notes.txt"}, "c1")
    assert not env.ok and "the disk is full" in env.error
    assert os.listdir(workspace) == ["notes.txt"] and notes.read_text() == "draft\n"
