"""A stdio server whose configuration names no working folder works in a folder of its own,
never in the folder Echo Desk was started from (a workspace, started from a terminal there)."""

from __future__ import annotations

import os
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
    own = own_folder_of("t")
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


def test_own_folders_are_distinct_one_level_below_and_kept_for_plain_names() -> None:
    names = ["a b", "a/b", "a_b", "a\\b", "..", ".", "...", "文件", "网页", "x" * 64, "x" * 63 + "!", "_"]
    folders = [own_folder_of(name) for name in names]
    assert len(set(folders)) == len(names), folders
    parent = own_folder_of("a_b").parent
    assert all(folder.parent == parent and folder.name not in (".", "..") for folder in folders)
    # A name of only letters, digits and _.- keeps the folder it always had.
    assert own_folder_of("a_b").name == "a_b" and own_folder_of("my-server.1").name == "my-server.1"
