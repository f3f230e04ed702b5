"""Read-only file tools: ``read_file`` and ``list_dir``."""

from __future__ import annotations

import os
import stat
from typing import Annotated

from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool
from echo_desk.common import fs
from echo_desk.common.diffs import named
from echo_desk.common.textcodec import decode, split_keep
from echo_desk.i18n import for_person
from echo_desk.tools import (
    N_,
    READS,
    ErrorKind,
    RiskLevel,
    ToolError,
    ToolExecutionContext,
    ToolResult,
    ToolRole,
    counted,
)

MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_OUTPUT_CHARS = 100_000
MAX_LINES = 2000


class ReadFileArguments(Arguments):
    path: Annotated[fs.FilePath, READS]
    start_line: Annotated[int, Field(ge=1, description="First line to return (1-based).")] = 1
    max_lines: Annotated[int, Field(ge=1, le=MAX_LINES, description="How many lines to return at most.")] = 500


class ReadFile(BuiltinTool[ReadFileArguments]):
    name = "read_file"
    role = ToolRole.LOOK
    description = (
        "Read a text file inside the workspace. Returns the text exactly (no line numbers) with a "
        "header giving the line range, encoding and line endings. Use start_line/max_lines to read "
        "long files in parts. Binary files are refused."
    )
    arguments = ReadFileArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 30.0
    idempotent = True
    capabilities = frozenset({"files.read"})
    title = N_("Read file")
    catalog_description = N_("Reads a text file in your workspace, or a range of its lines.")

    async def execute_parsed(self, args: ReadFileArguments, ctx: ToolExecutionContext) -> ToolResult:
        target = fs.resolve(args.path, ctx.workspace_roots)
        start, count = args.start_line, args.max_lines
        data, st = fs.read_file_bytes(target, limit=MAX_FILE_BYTES)
        if len(data) > MAX_FILE_BYTES:
            raise ToolError(for_person(
                f"{target} is {st.st_size} bytes; read_file reads files up to {MAX_FILE_BYTES} bytes. "
                "Use search_files to find the part you need, or run_command with head/tail/sed.",
                N_("{path} is {size} bytes; a file is read only up to {limit} bytes."),
                path=str(target), size=st.st_size, limit=MAX_FILE_BYTES), kind=ErrorKind.BUSINESS)
        text, fmt = decode(data, target)
        lines = split_keep(text)
        total = len(lines)
        if total and start > total:
            raise ToolError(for_person(f"{target} has {total} lines; start_line {start} is past the end",
                                       N_("{path} has {total} lines; line {start} is past the end."),
                                       path=str(target), total=total, start=start), kind=ErrorKind.BUSINESS)
        chosen: list[str] = []
        size = 0
        for line in lines[start - 1 : start - 1 + count]:
            if chosen and size + len(line) > MAX_OUTPUT_CHARS:
                break
            chosen.append(line[:MAX_OUTPUT_CHARS])
            size += len(chosen[-1])
        end = start - 1 + len(chosen)
        # A whole file says "5 lines": from "lines 1-5 of 5" the 0.5B model counted 15.
        span = (f"{total} lines" if start == 1 and end == total
                else f"lines {start if chosen else 0}-{end} of {total}")
        header = f"[{named(target)} — {span} — {fmt.label}, {fmt.newline_label}]"
        body = "".join(chosen)
        if end < total:
            body += (f"\n[truncated: showing lines {start}-{end} of {total}. "
                     f"Call read_file with start_line={end + 1} to read further.]")
        meta = {"encoding": fmt.label, "newline": fmt.newline_label, "total_lines": total,
                "start_line": start, "end_line": end, "path": str(target), **counted(lines=total)}
        return ToolResult.ok(f"{header}\n{body}", metadata=meta)


def _describe(raw: str, st: os.stat_result) -> str:
    name = named(raw)  # one row per entry, whatever its name holds
    if stat.S_ISDIR(st.st_mode):
        return f"dir   {name}/"
    if stat.S_ISLNK(st.st_mode):
        return f"link  {name} (symbolic link, not followed)"
    if stat.S_ISREG(st.st_mode):
        return f"file  {name}  {st.st_size} bytes"
    return f"other {name}"


class ListDirArguments(Arguments):
    path: Annotated[str, fs.path_argument("Folder path, relative to the workspace or absolute inside it."), READS] = "."
    depth: Annotated[int, Field(ge=1, le=5, description="How many levels to list.")] = 1
    max_entries: Annotated[int, Field(ge=1, le=2000, description="Stop after this many entries.")] = 200


class ListDir(BuiltinTool[ListDirArguments]):
    name = "list_dir"
    role = ToolRole.LIST
    description = (
        "List a folder inside the workspace: one entry per line with its type (file, dir, link) "
        "and size. depth > 1 lists sub-folders too (symbolic links are not followed; .git is not entered)."
    )
    arguments = ListDirArguments
    risk_level = RiskLevel.READ
    timeout_seconds = 30.0
    idempotent = True
    capabilities = frozenset({"files.read"})
    title = N_("List folder")
    catalog_description = N_("Lists the files and folders in a folder of your workspace, with their sizes.")

    async def execute_parsed(self, args: ListDirArguments, ctx: ToolExecutionContext) -> ToolResult:
        target = fs.resolve(args.path, ctx.workspace_roots)
        depth, limit = args.depth, args.max_entries
        fs.require_dir(target)
        rows: list[str] = []
        try:
            fd = fs.open_dir(target.root, target.parts)
        except OSError as exc:
            raise fs.os_error(exc, target, "list") from exc
        try:
            complete = self._walk(fd, "", depth, limit, rows, ctx)
        finally:
            os.close(fd)
        text = f"[{named(target)}]\n" + ("\n".join(rows) if rows else "(empty folder)")
        if not complete:
            text += f"\n[stopped after {limit} entries; list a sub-folder or raise max_entries]"
        folders = sum(row.startswith("dir ") for row in rows)
        files = sum(row.startswith("file ") for row in rows)
        meta = {"entries": len(rows), "complete": complete, "path": str(target)}
        if complete:  # a cut listing counted only what it showed
            meta |= counted(entries=len(rows), files=files, folders=folders)
        return ToolResult.ok(text, metadata=meta)

    def _walk(self, fd: int, prefix: str, depth: int, limit: int, rows: list[str],
              ctx: ToolExecutionContext) -> bool:
        ctx.check_cancelled()
        with os.scandir(fd) as it:
            entries = sorted(it, key=lambda e: e.name)
        for entry in entries:
            if len(rows) >= limit:
                return False
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            rows.append(_describe(prefix + entry.name, st))
            if depth > 1 and stat.S_ISDIR(st.st_mode) and entry.name != ".git":
                try:
                    sub = os.open(entry.name, fs.DIR_FLAGS, dir_fd=fd)
                except OSError:
                    continue
                try:
                    if not self._walk(sub, f"{prefix}{entry.name}/", depth - 1, limit, rows, ctx):
                        return False
                finally:
                    os.close(sub)
        return True
