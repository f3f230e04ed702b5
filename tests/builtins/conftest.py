"""Fixtures for the built-in tool tests: a workspace, a recording host, a context factory."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

# importlib import mode: make the shared helpers importable as a plain module.
sys.path.insert(0, str(Path(__file__).parent))

from tool_test_helpers import MakeCtx, RecordingHost

from echo_desk.tools import Tool, ToolExecutionContext


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws.resolve()


@pytest.fixture
def host() -> RecordingHost:
    return RecordingHost()


@pytest.fixture
def make_ctx(workspace: Path, host: RecordingHost) -> MakeCtx:
    def make(tool: Tool | str = "tool", *, read_only: bool = False, roots: tuple[Path, ...] | None = None,
             **kw: Any) -> ToolExecutionContext:
        name = tool if isinstance(tool, str) else tool.name
        roots = roots or (workspace,)
        return ToolExecutionContext(
            call_id=uuid.uuid4().hex, tool_name=name, scope_id="scope-1", workspace_roots=roots,
            write_roots=() if read_only else roots, read_only=read_only, host=kw.pop("host", host), **kw,
        )

    return make
