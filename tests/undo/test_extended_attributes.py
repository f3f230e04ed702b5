"""A file the tools change keeps its extended attributes: its access control list (who else may
read it), its labels and user attributes. The save replaces the file by a new one; only its
content was shown and approved, so nothing else about it may change."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.envelope import Envelope
from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime

ACL = "system.posix_acl_access"


def _acl_letting_user_read(uid: int) -> bytes:
    """A POSIX ACL (the kernel's xattr form): owner rw, user ``uid`` r, group r, mask r, other none."""
    entries = [(0x01, 6, 0xFFFFFFFF), (0x02, 4, uid), (0x04, 4, 0xFFFFFFFF), (0x10, 4, 0xFFFFFFFF),
               (0x20, 0, 0xFFFFFFFF)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


async def _call(runtime: Runtime, scope: Scope, host: ScriptedHost, name: str, args: dict[str, Any],
                cid: str) -> Envelope:
    return await runtime.dispatcher.execute_tool(ToolCall(id=cid, name=name, arguments=json.dumps(args)), scope, host)


def _attributes(path: Path) -> dict[str, bytes]:
    return {name: os.getxattr(path, name) for name in sorted(os.listxattr(path))}


async def test_an_edit_and_its_revert_keep_the_files_extended_attributes(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path) -> None:
    notes = workspace / "shared-notes.txt"
    notes.write_text("alpha\n")
    os.chmod(notes, 0o600)
    try:
        os.setxattr(notes, "user.xdg.origin.url", b"https://example.org/notes")
        os.setxattr(notes, ACL, _acl_letting_user_read(1234))  # a colleague may read it
    except OSError as exc:
        pytest.skip(f"this file system keeps no extended attributes: {exc}")
    kept = _attributes(notes)
    mode = os.stat(notes).st_mode
    env = await _call(runtime, scope, host, "edit_file",
                      {"path": "shared-notes.txt", "edits": [{"old": "alpha", "new": "beta"}]}, "c1")
    assert env.ok, env.error
    assert notes.read_text() == "beta\n"
    assert _attributes(notes) == kept and os.stat(notes).st_mode == mode
    assert runtime.reverter is not None
    report = runtime.reverter.apply(runtime.reverter.plan_calls(["c1"]))
    assert report.complete, (report.kept, report.failed)
    assert notes.read_text() == "alpha\n"
    assert _attributes(notes) == kept and os.stat(notes).st_mode == mode


async def test_an_attribute_the_new_file_cannot_keep_refuses_the_write(
        runtime: Runtime, scope: Scope, host: ScriptedHost, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    notes = workspace / "labelled.txt"
    notes.write_text("alpha\n")
    try:
        os.setxattr(notes, "user.label", b"confidential")
    except OSError as exc:
        pytest.skip(f"this file system keeps no extended attributes: {exc}")

    def refused(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "setxattr", refused)  # as a security label this process may not set
    env = await _call(runtime, scope, host, "edit_file",
                      {"path": "labelled.txt", "edits": [{"old": "alpha", "new": "beta"}]}, "c1")
    assert not env.ok and "user.label" in env.error and "nothing was written" in env.error, env.error
    assert notes.read_text() == "alpha\n" and os.getxattr(notes, "user.label") == b"confidential"
    assert os.listdir(workspace) == ["labelled.txt"]  # no temporary file left
