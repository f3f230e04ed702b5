"""Workspace confinement: a corpus of hostile paths against every file tool, 0 escapes.

A canary tree (``outside/`` and the prefix-confusing ``ws-evil/``) sits next to the workspace;
its hash must not change, and no canary marker may appear in any tool's output.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from tool_test_helpers import MakeCtx, run_tool, tree_hash

from echo_desk.builtins import (
    CopyPath,
    CreateFolder,
    DeletePath,
    EditFile,
    ListDir,
    MovePath,
    ReadFile,
    RunCommand,
    SearchFiles,
    WriteFile,
)
from echo_desk.common import fs
from echo_desk.common.atomic import ABSENT, atomic_write, sha256
from echo_desk.tools import ToolError

MARKER = "CANARY-" + uuid.uuid4().hex


def build_world(workspace: Path) -> tuple[Path, Path]:
    parent = workspace.parent
    outside, evil = parent / "outside", parent / "ws-evil"
    for folder in (outside, evil, outside / "deep"):
        folder.mkdir()
        (folder / "secret.txt").write_text(f"{MARKER} in {folder.name}\n")
    (outside / "passwd").write_text(f"{MARKER} root:x:0:0\n")
    (workspace / "inside.txt").write_text("inside\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "inner.txt").write_text("inner\n")
    links = {
        "link_out": "../outside", "link_file": "../outside/secret.txt", "dangling": "../outside/new.txt",
        "link_evil": "../ws-evil", "loop": "loop", "rel_ok": "sub", "abs_out": str(outside),
        "sub/up": "../..", "sub/dangling_abs": str(outside / "made.txt"), "proc_root": "/proc/self/root",
    }
    for name, target in links.items():
        os.symlink(target, workspace / name)
    (workspace / "tree" / "a").mkdir(parents=True)
    (workspace / "tree" / "a" / "f.txt").write_text("f\n")
    return outside, evil


def corpus(workspace: Path, outside: Path, evil: Path) -> list[str]:
    ws = str(workspace)
    targets = [
        "../outside/secret.txt", "../ws-evil/secret.txt", "../outside/new.txt", "../outside", "..", "../..",
        "../outside/deep/../secret.txt", "../ws-evil", "../ws-evil/new.txt", "../../../../../../../../etc/passwd",
        "..//outside//secret.txt", "../outside/./secret.txt", "../outside/secret.txt/", "../outside/deep/",
        "link_out/secret.txt", "link_out/new.txt", "link_out", "link_out/deep/secret.txt", "link_file",
        "dangling", "link_evil/secret.txt", "link_evil/new.txt", "sub/up/outside/secret.txt",
        "sub/up/ws-evil/secret.txt", "sub/dangling_abs", "abs_out/secret.txt", "abs_out/new.txt", "loop",
        "loop/x", f"proc_root{outside}/secret.txt", "link_out/../outside/secret.txt",
        "rel_ok/../../outside/secret.txt", "sub/../../ws-evil/secret.txt",
    ]
    prefixes = ["", "./", "sub/../", "./sub/./../", ".//", "rel_ok/../", "nonexistent/../", "sub/inner.txt/../../",
                "sub/../../ws/", "link_out/../ws/", "sub/up/ws/"]
    paths = [p + t for p in prefixes for t in targets]
    absolute = [
        f"{outside}/secret.txt", f"{outside}/new.txt", str(outside), f"{evil}/secret.txt", f"{evil}/new.txt",
        f"{ws}-evil/secret.txt", f"{ws}-evil", f"{ws}/../outside/secret.txt", f"{ws}/../ws-evil/new.txt",
        f"{ws}/link_out/secret.txt", f"{ws}/link_file", f"{ws}/dangling", f"{ws}/sub/up/outside/passwd",
        f"/proc/self/root{outside}/secret.txt", f"/proc/self/root{outside}/new.txt", f"/proc/self/cwd/../{outside.name}",
        f"/proc/self/root{evil}/secret.txt", f"/proc/{os.getpid()}/root{outside}/passwd",
        "/etc/passwd", "/", "//", "/tmp", "/proc/self/environ", "/dev/null", "/dev/zero", f"//{outside}/secret.txt",
        f"{ws}/{'../' * 40}{str(outside).lstrip('/')}/secret.txt", f"{ws}\x00/inside.txt",
    ]
    nul = ["inside.txt\x00../../outside/secret.txt", "\x00", "../outside/secret.txt\x00", "sub\x00/../..",
           f"{outside}/secret.txt\x00.txt", "\x00/etc/passwd"]
    long_names = ["a" * 300, "a" * 300 + "/../../outside/secret.txt", "x/" * 1500 + "y", "../" * 2000 + "outside",
                  "sub/" + "b" * 255 + "/../../../outside/secret.txt", "é" * 200, "c" * 5000]
    lookalikes = [
        "\u2024\u2024/outside/secret.txt", "\uff0e\uff0e/outside/secret.txt", "..\u2215outside\u2215secret.txt",
        "\uff0e\uff0e\uff0foutside\uff0fsecret.txt", "%2e%2e/outside/secret.txt", "..%2foutside%2fsecret.txt",
        "..\\outside\\secret.txt", "..\\..\\outside", "~/outside/secret.txt", "~", "~root/.bashrc", "$HOME/x",
        "`pwd`/x", "$(pwd)/../outside", ".\u200b./outside/secret.txt", "..\u0338/outside", "\u2026/outside",
        "．/．．/outside/secret.txt", "..;/outside/secret.txt", "file:../outside/secret.txt",
        "..%00/outside", "%252e%252e/outside", "..\t/outside", " ../outside/secret.txt", "../outside /secret.txt",
    ]
    variants = [p + "/." for p in targets[:12]] + [p + "/.." for p in targets[:12]]
    found = list(dict.fromkeys(paths + absolute + nul + long_names + lookalikes + variants))
    return found


def _ops(path: str) -> list[tuple[Any, dict[str, Any]]]:
    return [
        (ReadFile(), {"path": path}),
        (ListDir(), {"path": path, "depth": 2}),
        (SearchFiles(), {"path": path, "regex": "CANARY"}),
        (WriteFile(), {"path": path, "content": "PWNED"}),
        (EditFile(), {"path": path, "edits": [{"old": " in outside", "new": "PWNED"}]}),
        (RunCommand(), {"command": "pwd", "cwd": path, "timeout_seconds": 5}),
        # The path operations, with the hostile path on either side.
        (MovePath(), {"source": path, "destination": "moved-in.txt"}),
        (MovePath(), {"source": "inside.txt", "destination": path}),
        (CopyPath(), {"source": path, "destination": "copied-in.txt"}),
        (CopyPath(), {"source": "inside.txt", "destination": path}),
        (CopyPath(), {"source": "tree", "destination": path}),  # a whole folder, to a hostile place
        (DeletePath(), {"path": path}),
        (CreateFolder(), {"path": path}),
    ]


_WRITERS = {"write_file", "edit_file", "move_path", "copy_path", "delete_path", "create_folder"}


@pytest.mark.slow
async def test_traversal_corpus_never_escapes(workspace: Path, make_ctx: MakeCtx) -> None:
    outside, evil = build_world(workspace)
    cases = corpus(workspace, outside, evil)
    assert len(cases) >= 400, len(cases)
    before = (tree_hash(outside), tree_hash(evil))
    operations = escapes = 0
    for path in cases:
        for tool, params in _ops(path):
            result = await run_tool(tool, params, make_ctx(tool))
            operations += 1
            shown = result.output + result.error
            if MARKER in shown:
                escapes += 1
            if result.success and tool.name == "run_command":
                cwd = result.output.splitlines()[1]
                assert Path(cwd).resolve().is_relative_to(workspace), (path, cwd)
            for change in result.file_changes:
                assert Path(change.path).is_relative_to(workspace), (path, change.path)
            if tool.name in _WRITERS and (tree_hash(outside), tree_hash(evil)) != before:
                escapes += 1
                pytest.fail(f"{tool.name} changed the canary with path {path!r}")
    assert escapes == 0
    assert (tree_hash(outside), tree_hash(evil)) == before
    assert operations == len(cases) * len(_ops(""))
    print(f"traversal corpus: {len(cases)} paths x {len(_ops(''))} operations = {operations}, 0 escapes")


def test_folder_swapped_for_symlink_after_check_cannot_escape(workspace: Path) -> None:
    outside, _ = build_world(workspace)
    before = tree_hash(outside)
    target = fs.resolve("sub/inner.txt", (workspace,))
    fresh = fs.resolve("sub/secret.txt", (workspace,))
    os.rename(workspace / "sub", workspace / "sub-real")
    os.symlink(outside, workspace / "sub")
    with pytest.raises(ToolError, match="symbolic link"):
        atomic_write(target, b"PWNED", expect_sha256=sha256(b"inner\n"))
    with pytest.raises(ToolError):
        atomic_write(fresh, b"PWNED", expect_sha256=ABSENT, create_parents=True)
    with pytest.raises(ToolError):
        fs.read_file_bytes(fs.Resolved(workspace / "sub" / "secret.txt", workspace), limit=100)
    assert tree_hash(outside) == before


def test_file_swapped_for_symlink_after_check_is_refused(workspace: Path) -> None:
    outside, _ = build_world(workspace)
    before = tree_hash(outside)
    target = fs.resolve("inside.txt", (workspace,))
    os.unlink(workspace / "inside.txt")
    os.symlink(outside / "secret.txt", workspace / "inside.txt")
    with pytest.raises(ToolError, match="symbolic link"):
        atomic_write(target, b"PWNED", expect_sha256=sha256(b"inside\n"))
    assert tree_hash(outside) == before
    assert os.path.islink(workspace / "inside.txt")  # the link itself was not replaced either


async def test_racing_symlink_flips_never_let_a_write_escape(workspace: Path, make_ctx: MakeCtx) -> None:
    """Another thread keeps turning ``sub`` into a real folder or a link to the canary and back."""
    outside, _ = build_world(workspace)
    before = tree_hash(outside)
    stop = threading.Event()
    flips = 0

    def flipper() -> None:
        nonlocal flips
        while not stop.is_set():
            try:
                os.rename(workspace / "sub", workspace / f".grave-{flips}")
            except FileNotFoundError:
                pass
            try:
                if flips % 2:
                    os.symlink(outside, workspace / "sub")
                else:
                    os.mkdir(workspace / "sub")
            except FileExistsError:  # the tool created "sub" itself in the gap; move it aside next time
                pass
            flips += 1
            # Let the writes run between flips: a loop that never lets go of the GIL starved them
            # (the test took from 5 s to over 300 s, as the scheduler chose). The race stays: the
            # flips run on their own thread while each write walks its path.
            time.sleep(0)

    thread = threading.Thread(target=flipper)
    thread.start()
    try:
        outcomes = {True: 0, False: 0}
        for index in range(300):
            params = {"path": f"sub/race-{index}.txt", "content": "x"}
            result = await run_tool(WriteFile(), params, make_ctx("write_file"))
            outcomes[result.success] += 1
    finally:
        stop.set()
        thread.join()
    assert flips > 10
    assert tree_hash(outside) == before
    assert not list(outside.rglob("race-*"))
    assert sum(outcomes.values()) == 300


#: Links planted inside a folder, each alone in its own copy of the folder.
_INSIDE_LINKS = {
    "to_outside_folder": "../../../outside", "to_outside_file": "../../../outside/secret.txt",
    "to_evil": "../../../ws-evil", "up_and_out": "../../..", "absolute": "/", "proc_root": "/proc/self/root",
    "dangling_outside": "../../../outside/new.txt", "to_inside": "../../inside.txt", "self_loop": "self_loop",
}


@pytest.mark.parametrize("link", sorted(_INSIDE_LINKS))
async def test_folders_holding_links_are_refused_and_never_followed(workspace: Path, make_ctx: MakeCtx,
                                                                    link: str) -> None:
    outside, evil = build_world(workspace)
    folder = workspace / "trap"
    (folder / "deep" / "er").mkdir(parents=True)
    (folder / "deep" / "plain.txt").write_text("plain\n")
    os.symlink(_INSIDE_LINKS[link], folder / "deep" / "er" / link)
    before = (tree_hash(outside), tree_hash(evil), tree_hash(folder))
    for tool, params in ((MovePath(), {"source": "trap", "destination": "moved"}),
                         (CopyPath(), {"source": "trap", "destination": "copied"}),
                         (DeletePath(), {"path": "trap"}),
                         (MovePath(), {"source": "trap/deep", "destination": "deep-moved"})):
        result = await run_tool(tool, params, make_ctx(tool))
        assert not result.success and "symbolic link" in result.error, (tool.name, link, result.error)
        assert MARKER not in result.output + result.error
        assert (tree_hash(outside), tree_hash(evil), tree_hash(folder)) == before
    assert not (workspace / "moved").exists() and not (workspace / "copied").exists()
    assert not [p for p in workspace.iterdir() if ".echo-desk-copy-" in p.name]
