"""Whole folders through move_path / copy_path / delete_path: the real pipeline, Revert of the tree."""

from __future__ import annotations

import hashlib
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


def _contents(tree: dict[str, tuple[str, int, str]]) -> dict[str, tuple[str, str]]:
    return {path: (kind, digest) for path, (kind, _mode, digest) in tree.items()}


def _tree(root: Path) -> dict[str, tuple[str, int, str]]:
    """Every entry under ``root``: kind, mode and (for files) a content hash."""
    found: dict[str, tuple[str, int, str]] = {}
    for path in sorted(root.rglob("*")):
        st = path.lstat()
        if stat.S_ISLNK(st.st_mode):
            found[str(path.relative_to(root))] = ("link", 0, os.readlink(path))
        elif stat.S_ISDIR(st.st_mode):
            found[str(path.relative_to(root))] = ("dir", 0, "")
        else:
            found[str(path.relative_to(root))] = ("file", stat.S_IMODE(st.st_mode),
                                                  hashlib.sha256(path.read_bytes()).hexdigest())
    return found


def _make_project(root: Path) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "empty" / "deeper").mkdir(parents=True)
    (root / "README.md").write_bytes(b"\xef\xbb\xbfhello\r\nworld")  # BOM, CRLF, no final newline
    (root / "src" / "pkg" / "data.bin").write_bytes(bytes(range(256)) * 4)
    (root / "src" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    os.chmod(root / "src" / "run.sh", 0o750)


def _revert(runtime: Runtime, cid: str) -> None:
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls([cid]))
    assert report.complete, (report.kept, report.failed)


async def test_a_moved_folder_reverts_to_the_whole_tree(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                        workspace: Path) -> None:
    _make_project(workspace / "proj")
    before = _tree(workspace / "proj")
    env = await _call(runtime, scope, host, "move_path", {"source": "proj", "destination": "renamed"}, "c1")
    assert env.ok, env.error
    shown = host.requests[-1]
    assert [t.value for t in shown.targets] == [str(workspace / "proj"), str(workspace / "renamed")]
    assert "3 files" in shown.targets[0].detail
    assert {c.path for c in shown.file_changes} >= {str(workspace / "proj" / "README.md"),
                                                     str(workspace / "renamed" / "src" / "run.sh")}
    assert not (workspace / "proj").exists() and _tree(workspace / "renamed") == before
    _revert(runtime, "c1")
    assert _tree(workspace / "proj") == before  # the empty folders too
    assert not (workspace / "renamed").exists()


async def test_a_copied_folder_is_removed_by_revert_unless_edited(runtime: Runtime, scope: Scope,
                                                                  host: ScriptedHost, workspace: Path) -> None:
    _make_project(workspace / "proj")
    before = _tree(workspace / "proj")
    env = await _call(runtime, scope, host, "copy_path", {"source": "proj", "destination": "copy"}, "c1")
    assert env.ok, env.error
    assert _tree(workspace / "copy") == before and _tree(workspace / "proj") == before
    assert not [name for name in os.listdir(workspace) if name.startswith(".")]  # no temporary copy left
    (workspace / "copy" / "src" / "run.sh").write_text("edited by hand\n")
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert not report.complete
    assert (workspace / "copy" / "src" / "run.sh").read_text() == "edited by hand\n"  # never without a choice
    assert not (workspace / "copy" / "README.md").exists()  # the untouched copies went
    assert _tree(workspace / "proj") == before


async def test_a_deleted_folder_goes_to_the_trash_and_comes_back(runtime: Runtime, scope: Scope,
                                                                 host: ScriptedHost, workspace: Path) -> None:
    _make_project(workspace / "proj")
    before = _tree(workspace / "proj")
    env = await _call(runtime, scope, host, "delete_path", {"path": "proj"}, "c1")
    assert env.ok, env.error
    assert not (workspace / "proj").exists()
    trash = Path(os.environ["ECHO_DESK_DATA_DIR"]) / "trash"
    kept = [p for p in trash.glob("*/proj")]
    # Moved whole, nothing erased; private in Echo Desk's data folder (0600): the modes are in the
    # change journal, and Revert puts them back.
    assert len(kept) == 1 and _contents(_tree(kept[0])) == _contents(before)
    assert {mode for kind, mode, _ in _tree(kept[0]).values() if kind == "file"} == {0o600}
    _revert(runtime, "c1")
    assert _tree(workspace / "proj") == before


async def test_a_folder_holding_a_link_is_refused_whole(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                        workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("canary\n")
    _make_project(workspace / "proj")
    os.symlink(outside, workspace / "proj" / "src" / "pkg" / "escape")
    before = _tree(workspace / "proj")
    for cid, name, args in (("c1", "move_path", {"source": "proj", "destination": "moved"}),
                            ("c2", "copy_path", {"source": "proj", "destination": "copied"}),
                            ("c3", "delete_path", {"path": "proj"})):
        env = await _call(runtime, scope, host, name, args, cid)
        assert not env.ok and "symbolic link" in env.error and "Nothing was done" in env.error, (name, env.error)
    assert _tree(workspace / "proj") == before
    assert not (workspace / "moved").exists() and not (workspace / "copied").exists()
    assert (outside / "secret.txt").read_text() == "canary\n" and len(list(outside.iterdir())) == 1


async def test_a_folder_is_not_moved_into_itself(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                 workspace: Path) -> None:
    _make_project(workspace / "proj")
    env = await _call(runtime, scope, host, "move_path", {"source": "proj", "destination": "proj/inner"}, "c1")
    assert not env.ok and "inside the source" in env.error
    assert not (workspace / "proj" / "inner").exists()


async def test_files_over_the_undo_cap_are_named_before_approval(runtime: Runtime, scope: Scope,
                                                                 host: ScriptedHost, workspace: Path) -> None:
    runtime.settings.update(lambda s: setattr(s, "undo_max_file_bytes", 100))
    _make_project(workspace / "proj")
    env = await _call(runtime, scope, host, "delete_path", {"path": "proj"}, "c1")
    assert env.ok, env.error
    big = str(workspace / "proj" / "src" / "pkg" / "data.bin")
    assert host.requests[-1].not_restorable == (big,)  # told before the person approved
    assert runtime.reverter is not None
    plan = runtime.reverter.plan_calls(["c1"])
    assert [r.path for r in plan.not_restorable] == [big]
    report = runtime.reverter.apply(plan)
    assert (workspace / "proj" / "README.md").read_bytes() == b"\xef\xbb\xbfhello\r\nworld"
    assert not (workspace / "proj" / "src" / "pkg" / "data.bin").exists()
    assert [r.path for r, _why in report.kept] == [big]


async def test_revert_never_writes_through_a_folder_swapped_for_a_link(runtime: Runtime, scope: Scope,
                                                                       host: ScriptedHost, workspace: Path,
                                                                       tmp_path: Path) -> None:
    from echo_desk.agent.undo.revert import LeftAlone

    _make_project(workspace / "proj")
    env = await _call(runtime, scope, host, "delete_path", {"path": "proj"}, "c1")
    assert env.ok, env.error
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, workspace / "proj")  # someone puts a link where the folder was
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert not report.reverted and list(outside.iterdir()) == []
    reasons = {issue.reason for _r, issue in report.failed}
    assert reasons <= {LeftAlone.LINK_IN_THE_PATH_NOW, LeftAlone.NOT_A_FOLDER_NOW} and reasons
    assert stat.S_ISLNK(os.lstat(workspace / "proj").st_mode)


async def test_revert_never_removes_a_folder_through_a_folder_swapped_for_a_link(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, tmp_path: Path) -> None:
    from echo_desk.agent.undo.revert import LeftAlone

    env = await _call(runtime, scope, host, "create_folder", {"path": "made/inner"}, "c1")
    assert env.ok, env.error
    os.rmdir(workspace / "made" / "inner")
    os.rmdir(workspace / "made")
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)  # the person's own empty folder, outside the workspace
    os.symlink(outside, workspace / "made")  # someone puts a link where the folder was
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert (outside / "inner").is_dir()
    assert {issue.reason for _r, issue in report.failed} == {LeftAlone.LINK_IN_THE_PATH_NOW, LeftAlone.NOT_A_FOLDER_NOW}
    assert stat.S_ISLNK(os.lstat(workspace / "made").st_mode)


async def test_revert_of_a_deleted_private_folder_makes_it_private_again(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    keys = workspace / "keys"
    (keys / "old").mkdir(parents=True)
    (keys / "old" / "id_ed25519").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    os.chmod(keys / "old" / "id_ed25519", 0o644)  # kept readable: the folders are what keep others out
    os.chmod(keys / "old", 0o700)
    os.chmod(keys, 0o711)
    env = await _call(runtime, scope, host, "delete_path", {"path": "keys"}, "c1")
    assert env.ok, env.error
    _revert(runtime, "c1")
    assert (keys / "old" / "id_ed25519").read_text() == "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o711
    assert stat.S_IMODE((keys / "old").stat().st_mode) == 0o700
