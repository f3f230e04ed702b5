"""A hard-linked file shares its inode (content, mode, owner) with names the person may not see:
what a file tool does to that name must not change the others."""

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


def _outside(tmp_path: Path, name: str = "shared.html") -> Path:
    folder = tmp_path / "www"
    folder.mkdir(exist_ok=True)
    shared = folder / name
    shared.write_text("<p>served</p>\n")
    os.chmod(shared, 0o644)  # read by a web server, another user
    return shared


async def test_deleting_a_hard_linked_file_leaves_the_other_names_mode_alone(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, tmp_path: Path) -> None:
    shared = _outside(tmp_path)
    os.link(shared, workspace / "page.html")
    env = await _call(runtime, scope, host, "delete_path", {"path": "page.html"}, "c1")
    assert env.ok, env.error
    assert not (workspace / "page.html").exists()
    # The person approved deleting page.html; /…/www/shared.html is another name of the same file.
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644
    assert shared.read_text() == "<p>served</p>\n"
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete, (report.kept, report.failed)
    assert (workspace / "page.html").read_text() == "<p>served</p>\n"
    assert stat.S_IMODE((workspace / "page.html").stat().st_mode) == 0o644


async def test_deleting_a_folder_with_a_hard_linked_file_leaves_the_other_names_mode_alone(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, tmp_path: Path) -> None:
    shared = _outside(tmp_path)
    (workspace / "site").mkdir()
    os.link(shared, workspace / "site" / "index.html")
    (workspace / "site" / "own.txt").write_text("mine\n")
    env = await _call(runtime, scope, host, "delete_path", {"path": "site"}, "c1")
    assert env.ok, env.error
    assert not (workspace / "site").exists()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o644


async def test_writing_a_hard_linked_file_says_and_does_the_same_to_the_other_names(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, tmp_path: Path) -> None:
    shared = _outside(tmp_path)
    os.link(shared, workspace / "page.html")
    env = await _call(runtime, scope, host, "write_file", {"path": "page.html", "content": "<p>new</p>\n"}, "c1")
    assert env.ok, env.error
    # What happens: this name gets the new text, the other name keeps what it held (a new file
    # takes this name's place) …
    assert (workspace / "page.html").read_text() == "<p>new</p>\n"
    assert shared.read_text() == "<p>served</p>\n" and shared.stat().st_nlink == 1
    # … and what the person read before allowing it says so, rather than leaving them to guess
    # that "the file" both names share would change for both.
    [target] = host.requests[0].targets
    assert [p.english for p in target.protections] == [
        "protected: hard-linked (2 names share this file): the other names keep what they hold now"]
