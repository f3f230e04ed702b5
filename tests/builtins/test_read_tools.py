"""read_file, list_dir and search_files."""

from __future__ import annotations

import os
from pathlib import Path

from tool_test_helpers import MakeCtx, run_tool

from echo_desk.builtins import ListDir, ReadFile, SearchFiles
from echo_desk.builtins.files.reading import MAX_FILE_BYTES
from echo_desk.builtins.search.search_files import glob_to_regex
from echo_desk.tools import ErrorKind


async def test_read_file_reports_encoding_and_reads_in_parts(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "a.txt").write_bytes(b"\xef\xbb\xbf" + "".join(f"line {i}\r\n" for i in range(1, 11)).encode())
    result = await run_tool(ReadFile(), {"path": "a.txt", "start_line": 3, "max_lines": 2}, make_ctx("read_file"))
    assert result.success
    header, *rest = result.output.split("\n", 1)
    assert "lines 3-4 of 10" in header and "UTF-8 with BOM" in header and "CRLF" in header
    assert rest[0].startswith("line 3\r\nline 4\r\n")
    assert "start_line=5" in rest[0]
    past = await run_tool(ReadFile(), {"path": "a.txt", "start_line": 99}, make_ctx("read_file"))
    assert past.error_kind is ErrorKind.BUSINESS and "10 lines" in past.error


async def test_read_file_detects_utf16_and_latin1(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "u16.txt").write_bytes("\ufeffhé 中\n".encode("utf-16-le"))
    (workspace / "l1.txt").write_bytes("café\n".encode("latin-1"))
    u16 = await run_tool(ReadFile(), {"path": "u16.txt"}, make_ctx("read_file"))
    assert "UTF-16 LE with BOM" in u16.output and "hé 中" in u16.output
    l1 = await run_tool(ReadFile(), {"path": "l1.txt"}, make_ctx("read_file"))
    assert "latin-1" in l1.output and "café" in l1.output


async def test_read_file_refuses_binary_big_and_special_files(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    binary = await run_tool(ReadFile(), {"path": "img.png"}, make_ctx("read_file"))
    assert binary.error_kind is ErrorKind.BUSINESS and "binary" in binary.error
    with open(workspace / "huge.txt", "wb") as fh:
        fh.truncate(MAX_FILE_BYTES + 10)
    huge = await run_tool(ReadFile(), {"path": "huge.txt"}, make_ctx("read_file"))
    assert huge.error_kind is ErrorKind.BUSINESS and "search_files" in huge.error
    os.mkfifo(workspace / "pipe")
    fifo = await run_tool(ReadFile(), {"path": "pipe"}, make_ctx("read_file"))  # must not block
    assert fifo.error_kind is ErrorKind.BUSINESS and "not a regular file" in fifo.error
    folder = await run_tool(ReadFile(), {"path": "."}, make_ctx("read_file"))
    assert not folder.success


async def test_list_dir_depth_limits_and_links(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "src" / "pkg").mkdir(parents=True)
    (workspace / "src" / "pkg" / "m.py").write_text("x = 1\n")
    (workspace / "README").write_text("hi\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text("ref\n")
    os.symlink("/etc", workspace / "etc-link")
    one = await run_tool(ListDir(), {}, make_ctx("list_dir"))
    assert "file  README  3 bytes" in one.output and "dir   src/" in one.output
    assert "link  etc-link (symbolic link, not followed)" in one.output and "src/pkg" not in one.output
    deep = await run_tool(ListDir(), {"depth": 3}, make_ctx("list_dir"))
    assert "file  src/pkg/m.py  6 bytes" in deep.output and "HEAD" not in deep.output
    capped = await run_tool(ListDir(), {"depth": 3, "max_entries": 2}, make_ctx("list_dir"))
    assert capped.metadata["entries"] == 2 and "stopped after 2 entries" in capped.output


async def test_search_by_glob_regex_and_gitignore(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "src" / "build").mkdir(parents=True)
    (workspace / "src" / "app.py").write_text("def main():\n    return 42\n")
    (workspace / "src" / "build" / "gen.py").write_text("def main(): pass\n")
    (workspace / "src" / "keep.log").write_text("def main log\n")
    (workspace / "debug.log").write_text("def main log\n")
    (workspace / ".gitignore").write_text("*.log\n!keep.log\n")
    (workspace / "src" / ".gitignore").write_text("build/\n")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "x.py").write_text("def main(): pass\n")
    names = await run_tool(SearchFiles(), {"glob": "*.py"}, make_ctx("search_files"))
    assert names.output.splitlines() == ["src/app.py"]
    content = await run_tool(SearchFiles(), {"regex": r"def\s+main"}, make_ctx("search_files"))
    assert content.output.splitlines() == ["src/app.py:1: def main():", "src/keep.log:1: def main log"]
    nested = await run_tool(SearchFiles(), {"glob": "src/**/*.py", "regex": "RETURN", "case_sensitive": False},
                            make_ctx("search_files"))
    assert nested.output == "src/app.py:2:     return 42"
    capped = await run_tool(SearchFiles(), {"glob": "*", "max_results": 1}, make_ctx("search_files"))
    assert capped.metadata["results"] == 1 and "stopped at 1 results" in capped.output
    bad = await run_tool(SearchFiles(), {"regex": "("}, make_ctx("search_files"))
    assert bad.error_kind is ErrorKind.VALIDATION and "regular expression" in bad.error
    none = await run_tool(SearchFiles(), {"glob": "*.rs"}, make_ctx("search_files"))
    assert none.output == "no matches"


def test_glob_translation() -> None:
    assert glob_to_regex("*.py").match("a.py") and not glob_to_regex("*.py").match("a/b.py")
    assert glob_to_regex("src/**/*.py").match("src/a/b/c.py") and glob_to_regex("src/**/*.py").match("src/c.py")
    assert glob_to_regex("file?.[ch]").match("file1.c") and not glob_to_regex("[!a]x").match("ax")


async def test_folder_tools_say_when_the_path_is_not_a_folder(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "a.txt").write_text("x\n")
    for tool, params in ((ListDir(), {"path": "a.txt"}), (SearchFiles(), {"path": "nope", "glob": "*"})):
        result = await run_tool(tool, params, make_ctx(tool))
        assert result.error_kind is ErrorKind.BUSINESS
        assert result.error.endswith(("is not a folder", "does not exist")), result.error
