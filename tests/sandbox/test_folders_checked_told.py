"""A real sandboxed ``run_command`` in a workspace of more folders than the guard's search reads
(``repositories.MAX_FOLDERS``): the model's result says that only the first 1,000 folders were
checked for planted files, the card's facts keep the bound, and the result carries it for the
audit row (``ToolResult.folders_checked``). In a small workspace none of it is said. Before, only
``metadata.sandbox.search_cut`` held it: the model was not told."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from echo_desk import sandbox
from echo_desk.sandbox import repositories
from echo_desk.tools import ToolExecutionContext
from tests.run_command_helpers import run_command_tool

pytestmark = pytest.mark.skipif(not sandbox.probe().available, reason="bwrap cannot run here")

TOLD = "only the first 1,000 folders of the workspace were checked for planted files"


async def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ws: Path) -> tuple[str, dict[str, object], int]:
    monkeypatch.setenv("ECHO_DESK_DATA_DIR", str(tmp_path / "data"))
    repositories.forget()
    tool = run_command_tool()
    ctx = ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="run_command", scope_id="s",
                               workspace_roots=(ws,), write_roots=(ws,))
    params = {"command": "true"}
    ctx.preview = await tool.preview(params, ctx)
    result = await tool.execute(params, ctx)
    assert result.success, result.error
    facts = result.metadata["sandbox"]
    assert isinstance(facts, dict)
    return result.output, facts, result.folders_checked


async def test_a_workspace_past_the_bound_is_said_to_the_model_the_card_and_the_audit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    for i in range(repositories.MAX_FOLDERS + 50):
        (ws / f"d{i:04}").mkdir(parents=True)
    output, facts, folders_checked = await _run(tmp_path, monkeypatch, ws)
    assert TOLD in output and output.count(TOLD) == 1
    assert facts["search_cut"] is True and facts["folders_checked"] == 1000
    assert folders_checked == 1000


async def test_a_small_workspace_says_nothing_of_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    output, facts, folders_checked = await _run(tmp_path, monkeypatch, ws)
    assert "folders" not in output and facts["search_cut"] is False and "folders_checked" not in facts
    assert folders_checked == 0
