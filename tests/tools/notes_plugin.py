"""A third-party tool written against the public contract alone (``echo_desk.tools`` and the
standard library): it honours the person's approval of a protected target and the hunks they
kept, as the built-in file tools do."""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, ClassVar

from echo_desk.tools import (
    DiffHunk,
    ErrorKind,
    FileChange,
    FileChangeKind,
    Protection,
    ProtectionReason,
    RiskLevel,
    Target,
    Tool,
    ToolError,
    ToolExecutionContext,
    ToolPreview,
    ToolResult,
)

CONTEXT = 3  # the lines of context of the diff shown, so its @@ blocks are the hunks selected


def hunk_id(index: int) -> str:
    return f"note-hunk-{index}"


def diff_with_hunks(old: list[str], new: list[str], name: str) -> tuple[str, tuple[DiffHunk, ...]]:
    """The unified diff shown and its hunks as data (the engine never re-reads the diff's text):
    the header lines are written here, so every later ``@@`` line starts a hunk."""
    lines = list(difflib.unified_diff(old, new, name, name, n=CONTEXT))
    starts = [n for n, line in enumerate(lines) if n >= 2 and line.startswith("@@")]
    hunks = tuple(DiffHunk(id=hunk_id(k), header=lines[at].rstrip("\n"), first_line=at,
                           line_count=(starts[k + 1] if k + 1 < len(starts) else len(lines)) - at)
                  for k, at in enumerate(starts))
    return "".join(lines), hunks


def kept_hunks(old: list[str], new: list[str], chosen: Collection[str]) -> list[str]:
    """``old`` with only the ``chosen`` hunks (ids of ``diff_with_hunks``) of ``new`` applied."""
    out: list[str] = []
    position = 0
    for index, group in enumerate(difflib.SequenceMatcher(None, old, new).get_grouped_opcodes(CONTEXT)):
        if hunk_id(index) not in chosen:
            continue
        for tag, i1, i2, j1, j2 in group:
            if tag != "equal":
                out += old[position:i1] + new[j1:j2]
                position = i2
    return out + old[position:]


class EditNote(Tool):
    name = "edit_note"
    description = "Replace the text of a note file in the workspace."
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
        "required": ["path", "text"],
    }
    risk_level = RiskLevel.WRITE
    capabilities = frozenset({"files.write"})
    writes_hunk_selection = True

    def _path(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> Path:
        assert ctx.workspace is not None
        return ctx.workspace / str(params["path"])

    def _target(self, path: Path) -> Target:
        inside_git = ".git" in path.parts
        return Target(kind="path", value=str(path),
                      protections=(Protection(reason=ProtectionReason.GIT_FOLDER),) if inside_git else ())

    async def preview(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolPreview:
        path = self._path(params, ctx)
        old, new = path.read_text().splitlines(keepends=True), str(params["text"]).splitlines(keepends=True)
        diff, hunks = diff_with_hunks(old, new, str(path))
        change = FileChange(path=str(path), kind=FileChangeKind.MODIFY, before_sha256=None, after_sha256=None,
                            diff=diff, hunks=hunks)
        return ToolPreview(targets=(self._target(path),), file_changes=(change,))

    async def execute(self, params: Mapping[str, Any], ctx: ToolExecutionContext) -> ToolResult:
        path = self._path(params, ctx)
        target = self._target(path)
        if target.protections and target not in ctx.approved_protected_targets("path"):
            raise ToolError(f"not written: {path} needs the person's own approval", kind=ErrorKind.BUSINESS)
        new = str(params["text"]).splitlines(keepends=True)
        chosen = ctx.hunk_selection.of(str(path)) if ctx.hunk_selection is not None else None
        if chosen is not None:
            new = kept_hunks(path.read_text().splitlines(keepends=True), new, chosen)
        path.write_text("".join(new))
        said = ctx.hunk_selection.message if ctx.hunk_selection is not None else ""
        return ToolResult.ok(f"wrote {path}" + (f"; the person said: {said}" if said else ""))
