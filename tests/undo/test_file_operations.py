"""move_path, copy_path, delete_path, create_folder through the real pipeline, and Revert of each."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime


async def _call(runtime: Runtime, scope: Scope, host: ScriptedHost, name: str, args: dict[str, Any],
                cid: str) -> Envelope:
    return await runtime.dispatcher.execute_tool(ToolCall(id=cid, name=name, arguments=json.dumps(args)), scope, host)


def _revert(runtime: Runtime, cid: str) -> None:
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls([cid]))
    assert report.complete, (report.kept, report.failed)


async def test_move_shows_both_paths_never_replaces_and_reverts(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                                workspace: Path) -> None:
    src, dst = workspace / "a.bin", workspace / "sub" / "b.bin"
    src.write_bytes(b"\x00\x01binary\r\n")
    os.chmod(src, 0o604)
    (workspace / "sub").mkdir()
    env = await _call(runtime, scope, host, "move_path", {"source": "a.bin", "destination": "sub/b.bin"}, "c1")
    assert env.ok, env.error
    shown = host.requests[-1]
    assert [t.value for t in shown.targets] == [str(src), str(dst)]
    assert [(c.path, c.kind.value) for c in env.file_changes] == [(str(src), "delete"), (str(dst), "create")]
    assert not src.exists() and dst.read_bytes() == b"\x00\x01binary\r\n"
    src.write_text("someone else's new file\n")
    refused = await _call(runtime, scope, host, "move_path", {"source": "sub/b.bin", "destination": "a.bin"}, "c2")
    assert not refused.ok and "already exists" in refused.error
    assert src.read_text() == "someone else's new file\n" and dst.exists()
    src.unlink()
    _revert(runtime, "c1")
    assert src.read_bytes() == b"\x00\x01binary\r\n" and stat.S_IMODE(src.stat().st_mode) == 0o604
    assert not dst.exists()


async def test_a_move_or_copy_onto_an_existing_folder_does_nothing_and_names_the_path_inside_it(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    (workspace / "invoice.pdf").write_text("%PDF\n")
    (workspace / "paid").mkdir()
    (workspace / "drafts").mkdir()
    (workspace / "drafts" / "one.txt").write_text("1\n")
    asked = len(host.requests)
    for name, source, cid in (("move_path", "invoice.pdf", "m1"), ("copy_path", "invoice.pdf", "c1"),
                              ("move_path", "drafts", "m2")):
        refused = await _call(runtime, scope, host, name, {"source": source, "destination": "paid"}, cid)
        # Never put inside unasked (the path judged and shown is the path written): the path meant is named.
        assert not refused.ok and f"give the destination {workspace / 'paid' / source}" in refused.error
    assert len(host.requests) == asked  # nobody was asked about a call that could not be made
    assert sorted(p.name for p in (workspace / "paid").iterdir()) == []
    assert (workspace / "invoice.pdf").read_text() == "%PDF\n" and (workspace / "drafts" / "one.txt").exists()
    moved = await _call(runtime, scope, host, "move_path",
                        {"source": "invoice.pdf", "destination": str(workspace / "paid" / "invoice.pdf")}, "m3")
    assert moved.ok and (workspace / "paid" / "invoice.pdf").read_text() == "%PDF\n"
    taken = await _call(runtime, scope, host, "copy_path", {"source": "paid/invoice.pdf", "destination": "drafts/one.txt"},
                        "c2")
    assert not taken.ok and "already exists; nothing is replaced" in taken.error  # a file: no path inside it


async def test_delete_moves_to_the_trash_and_revert_puts_it_back(runtime: Runtime, scope: Scope,
                                                                 host: ScriptedHost, workspace: Path,
                                                                 tmp_path: Path) -> None:
    target = workspace / "gone.txt"
    target.write_bytes(b"keep me\r\n")
    os.chmod(target, 0o640)
    env = await _call(runtime, scope, host, "delete_path", {"path": "gone.txt"}, "c1")
    assert env.ok, env.error
    assert not target.exists()
    trash = Path(os.environ["ECHO_DESK_DATA_DIR"]) / "trash"
    kept = [p for p in trash.rglob("gone.txt")]
    assert len(kept) == 1 and kept[0].read_bytes() == b"keep me\r\n"  # moved, not unlinked
    assert stat.S_IMODE(trash.stat().st_mode) == 0o700
    _revert(runtime, "c1")
    assert target.read_bytes() == b"keep me\r\n" and stat.S_IMODE(target.stat().st_mode) == 0o640


async def test_links_are_refused_not_followed(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                              workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("canary\n")
    os.symlink(outside, workspace / "link")
    (workspace / "in.txt").write_text("in\n")
    os.symlink(workspace / "in.txt", workspace / "inner-link")
    for name, args in (("delete_path", {"path": "link"}), ("move_path", {"source": "link", "destination": "x"}),
                       ("copy_path", {"source": "link", "destination": "x"}),
                       ("delete_path", {"path": "inner-link"})):
        env = await _call(runtime, scope, host, name, args, "c-" + name)
        assert not env.ok and "symbolic link" in env.error, (name, env.error)
    assert outside.read_text() == "canary\n" and (workspace / "inner-link").is_symlink()
    assert (workspace / "in.txt").read_text() == "in\n" and not (workspace / "x").exists()


async def test_copy_keeps_mode_and_its_revert_checks_the_copy(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                              workspace: Path) -> None:
    (workspace / "s.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(workspace / "s.sh", 0o750)
    env = await _call(runtime, scope, host, "copy_path", {"source": "s.sh", "destination": "t.sh"}, "c1")
    assert env.ok, env.error
    copy = workspace / "t.sh"
    assert copy.read_text() == "#!/bin/sh\necho hi\n" and stat.S_IMODE(copy.stat().st_mode) == 0o750
    copy.write_text("edited by hand\n")
    assert runtime.reverter is not None
    plan = runtime.reverter.plan_calls(["c1"])
    assert plan.conflicts and not runtime.reverter.apply(plan).reverted
    assert copy.read_text() == "edited by hand\n"  # never removed without the person's choice


async def test_create_folder_and_revert_removes_only_empty_folders(runtime: Runtime, scope: Scope,
                                                                   host: ScriptedHost, workspace: Path) -> None:
    env = await _call(runtime, scope, host, "create_folder", {"path": "x/y/z"}, "c1")
    assert env.ok, env.error
    assert (workspace / "x" / "y" / "z").is_dir()
    again = await _call(runtime, scope, host, "create_folder", {"path": "x/y"}, "c2")
    assert not again.ok and "already exists" in again.error
    (workspace / "x" / "y" / "keep.txt").write_text("mine\n")
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert not (workspace / "x" / "y" / "z").exists()
    assert (workspace / "x" / "y" / "keep.txt").exists() and len(report.kept) == 2  # y and x are not empty
    (workspace / "x" / "y" / "keep.txt").unlink()
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete and not (workspace / "x").exists()


async def test_a_turn_that_made_a_folder_and_files_reverts_in_order(runtime: Runtime, scope: Scope,
                                                                    host: ScriptedHost, workspace: Path) -> None:
    from echo_desk.agent.undo.journal import turn

    with turn("t1"):
        assert (await _call(runtime, scope, host, "create_folder", {"path": "docs"}, "c1")).ok
        assert (await _call(runtime, scope, host, "write_file", {"path": "docs/a.md", "content": "a\n"}, "c2")).ok
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_turn(scope.conversation_id, "t1"))
    assert report.complete and not (workspace / "docs").exists()
