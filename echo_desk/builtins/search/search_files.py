"""``search_files``: find files by name (glob) and/or content (regex) under the workspace.

Walks with directory file descriptors and never follows symbolic links, skips ``.git`` and
whatever the ``.gitignore`` files on the way ignore, and stops at a result cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Annotated, Any

import pathspec
from pydantic import Field

from echo_desk.builtins.arguments import Arguments
from echo_desk.builtins.common import BuiltinTool, bad
from echo_desk.builtins.search.patterns import LineSearch, PatternError, compile_glob
from echo_desk.common import fs
from echo_desk.common.textcodec import BinaryFile, decode
from echo_desk.i18n import for_person, quoted_later
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

MAX_SCAN_BYTES = 2 * 1024 * 1024
MAX_LINE_CHARS = 200


def glob_to_regex(pattern: str) -> Any:
    """A glob as a linear-time pattern (see ``patterns``); its ``match`` covers the whole name."""
    try:
        return compile_glob(pattern)
    except PatternError as exc:
        raise bad(for_person(str(exc), N_("The pattern {glob} cannot be used: {error}"),
                             glob=quoted_later(pattern), error=str(exc))) from exc


def _is_regular_file(path: Path) -> bool:
    """``path`` is a regular file itself (a symbolic link is not followed: it is not one)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _label(found: Path, anchor: Path | None) -> str:
    """How a found file is named in the result: relative to the workspace when it is inside."""
    return str(found.relative_to(anchor)) if anchor and found.is_relative_to(anchor) else str(found)


def _rel(dirpath: str) -> str:
    """fwalk's ``./a/b`` as ``a/b`` ('' for the top)."""
    return "/".join(p for p in dirpath.split("/") if p not in ("", "."))


class _Ignores:
    """The ``.gitignore`` rules in force for one folder, deepest first."""

    def __init__(self) -> None:
        self.specs: dict[str, pathspec.GitIgnoreSpec] = {}

    def load(self, rel_dir: str, dir_fd: int) -> None:
        try:
            data, _ = fs.read_regular(dir_fd, ".gitignore", limit=256 * 1024)
        except (OSError, ToolError):
            return
        # A workspace's .gitignore is untrusted too: RE2, not backtracking ``re``.
        self.specs[rel_dir] = pathspec.GitIgnoreSpec.from_lines(
            data.decode("utf-8", "replace").splitlines(), backend="re2"
        )

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        parts = rel_path.split("/")
        for depth in range(len(parts) - 1, -1, -1):
            base = "/".join(parts[:depth])
            spec = self.specs.get(base)
            if spec is None:
                continue
            sub = "/".join(parts[depth:]) + ("/" if is_dir else "")
            include = spec.check_file(sub).include
            if include is not None:
                return bool(include)
        return False


class SearchArguments(Arguments):
    # The text to look for comes first: a small model fills the arguments in the order it sees
    # them, and asked which log holds "ERROR 503" with the glob first, it searched file names.
    regex: Annotated[str | None, Field(min_length=1, max_length=1000, description=(
        "Regular expression searched in each line of text files."))] = None
    glob: Annotated[str | None, Field(min_length=1, max_length=500, description=(
        "File name pattern; with a '/' it matches the path below 'path'."))] = None
    path: Annotated[str, fs.path_argument("Folder to search in, or one file (default: the workspace)."), READS] = "."
    case_sensitive: bool = True
    max_results: Annotated[int, Field(ge=1, le=1000)] = 100


class SearchFiles(BuiltinTool[SearchArguments]):
    name = "search_files"
    role = ToolRole.SEARCH
    description = (
        "Search the workspace for the files whose lines match a regular expression, and/or whose name "
        "matches a glob. Regular expressions are RE2 (no backreferences or lookaround); a glob looks "
        "like '*.py' or 'src/**/test_*.py'. Content matches come back as 'path:line: text'. Skips .git and files ignored by "
        ".gitignore; symbolic links are not followed."
    )
    arguments = SearchArguments
    # A small model searches by text (and where); it gave the name glob a regex ('.*') as often
    # as not, and then nothing was searched at all.
    basic_parameters = ("regex", "path")
    query_argument = "regex"
    query_is_regex = True
    risk_level = RiskLevel.READ
    timeout_seconds = 60.0
    idempotent = True
    capabilities = frozenset({"files.read"})
    title = N_("Search files")
    catalog_description = N_("Finds files in your workspace by name or by the text they contain.")

    async def execute_parsed(self, args: SearchArguments, ctx: ToolExecutionContext) -> ToolResult:
        name_glob, regex_text = args.glob, args.regex
        if not name_glob and not regex_text:
            raise bad(for_person("give 'glob', 'regex' or both",
                                 N_("The search names neither a file name pattern nor a text to find.")))
        case_sensitive = args.case_sensitive
        try:
            content_re = LineSearch(regex_text, case_sensitive=case_sensitive) if regex_text else None
        except PatternError as exc:
            raise bad(for_person(f"'regex' is not a valid regular expression: {exc}",
                                 N_("{regex} is not a valid regular expression: {error}"),
                                 regex=quoted_later(regex_text or ""), error=str(exc))) from exc
        name_re = glob_to_regex(name_glob) if name_glob else None
        limit = args.max_results
        target = fs.resolve(args.path, ctx.workspace_roots)
        anchor = ctx.workspace.resolve() if ctx.workspace else None
        if target.parts and _is_regular_file(target.path):
            # As grep does: a file given as the place to search is searched by itself (a small
            # model named the file it was asked about, and got "not a folder" back).
            return self._search_one_file(target, args, content_re, name_re, anchor)
        fs.require_dir(target)
        try:
            top_fd = fs.open_dir(target.root, target.parts)
        except OSError as exc:
            raise fs.os_error(exc, target, "search") from exc
        results: list[str] = []
        ignores = _Ignores()
        complete = True
        named = 0  # files whose name the glob let through
        try:
            for dirpath, dirnames, filenames, dir_fd in os.fwalk(".", dir_fd=top_fd, follow_symlinks=False):
                ctx.check_cancelled()
                rel_dir = _rel(dirpath)
                ignores.load(rel_dir, dir_fd)
                dirnames[:] = sorted(
                    d for d in dirnames
                    if d != ".git" and not ignores.ignored(f"{rel_dir}/{d}".lstrip("/"), True)
                )
                for fname in sorted(filenames):
                    ctx.check_cancelled()
                    rel = f"{rel_dir}/{fname}".lstrip("/")
                    if ignores.ignored(rel, False):
                        continue
                    if name_glob and name_re is not None and not name_re.match(rel if "/" in name_glob else fname):
                        continue
                    named += 1
                    label = _label(target.path / rel, anchor)
                    if content_re is None:
                        results.append(label)
                    else:
                        self._grep(dir_fd, fname, label, content_re, results, limit)
                    if len(results) >= limit:
                        complete = False
                        break
                if not complete:
                    break
        finally:
            os.close(top_fd)
        if content_re is not None and name_glob and not named:
            # No text was searched at all: "no matches" would read as an answer. A small model gave
            # the glob a regex (".*" as a glob matches only names that start with a dot).
            raise ToolError(for_person(
                f"no file name under {args.path!r} matches the glob {name_glob!r}, so no text was "
                "searched; leave 'glob' out to search every file (a glob looks like '*.py', "
                "'*' matches every name)",
                N_("No file name under {path} matches the pattern {glob}, so no text was searched."),
                path=quoted_later(args.path), glob=quoted_later(name_glob)), kind=ErrorKind.BUSINESS)
        return _found(results, complete, limit)

    def _search_one_file(self, target: fs.Resolved, args: SearchArguments, content_re: LineSearch | None,
                         name_re: Any, anchor: Path | None) -> ToolResult:
        name = target.parts[-1]
        if name_re is not None and not name_re.match(name):
            raise ToolError(for_person(
                f"the file {args.path!r} does not match the glob {args.glob!r}, so nothing was searched",
                N_("The file {path} does not match the pattern {glob}, so nothing was searched."),
                path=quoted_later(args.path), glob=quoted_later(args.glob or "")), kind=ErrorKind.BUSINESS)
        label = _label(target.path, anchor)
        results: list[str] = []
        if content_re is None:
            results.append(label)
        else:
            try:
                parent_fd = fs.open_dir(target.root, target.parts[:-1])
            except OSError as exc:
                raise fs.os_error(exc, target, "search") from exc
            try:
                self._grep(parent_fd, name, label, content_re, results, args.max_results)
            finally:
                os.close(parent_fd)
        return _found(results, len(results) < args.max_results, args.max_results)

    @staticmethod
    def _grep(dir_fd: int, fname: str, label: str, pattern: LineSearch, results: list[str],
              limit: int) -> None:
        try:
            st = os.stat(fname, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SCAN_BYTES:
                return
            data, _ = fs.read_regular(dir_fd, fname, limit=MAX_SCAN_BYTES)
            text, _ = decode(data)
        except (OSError, BinaryFile, ToolError):
            return
        for number, line in pattern.lines(text):
            results.append(f"{label}:{number}: {line.rstrip()[:MAX_LINE_CHARS]}")
            if len(results) >= limit:
                return


def _found(results: list[str], complete: bool, limit: int) -> ToolResult:
    """The search's result: what it found, and whether it stopped at ``limit``."""
    text = "\n".join(results) if results else "no matches"
    if not complete:
        text += f"\n[stopped at {limit} results; narrow the search or raise max_results]"
    meta: dict[str, Any] = {"results": len(results), "complete": complete}
    if complete:
        meta |= counted(matches=len(results))
    return ToolResult.ok(text, metadata=meta)
