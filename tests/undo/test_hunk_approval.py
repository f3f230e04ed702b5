"""Per-hunk approval through the real pipeline: only the kept hunks are written, the model is
told which were declined, a selection that does not match what was shown is refused, and a
file changed after the preview is never written (100/100)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from echo_desk.agent.host import ApprovalChoice, ApprovalDecision, ApprovalRequest, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.common.diffs import unified_diff
from echo_desk.common.hunks import bind_selection
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SettingsStore
from echo_desk.tools import (
    FileChange,
    FileChangeKind,
    RiskLevel,
    Tool,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)

OLD = "".join(f"line {i}\n" for i in range(40))
NEW = OLD.replace("line 2\n", "two\n").replace("line 20\n", "twenty\n").replace("line 37\n", "thirty-seven\n")


@dataclass
class SelectingHost(ScriptedHost):
    """Allows with a hunk selection, optionally doing something first (another program writing)."""

    pick: Callable[[ApprovalRequest], Mapping[str, tuple[str, ...]]] = lambda r: {}
    before_answer: Callable[[], None] = lambda: None
    bind: bool = True
    seen: list[ApprovalRequest] = field(default_factory=list)

    async def request_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.seen.append(request)
        self.before_answer()
        selection = dict(self.pick(request))
        binding = bind_selection(request.binding, selection) if self.bind else request.binding
        return ApprovalDecision(call_id=request.call_id, choice=ApprovalChoice.ALLOW_ONCE, binding=binding,
                                selection=selection, message="keep the old line 20")


def _ids(request: ApprovalRequest, *positions: int) -> tuple[str, ...]:
    """The ids of the shown hunks at ``positions`` (of the first file change)."""
    return tuple(request.file_changes[0].hunks[i].id for i in positions)


def _write(cid: str, content: str = NEW) -> ToolCall:
    return ToolCall(id=cid, name="write_file", arguments=json.dumps({"path": "f.txt", "content": content}))


async def test_only_the_kept_hunks_are_written_and_the_model_is_told(runtime: Runtime, scope: Scope,
                                                                     workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)
    host = SelectingHost(pick=lambda r: {r.file_changes[0].path: _ids(r, 0, 2)})
    env = await runtime.dispatcher.execute_tool(_write("c1"), scope, host)
    assert env.ok, env.error
    assert target.read_text() == OLD.replace("line 2\n", "two\n").replace("line 37\n", "thirty-seven\n")
    assert "approved only hunk(s) 1, 3" in env.content and "-line 20\n+twenty\n" in env.content
    assert "old lines 18-24" in env.content and "keep the old line 20" in env.content
    assert "+two" in env.file_changes[0].diff and "twenty" not in env.file_changes[0].diff
    # The undo journal kept the real before: Revert gives the original back.
    assert runtime.reverter is not None
    assert runtime.reverter.apply(runtime.reverter.plan_calls(["c1"])).complete
    assert target.read_text() == OLD


async def test_no_hunk_kept_leaves_the_file_untouched(runtime: Runtime, scope: Scope, workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)
    env = await runtime.dispatcher.execute_tool(_write("c1"), scope,
                                                SelectingHost(pick=lambda r: {r.file_changes[0].path: ()}))
    assert env.ok and "nothing was written" in env.content and target.read_text() == OLD


async def test_a_selection_that_does_not_match_what_was_shown_is_refused(runtime: Runtime, scope: Scope,
                                                                          workspace: Path) -> None:
    target = workspace / "f.txt"
    target.write_text(OLD)
    for host in (SelectingHost(pick=lambda r: {r.file_changes[0].path: (*_ids(r, 0), "h4-000000000000")}),  # not shown
                 SelectingHost(pick=lambda r: {r.file_changes[0].path: (0,)}),  # type: ignore[dict-item]  # not an id
                 SelectingHost(pick=lambda r: {str(workspace / "other.txt"): _ids(r, 0)}),
                 SelectingHost(pick=lambda r: {r.file_changes[0].path: _ids(r, 0)}, bind=False)):  # binding not extended
        env = await runtime.dispatcher.execute_tool(_write("c1"), scope, host)
        assert not env.ok and env.error_kind is not None and env.error_kind.value == "rejected", env.error
        assert target.read_text() == OLD


async def test_a_file_changed_after_the_preview_is_never_written(runtime: Runtime, scope: Scope,
                                                                 workspace: Path) -> None:
    target = workspace / "f.txt"
    written = 0
    for trial in range(100):
        target.write_text(OLD)
        outside = OLD.replace(f"line {trial % 40}\n", f"outside {trial}\n")
        host = SelectingHost(pick=lambda r: {r.file_changes[0].path: _ids(r, 0, 2)},
                             before_answer=lambda text=outside: target.write_text(text))
        env = await runtime.dispatcher.execute_tool(_write(f"c{trial}"), scope, host)
        written += env.ok
        assert not env.ok and "changed since preview" in env.error
        assert target.read_text() == outside
    assert written == 0


class WholeFileTool(Tool):
    """A plugin write tool with a diff preview that cannot write part of it."""

    name = "whole_file"
    description = "Replace a file."
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {"text": {"type": "string"}},
                                            "required": ["text"]}
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})

    def _path(self, ctx: ToolExecutionContext) -> Path:
        return ctx.workspace_roots[0] / "f.txt"

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        path = self._path(ctx)
        diff = unified_diff(path.read_text(), str(params["text"]), str(path))
        return ToolPreview(file_changes=(FileChange(path=str(path), kind=FileChangeKind.MODIFY, before_sha256="x",
                                                    after_sha256="y", diff=diff),))

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        self._path(ctx).write_text(str(params["text"]))
        return ToolResult.ok("wrote")


async def test_a_tool_that_cannot_write_part_never_gets_a_partial_approval(tmp_path: Path, scope: Scope,
                                                                           workspace: Path) -> None:
    runtime = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg2"), data_dir=tmp_path / "d2",
                             with_builtins=False, with_plugins=False, extra_tools=[WholeFileTool()])
    try:
        (workspace / "f.txt").write_text(OLD)
        host = SelectingHost(pick=lambda r: {r.file_changes[0].path: ("h1-000000000000",)})
        env = await runtime.dispatcher.execute_tool(
            ToolCall(id="c1", name="whole_file", arguments=json.dumps({"text": NEW})), scope, host)
        assert not host.seen[0].hunk_selectable
        assert not env.ok and "cannot write part" in env.error and (workspace / "f.txt").read_text() == OLD
    finally:
        runtime.close()
