"""Helpers shared by the built-in tool tests (importable because conftest puts this folder on sys.path)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from echo_desk.tools import Answer, NullToolHost, Question, TodoItem, Tool, ToolExecutionContext, ToolResult


@dataclass
class RecordingHost(NullToolHost):
    """Records every host call; answers questions from ``answers`` and editor requests from ``release``."""

    answers: list[Answer] = field(default_factory=list)
    release: bool = True
    questions: list[Question] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    mutated: list[str] = field(default_factory=list)
    acquired: list[str] = field(default_factory=list)
    released: list[str] = field(default_factory=list)
    activity: list[str | None] = field(default_factory=list)
    todos: list[tuple[str, tuple[TodoItem, ...]]] = field(default_factory=list)

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        return self.answers.pop(0) if self.answers else Answer(action="cancel")

    async def acquire_editor(self, path: str) -> bool:
        self.acquired.append(path)
        return self.release

    def release_editor(self, path: str) -> None:
        self.released.append(path)

    def file_mutated(self, path: str) -> None:
        self.mutated.append(path)

    def set_activity(self, text: str | None) -> None:
        self.activity.append(text)

    def tool_output(self, call_id: str, text: str) -> None:
        self.outputs.append(text)

    def todos_updated(self, scope_id: str, todos: tuple[TodoItem, ...]) -> None:
        self.todos.append((scope_id, todos))


async def run_tool(tool: Tool, params: dict[str, Any], ctx: ToolExecutionContext, *,
                   with_preview: bool = True) -> ToolResult:
    """What the dispatcher does for an approved call: preview, then execute with that preview."""
    if with_preview and tool.has_preview:
        try:
            ctx.preview = await tool.preview(params, ctx)
        except Exception as exc:  # preview refusal = the call fails the same way
            from echo_desk.tools import ErrorKind, ToolError

            if isinstance(exc, ToolError):
                return ToolResult.fail(exc.kind, exc.message)
            return ToolResult.fail(ErrorKind.INTERNAL, repr(exc))
    return await tool.execute(params, ctx)


def tree_hash(root: Path) -> str:
    """Hash of names, types, sizes, modes, link targets and contents below ``root``."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            digest.update(f"{os.path.relpath(full, root)}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}|".encode())
            if os.path.islink(full):
                digest.update(os.readlink(full).encode())
            elif os.path.isfile(full):
                with open(full, "rb") as fh:
                    digest.update(fh.read())
    return digest.hexdigest()


MakeCtx = Callable[..., ToolExecutionContext]
