"""read_file, list_dir and search_files."""

from __future__ import annotations

import os
from pathlib import Path

from tool_test_helpers import MakeCtx, run_tool

from echo_desk.builtins import EditFile, ListDir, ReadFile, SearchFiles, WriteFile
from echo_desk.builtins.files.reading import MAX_FILE_BYTES
from echo_desk.builtins.search.search_files import glob_to_regex
from echo_desk.common.fs import LISTED_NAMES
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
        assert ("is not a folder. " in result.error or "does not exist. " in result.error), result.error
        assert "holds: a.txt." in result.error
        assert ("read it with read_file" if tool.name == "list_dir" else '"." for the workspace itself') in result.error


async def test_a_folder_or_a_missing_name_given_as_the_file_says_what_is_there(
    workspace: Path, make_ctx: MakeCtx
) -> None:
    # The small built-in model sends the workspace's own path as the file: the error names the
    # files there and a relative path to use, so its next call can be the right one.
    (workspace / "config.json").write_text("{}\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "guide.md").write_text("go\n")
    root = await run_tool(ReadFile(), {"path": str(workspace)}, make_ctx("read_file"))
    assert root.error_kind is ErrorKind.BUSINESS
    assert "is the workspace folder, not a file" in root.error
    assert "It holds: config.json, docs/." in root.error and 'like "config.json"' in root.error
    folder = await run_tool(ReadFile(), {"path": "docs"}, make_ctx("read_file"))
    assert "is a folder, not a file" in folder.error and "docs/guide.md" in folder.error
    missing = await run_tool(ReadFile(), {"path": "docs/gide.md"}, make_ctx("read_file"))
    assert missing.error == (f"{workspace / 'docs' / 'gide.md'} does not exist. {workspace / 'docs'} holds: "
                             'docs/guide.md. Give a path relative to the workspace, like "docs/guide.md". '
                             "search_files finds a file by its name or its text.")
    write = await run_tool(WriteFile(), {"path": str(workspace), "content": "x"}, make_ctx("write_file"))
    assert "is the workspace folder, not a file" in write.error and "config.json" in write.error
    edit = await run_tool(EditFile(), {"path": "conf.json", "edits": [{"old": "{", "new": "["}]}, make_ctx("edit_file"))
    assert "does not exist (write_file creates a new file)" in edit.error and "config.json" in edit.error


async def test_the_list_in_a_not_a_file_error_is_short(workspace: Path, make_ctx: MakeCtx) -> None:
    for i in range(LISTED_NAMES + 3):
        (workspace / f"f{i:02}.txt").write_text("x\n")
    result = await run_tool(ReadFile(), {"path": "."}, make_ctx("read_file"))
    assert "f00.txt" in result.error and f"f{LISTED_NAMES:02}.txt" not in result.error
    assert "… and 3 more" in result.error
    empty = workspace / "empty"
    empty.mkdir()
    assert (await run_tool(ReadFile(), {"path": "empty/x.txt"}, make_ctx("read_file"))).error.endswith("is empty.")


async def test_a_relative_path_that_repeats_the_workspace_path_means_the_path_inside(
    workspace: Path, make_ctx: MakeCtx
) -> None:
    # The 0.5B model writes "tmp/…/ws/notes.txt" (the workspace's path without its "/").
    (workspace / "notes.txt").write_text("milk\n")
    repeated = str(workspace.relative_to(workspace.anchor))
    for path in (f"{repeated}/notes.txt", f"{workspace.name}/notes.txt"):
        result = await run_tool(ReadFile(), {"path": path}, make_ctx("read_file"))
        assert result.success and result.output.endswith("milk\n"), path
    listed = await run_tool(ListDir(), {"path": repeated}, make_ctx("list_dir"))
    assert "file  notes.txt" in listed.output
    # A folder of that name in the workspace is what the path means: taken as written.
    (workspace / workspace.name).mkdir()
    (workspace / workspace.name / "notes.txt").write_text("own\n")
    own = await run_tool(ReadFile(), {"path": f"{workspace.name}/notes.txt"}, make_ctx("read_file"))
    assert own.output.endswith("own\n")
    escape = await run_tool(ReadFile(), {"path": f"{repeated}/../../etc/passwd"}, make_ctx("read_file"))
    assert not escape.success and "outside the workspace" in escape.error


async def test_a_name_with_a_line_feed_stays_on_its_own_line(workspace: Path, make_ctx: MakeCtx) -> None:
    """What the model reads names such a file quoted, C-escaped (one line per entry, one header)."""
    name = "notes\n@@ -1,1 +1,1 @@\n.txt"
    (workspace / name).write_text("a\n")
    (workspace / 'plain "quoted" name.txt').write_text("b\n")
    listing = await run_tool(ListDir(), {}, make_ctx("list_dir"))
    assert 'file  "notes\\n@@ -1,1 +1,1 @@\\n.txt"  2 bytes' in listing.output.split("\n")
    assert 'file  plain "quoted" name.txt  2 bytes' in listing.output.split("\n")  # left as it is: no control
    read = await run_tool(ReadFile(), {"path": name}, make_ctx("read_file"))
    assert read.output.split("\n")[0].startswith('["') and read.output.split("\n")[1] == "a"
    written = await run_tool(WriteFile(), {"path": name, "content": "b\n"}, make_ctx("write_file"))
    assert written.success and "\n" not in written.output


async def test_a_text_search_whose_glob_matches_no_file_name_says_so_and_fails(workspace: Path,
                                                                                make_ctx: MakeCtx) -> None:
    # A small model gave the glob a regex (".*", which as a glob matches only names starting
    # with a dot): every file was left out before its text was searched, and "no matches" read
    # as an answer. Failed, the call can be corrected (steering offers the tools again).
    (workspace / "fruit").mkdir()
    (workspace / "fruit" / "b.txt").write_text("pineapple juice\n", encoding="utf-8")
    filtered = await run_tool(SearchFiles(), {"regex": "pineapple", "glob": ".*"}, make_ctx("search_files"))
    assert not filtered.success and filtered.error_kind is ErrorKind.BUSINESS
    assert "'.*'" in filtered.error and "leave 'glob' out" in filtered.error
    right = await run_tool(SearchFiles(), {"regex": "pineapple", "glob": "*.txt"}, make_ctx("search_files"))
    assert right.success and right.output == "fruit/b.txt:1: pineapple juice"
    # A name search that finds no name is an answer, and so is a text found in no named file.
    assert (await run_tool(SearchFiles(), {"glob": ".*"}, make_ctx("search_files"))).output == "no matches"
    nothing = await run_tool(SearchFiles(), {"regex": "mango", "glob": "*.txt"}, make_ctx("search_files"))
    assert nothing.success and nothing.output == "no matches"


async def test_search_files_given_one_file_searches_that_file_alone(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "todo.py").write_text("ITEMS = []\n\ndef add_item(text):\n    ITEMS.append(text)\n")
    (workspace / "src" / "other.py").write_text("ITEMS.append(1)\n")
    found = await run_tool(SearchFiles(), {"regex": "append", "path": "src/todo.py"}, make_ctx("search_files"))
    assert found.success and found.output == "src/todo.py:4:     ITEMS.append(text)"  # not other.py
    assert found.metadata["results"] == 1 and found.metadata["complete"]
    missing = await run_tool(SearchFiles(), {"regex": "zebra", "path": "src/todo.py"}, make_ctx("search_files"))
    assert missing.success and missing.output == "no matches"
    named = await run_tool(SearchFiles(), {"glob": "*.py", "path": "src/todo.py"}, make_ctx("search_files"))
    assert named.output == "src/todo.py"
    other_name = await run_tool(SearchFiles(), {"glob": "*.md", "regex": "x", "path": "src/todo.py"},
                                make_ctx("search_files"))
    assert other_name.error_kind is ErrorKind.BUSINESS and "does not match the glob" in other_name.error
    os.mkfifo(workspace / "src" / "pipe")  # not a regular file: not read (it would block), not a folder either
    fifo = await run_tool(SearchFiles(), {"regex": "append", "path": "src/pipe"}, make_ctx("search_files"))
    assert fifo.error_kind is ErrorKind.BUSINESS and "not a folder" in fifo.error
