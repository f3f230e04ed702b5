"""A stdio server whose configuration names no working folder works in a folder of its own,
never in the folder Echo Desk was started from (a workspace, started from a terminal there)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from echo_desk.mcp import ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.mcp.own_folder import own_folder_of
from tests.mcp.helpers import TINY_SERVER


def _worked_in(report: Path, folder: Path) -> bool:
    """Whether the server wrote that it worked in ``folder``."""
    return os.path.realpath(report.read_text().strip()) == os.path.realpath(folder)


def _interpreter() -> str:
    return os.path.realpath(sys.executable)  # itself, not a venv's link to it


def _reporting(where: Path | str, cwd: str = "") -> dict[str, object]:
    """A real server (the tiny one) started by a shell that first writes the folder it works in to
    ``where``. The interpreter, the server and ``where`` are arguments of the shell, not words of
    its line: the sandbox keeps in view what a server runs from under /tmp only when it sees it."""
    python = os.path.realpath(sys.executable)  # itself, not a venv's link to it
    line = 'pwd > "$2"; exec "$0" -S -E "$1"'
    return {"command": "/bin/sh", "args": ["-c", line, python, str(TINY_SERVER), str(where)],
            **({"cwd": cwd} if cwd else {})}


@pytest.mark.parametrize("sandbox", [False, True], ids=["outside-sandbox", "in-sandbox"])
async def test_a_server_without_a_cwd_works_in_its_own_folder_not_echo_desks(
        make_manager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: bool) -> None:
    if sandbox:
        from echo_desk import sandbox as sandbox_module
        if not sandbox_module.availability().available:
            pytest.skip("the sandbox cannot run here")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    monkeypatch.chdir(workspace)  # Echo Desk started from a terminal in a workspace
    report = tmp_path / "out" / "pwd.txt"
    report.parent.mkdir()
    # In the sandbox the server may write only its own folder: it reports there.
    raw = {**_reporting("pwd.txt"), "sandbox": True} if sandbox else _reporting(report)
    manager = make_manager({"t": parse_server("t", raw)})
    start = manager.start_request("t")
    assert start is None  # approved by the fixture: what it was shown is checked below
    status = await manager.start("t")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    own = own_folder_of("t", sandboxed=sandbox)
    written = own / "pwd.txt" if sandbox else report
    assert _worked_in(written, own) and not _worked_in(written, workspace)
    assert oct(os.stat(own).st_mode & 0o777) == oct(0o700)


async def test_a_servers_own_cwd_is_kept_and_the_start_dialog_shows_where_it_will_work(
        make_manager, tmp_path: Path) -> None:
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    report = tmp_path / "pwd.txt"
    manager = make_manager({"mine": parse_server("mine", _reporting(report, str(chosen))),
                            "own": parse_server("own", _reporting(tmp_path / "other.txt"))}, approve=False)
    # The first-start dialog names the folder each will work in, the one chosen or its own.
    assert manager.start_request("mine").cwd == str(chosen)
    assert manager.start_request("own").cwd == str(own_folder_of("own"))
    manager.approve_start("mine", manager.start_request("mine").fingerprint)
    status = await manager.start("mine")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    assert _worked_in(report, chosen)


async def test_servers_whose_names_differ_only_in_other_letters_never_share_a_folder(
        make_manager, tmp_path: Path) -> None:
    # "文件" and "网页" (and "a b", "a/b", "a_b") were all the same folder ("__", "a_b"): a server
    # could leave a module there that another runs as its own. Here "文件" writes probe_server.py
    # in its folder; "网页" is started later with "python -m probe_server", which looks in the
    # folder it works in first. The plant used to run (it wrote ``ran``) instead of the real one.
    python = _interpreter()
    real = tmp_path / "installed"
    real.mkdir()
    serve = f"import runpy; runpy.run_path({str(TINY_SERVER)!r}, run_name='__main__')\n"
    (real / "probe_server.py").write_text(serve)
    ran = tmp_path / "ran"
    plant = f"open({str(ran)!r}, 'w').write('planted')\n" + serve
    planting = {"command": "/bin/sh", "args": ["-c", 'printf %s "$2" > probe_server.py; exec "$0" -S -E "$1"',
                                               python, str(TINY_SERVER), plant]}
    first = make_manager({"文件": parse_server("文件", planting)})
    assert (await first.start("文件")).state is ServerState.CONNECTED
    await first.aclose()
    second = make_manager({"网页": parse_server("网页", {"command": python, "args": ["-S", "-m", "probe_server"],
                                                        "env": {"PYTHONPATH": str(real)}})})
    status = await second.start("网页")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    assert not ran.exists(), "the other server's module ran"
    assert own_folder_of("文件") != own_folder_of("网页")


def _needs_sandbox() -> None:
    from echo_desk import sandbox as sandbox_module
    if not sandbox_module.availability().available:
        pytest.skip("the sandbox cannot run here")


@pytest.mark.skipif(shutil.which("npx") is None, reason="npx is not installed")
async def test_what_a_sandboxed_server_leaves_in_its_folder_never_runs_when_its_sandbox_is_off(
        make_manager, tmp_path: Path) -> None:
    # The same server had one folder in and out of the sandbox. In it, the server may write only
    # there: it leaves node_modules/.bin/mcp-helper. The person then turns its sandbox off, and
    # "npx -y mcp-helper" (as most servers are started) runs the local one first: the plant ran
    # with all the person's rights (it wrote ``ran``). Now the sandbox has a folder apart.
    _needs_sandbox()
    python = _interpreter()
    ran = tmp_path / "ran"
    plant = f"#!/bin/sh\necho planted > '{ran}'\n"
    planting = {"command": "/bin/sh", "args": [
        "-c", 'mkdir -p node_modules/.bin && printf %s "$2" > node_modules/.bin/mcp-helper && '
              'chmod +x node_modules/.bin/mcp-helper; exec "$0" -S -E "$1"', python, str(TINY_SERVER), plant],
        "sandbox": True}
    first = make_manager({"t": parse_server("t", planting)})
    assert (await first.start("t")).state is ServerState.CONNECTED
    await first.aclose()
    assert (own_folder_of("t", sandboxed=True) / "node_modules/.bin/mcp-helper").exists()  # kept, in its folder
    npx = {"command": "/bin/sh", "args": ["-c", 'npx --offline -y mcp-helper >&2; exec "$0" -S -E "$1"',
                                          python, str(TINY_SERVER)]}
    second = make_manager({"t": parse_server("t", npx)})
    status = await second.start("t")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    assert not ran.exists(), "what the sandboxed server left ran outside the sandbox"
    assert not (own_folder_of("t") / "node_modules").exists()


async def test_a_sandboxed_servers_folder_from_before_is_kept_under_its_new_name(make_manager) -> None:
    # Before the sandbox had a folder apart, a sandboxed server worked in <name>: what it kept
    # there (here notes.db) is in its new folder at its next start, and no longer in the old one.
    _needs_sandbox()
    before = own_folder_of("m")
    before.mkdir(parents=True)
    (before / "notes.db").write_text("kept")
    reading = {"command": "/bin/sh", "args": ["-c", 'cat notes.db > seen.txt; exec "$0" -S -E "$1"',
                                              _interpreter(), str(TINY_SERVER)], "sandbox": True}
    manager = make_manager({"m": parse_server("m", reading)})
    assert manager.start_request("m") is None
    status = await manager.start("m")
    assert status.state is ServerState.CONNECTED, (status.detail, status.stderr_tail)
    assert (own_folder_of("m", sandboxed=True) / "seen.txt").read_text() == "kept"
    assert not before.exists()


def test_a_servers_folder_in_the_sandbox_is_apart_and_outside_it_keeps_its_name() -> None:
    for name in ("t", "文件", "a@sandbox", "x" * 64):
        assert own_folder_of(name, sandboxed=True) != own_folder_of(name)
        assert own_folder_of(name, sandboxed=True).parent == own_folder_of(name).parent
    assert own_folder_of("t").name == "t" and own_folder_of("t", sandboxed=True).name == "t@sandbox"
    assert own_folder_of("t@sandbox") != own_folder_of("t", sandboxed=True)


def test_own_folders_are_distinct_one_level_below_and_kept_for_plain_names() -> None:
    names = ["a b", "a/b", "a_b", "a\\b", "..", ".", "...", "文件", "网页", "x" * 64, "x" * 63 + "!", "_"]
    folders = [own_folder_of(name) for name in names]
    assert len(set(folders)) == len(names), folders
    parent = own_folder_of("a_b").parent
    assert all(folder.parent == parent and folder.name not in (".", "..") for folder in folders)
    # A name of only letters, digits and _.- keeps the folder it always had.
    assert own_folder_of("a_b").name == "a_b" and own_folder_of("my-server.1").name == "my-server.1"
