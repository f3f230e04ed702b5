"""A full disk under Revert's copies: the change the person approved is not made unless Revert
could undo it, and nothing half-written is left behind to take the room."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from echo_desk.agent.host import ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.i18n import shown
from echo_desk.runtime import Runtime
from echo_desk.store.blobs import BlobStore
from echo_desk.store.settings import ToolPolicy


def _no_space(*_args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_copy_the_disk_refuses_half_way_leaves_no_partial_file(tmp_path: Path, monkeypatch) -> None:
    blobs = BlobStore(tmp_path / "blobs")
    written: list[int] = []
    real_write = os.write

    def write_then_full(fd: int, data: bytes) -> int:
        if written:
            _no_space()
        written.append(1)
        return real_write(fd, bytes(data[:10]))

    monkeypatch.setattr(os, "write", write_then_full)
    with pytest.raises(OSError, match="No space left"):
        blobs.put(b"x" * 100)
    monkeypatch.undo()
    assert written and [p for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize("policy", [ToolPolicy.ASK, ToolPolicy.ALWAYS], ids=["asked", "run-unasked"])
async def test_an_edit_whose_copy_cannot_be_kept_changes_nothing(runtime: Runtime, scope: Scope, host: ScriptedHost,
                                                                 workspace: Path, monkeypatch, policy) -> None:
    """Both ways a call runs (after the person's yes on the caller's loop; unasked, on the tool's
    worker): the file keeps its content, the model and the person are told why."""
    target = workspace / "notes.txt"
    target.write_text("before\n")
    runtime.settings.set_tool("write_file", policy=policy)
    assert runtime.undo is not None
    monkeypatch.setattr(runtime.undo.blobs, "put", _no_space)
    call = ToolCall(id="w1", name="write_file", arguments=json.dumps({"path": "notes.txt", "content": "after\n"}))
    envelope = await runtime.dispatcher.execute_tool(call, scope, host)
    assert not envelope.ok and target.read_text() == "before\n"
    assert envelope.error.startswith("nothing was changed: Echo Desk could not keep a copy of")
    assert shown(envelope.error) == (f"Nothing was changed: Echo Desk could not keep a copy of {target} for Revert "
                                     "(the disk is full).")
    assert runtime.undo.changes.listing() == []
