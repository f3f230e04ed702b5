"""The write-tool lifecycle: encodings, line endings, changed-since-preview, failures, host calls."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx, RecordingHost, run_tool

from echo_desk.builtins import AppendToFile, EditFile, WriteFile
from echo_desk.common import atomic
from echo_desk.common.atomic import TEMP_SUFFIX
from echo_desk.store import paths
from echo_desk.tools import CancelledByUser, ErrorKind, FileChangeKind, Protection, ProtectionReason

ENCODINGS = {
    "utf-8": (b"", "utf-8"),
    "utf-8-bom": (b"\xef\xbb\xbf", "utf-8"),
    "utf-16-le": (b"\xff\xfe", "utf-16-le"),
    "latin-1": (b"", "latin-1"),
}
ENDINGS = {"lf": ("\n", True), "crlf": ("\r\n", True), "no-final-newline": ("\n", False)}
LINES = ["première ligne", "second: ü déjà", "third line", "fourth — end"]


def _render(encoding: str, ending: str, lines: list[str]) -> bytes:
    bom, codec = ENCODINGS[encoding]
    newline, final = ENDINGS[ending]
    text = newline.join(lines) + (newline if final else "")
    if encoding == "latin-1":
        text = text.replace("—", "-")  # latin-1 has no em dash
    return bom + text.encode(codec)


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("encoding", list(ENCODINGS))
async def test_edit_changes_no_byte_outside_the_edited_region(
    workspace: Path, make_ctx: MakeCtx, encoding: str, ending: str
) -> None:
    path = workspace / f"{encoding}-{ending}.txt"
    original = _render(encoding, ending, LINES)
    path.write_bytes(original)
    os.chmod(path, 0o640)
    # The model writes LF; in a CRLF file the edit still matches and keeps CRLF.
    params = {"path": path.name, "edits": [{"old": "second: ü déjà\nthird", "new": "2nd: ü déjà\nTHIRD"}]}
    result = await run_tool(EditFile(), params, make_ctx("edit_file"))
    assert result.success, result.error
    expected = _render(encoding, ending, [LINES[0], "2nd: ü déjà", "THIRD line", LINES[3]])
    assert path.read_bytes() == expected
    # Everything before and after the edited region is byte-identical.
    codec = ENCODINGS[encoding][1]
    first = original.index("second".encode(codec))
    assert expected[:first] == original[:first]
    tail = original[original.index(" line".encode(codec), first):]
    assert expected.endswith(tail)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert result.file_changes[0].kind is FileChangeKind.MODIFY


@pytest.mark.parametrize("encoding", list(ENCODINGS))
async def test_overwrite_keeps_encoding_bom_and_line_endings(workspace: Path, make_ctx: MakeCtx,
                                                            encoding: str) -> None:
    path = workspace / "f.txt"
    path.write_bytes(_render(encoding, "crlf", LINES))
    result = await run_tool(WriteFile(), {"path": "f.txt", "content": "un\ndeux é\n"}, make_ctx("write_file"))
    assert result.success, result.error
    bom, codec = ENCODINGS[encoding]
    assert path.read_bytes() == bom + "un\r\ndeux é\r\n".encode(codec)


async def test_latin1_file_refuses_characters_it_cannot_hold(workspace: Path, make_ctx: MakeCtx) -> None:
    path = workspace / "l.txt"
    path.write_bytes("café\n".encode("latin-1"))
    result = await run_tool(WriteFile(), {"path": "l.txt", "content": "中文\n"}, make_ctx("write_file"))
    assert result.error_kind is ErrorKind.BUSINESS and "cannot hold" in result.error
    assert path.read_bytes() == "café\n".encode("latin-1")


@dataclass
class _SneakyHost(RecordingHost):
    """Another program writes the file while the tool asks the editor to let go of it."""

    sneak: Path | None = None

    async def acquire_editor(self, path: str) -> bool:
        if self.sneak is not None:
            self.sneak.write_text("written by someone else\n")
        return await super().acquire_editor(path)


WRITERS = ("append", "same-size", "truncate", "delete", "replace-file", "during-execute")


async def test_changed_since_preview_never_writes(workspace: Path, make_ctx: MakeCtx) -> None:
    trials = writes = 0
    for index in range(120):
        writer = WRITERS[index % len(WRITERS)]
        path = workspace / f"c{index}.txt"
        path.write_text(f"line {index}\nkeep\n")
        host = _SneakyHost(sneak=path if writer == "during-execute" else None)
        tool = EditFile() if index % 2 else WriteFile()
        params = ({"path": path.name, "edits": [{"old": "keep", "new": "changed"}]} if index % 2
                  else {"path": path.name, "content": "agent content\n"})
        ctx = make_ctx(tool, host=host)
        ctx.preview = await tool.preview(params, ctx)
        if writer == "append":
            with path.open("a") as fh:
                fh.write("more\n")
        elif writer == "same-size":
            path.write_text(f"LINE {index}\nkeep\n")
        elif writer == "truncate":
            path.write_text("")
        elif writer == "delete":
            path.unlink()
        elif writer == "replace-file":
            (workspace / "tmp-other").write_text("other\nkeep\n")
            os.replace(workspace / "tmp-other", path)
        after_other = path.read_bytes() if path.exists() else None
        if writer == "during-execute":
            after_other = b"written by someone else\n"
        result = await tool.execute(params, ctx)
        trials += 1
        now = path.read_bytes() if path.exists() else None
        if result.success or now != after_other:
            writes += 1
        assert not result.success
        assert result.error_kind is ErrorKind.BUSINESS
        assert "changed since preview" in result.error or "does not exist" in result.error
        assert not host.mutated
    assert trials >= 100 and writes == 0
    assert not list(workspace.glob(f"*{TEMP_SUFFIX}"))


async def test_execute_without_preview_computes_it(workspace: Path, make_ctx: MakeCtx, host: RecordingHost) -> None:
    (workspace / "a.txt").write_text("one\ntwo\n")
    result = await EditFile().execute({"path": "a.txt", "edits": [{"old": "two", "new": "2"}]}, make_ctx("edit_file"))
    assert result.success
    assert (workspace / "a.txt").read_text() == "one\n2\n"
    change = result.file_changes[0]
    assert change.path == str(workspace / "a.txt") and "-two\n+2\n" in change.diff
    assert host.acquired == host.released == [str(workspace / "a.txt")]
    assert host.mutated == [str(workspace / "a.txt")]
    assert host.activity[-1] is None


async def test_edit_errors_name_the_text_and_write_nothing(workspace: Path, make_ctx: MakeCtx) -> None:
    path = workspace / "a.txt"
    path.write_text("x = 1\nx = 1\ny = 2\n")
    tool = EditFile()
    missing = await run_tool(tool, {"path": "a.txt", "edits": [{"old": "y = 2", "new": "y = 3"},
                                                               {"old": "zzz", "new": "q"}]}, make_ctx(tool))
    assert missing.error_kind is ErrorKind.BUSINESS and "edit 2" in missing.error and "'zzz'" in missing.error
    twice = await run_tool(tool, {"path": "a.txt", "edits": [{"old": "x = 1", "new": "x = 5"}]}, make_ctx(tool))
    assert twice.error_kind is ErrorKind.BUSINESS and "occurs 2 times" in twice.error
    assert path.read_text() == "x = 1\nx = 1\ny = 2\n"  # all or nothing: edit 1 was not applied either
    absent = await run_tool(tool, {"path": "new.txt", "edits": [{"old": "a", "new": "b"}]}, make_ctx(tool))
    assert absent.error_kind is ErrorKind.BUSINESS and "write_file" in absent.error


async def test_replace_all_changes_every_occurrence_and_only_when_asked(workspace: Path, make_ctx: MakeCtx) -> None:
    path = workspace / "calc.py"
    path.write_text("total = 1 + 2\nprint(total)\n")
    tool = EditFile()
    one = await run_tool(tool, {"path": "calc.py", "edits": [{"old": "total", "new": "subtotal"}]}, make_ctx(tool))
    assert one.error_kind is ErrorKind.BUSINESS and "replace_all" in one.error
    assert path.read_text() == "total = 1 + 2\nprint(total)\n"
    every = await run_tool(tool, {"path": "calc.py", "edits": [{"old": "total", "new": "subtotal", "replace_all": True}]},
                           make_ctx(tool))
    assert every.success, every.error
    assert path.read_text() == "subtotal = 1 + 2\nprint(subtotal)\n"
    assert every.file_changes[0].diff.count("+") >= 2


async def test_disk_full_keeps_the_original(workspace: Path, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch) -> None:
    path = workspace / "a.txt"
    path.write_text("precious\n")

    def full(fd: int, data: bytes) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic, "_write_all", full)
    result = await run_tool(WriteFile(), {"path": "a.txt", "content": "new\n"}, make_ctx("write_file"))
    assert result.error_kind is ErrorKind.BUSINESS
    assert "disk is full" in result.error and "unchanged" in result.error
    assert path.read_text() == "precious\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


async def test_cancel_before_rename_keeps_the_original(workspace: Path, make_ctx: MakeCtx, host: RecordingHost) -> None:
    path = workspace / "a.txt"
    path.write_text("precious\n")
    ctx = make_ctx("write_file")
    ctx.preview = await WriteFile().preview({"path": "a.txt", "content": "new\n"}, ctx)
    ctx.cancel_event.set()
    with pytest.raises(CancelledByUser):
        await WriteFile().execute({"path": "a.txt", "content": "new\n"}, ctx)
    assert path.read_text() == "precious\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]
    assert host.activity[-1] is None and not host.mutated


async def test_editor_refusing_to_let_go_means_nothing_written(workspace: Path, make_ctx: MakeCtx,
                                                             host: RecordingHost) -> None:
    (workspace / "a.txt").write_text("mine\n")
    host.release = False
    result = await run_tool(WriteFile(), {"path": "a.txt", "content": "theirs\n"}, make_ctx("write_file"))
    assert result.error_kind is ErrorKind.BUSINESS and "did not release" in result.error
    assert (workspace / "a.txt").read_text() == "mine\n"


async def test_read_only_scope_refuses_write_and_exec(workspace: Path, make_ctx: MakeCtx) -> None:
    from echo_desk.builtins import RunCommand

    for tool, params in ((WriteFile(), {"path": "a.txt", "content": "x"}),
                         (EditFile(), {"path": "a.txt", "edits": [{"old": "a", "new": "b"}]}),
                         (RunCommand(), {"command": "touch made"})):
        result = await run_tool(tool, params, make_ctx(tool, read_only=True))
        assert result.error_kind is ErrorKind.BUSINESS and "read-only" in result.error
    assert list(workspace.iterdir()) == []


async def test_hard_links_and_protected_paths_need_exact_approval(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "a.txt").write_text("a\n")
    os.link(workspace / "a.txt", workspace / "b.txt")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("[core]\n")
    targets = {"a.txt": ("protected: hard-linked", Protection(reason=ProtectionReason.HARD_LINKED, links=2)),
               ".git/config": ("protected: inside a .git folder", Protection(reason=ProtectionReason.GIT_FOLDER))}
    for name, (marker, protection) in targets.items():
        params = {"path": name, "content": "changed\n"}
        # Without a preview (nobody saw the exact target): refused.
        plain = await WriteFile().execute(params, make_ctx("write_file"))
        assert plain.error_kind is ErrorKind.BUSINESS and marker in plain.error
        # An automatic approval (e.g. "always allow": no person looked at it) does not cover it.
        auto = make_ctx("write_file")
        auto.preview = await WriteFile().preview(params, auto)
        assert auto.preview.targets[0].protections == (protection,)
        assert auto.preview.targets[0].full_detail.startswith(marker)
        assert not (await WriteFile().execute(params, auto)).success
        # The person approved this exact, marked target: it is written.
        asked = make_ctx("write_file", approved_by_person=True)
        asked.preview = await WriteFile().preview(params, asked)
        assert (await WriteFile().execute(params, asked)).success
    assert (workspace / ".git" / "config").read_text() == "changed\n"
    assert (workspace / "b.txt").read_text() == "a\n"  # the other name keeps the old content


async def test_echo_desk_own_folders_are_protected(tmp_path: Path, make_ctx: MakeCtx) -> None:
    config = paths.config_dir().resolve()
    (config / "settings.json").write_text("{}")
    ctx = make_ctx("write_file", roots=(config.parent,))
    result = await WriteFile().execute({"path": str(config / "settings.json"), "content": "{\"x\":1}"}, ctx)
    assert result.error_kind is ErrorKind.BUSINESS and "Echo Desk's own settings" in result.error
    assert (config / "settings.json").read_text() == "{}"


async def test_write_creates_parents_and_reports_creation(workspace: Path, make_ctx: MakeCtx) -> None:
    result = await run_tool(WriteFile(), {"path": "a/b/c.txt", "content": "hi\n"}, make_ctx("write_file"))
    assert result.success
    change = result.file_changes[0]
    assert change.kind is FileChangeKind.CREATE and change.before_sha256 is None
    assert change.diff.startswith("--- /dev/null\n")
    assert (workspace / "a" / "b" / "c.txt").read_text() == "hi\n"
    binary = workspace / "bin.dat"
    binary.write_bytes(b"\x00\x01\x02\xff" * 10)
    refused = await run_tool(WriteFile(), {"path": "bin.dat", "content": "text"}, make_ctx("write_file"))
    assert refused.error_kind is ErrorKind.BUSINESS and "binary" in refused.error


async def test_crlf_text_from_the_model_matches_an_lf_file(workspace: Path, make_ctx: MakeCtx) -> None:
    (workspace / "a.txt").write_bytes(b"one\ntwo\nthree\n")
    params = {"path": "a.txt", "edits": [{"old": "one\r\ntwo", "new": "1\r\n2"}]}
    result = await run_tool(EditFile(), params, make_ctx("edit_file"))
    assert result.success, result.error
    assert (workspace / "a.txt").read_bytes() == b"1\n2\nthree\n"


@pytest.mark.parametrize(("before", "added", "after"), [
    (b"milk\neggs\n", "Buy butter", b"milk\neggs\nBuy butter\n"),
    (b"milk\neggs", "Buy butter", b"milk\neggs\nBuy butter\n"),  # the last line is ended first
    (b"milk\r\neggs\r\n", "one\ntwo\n", b"milk\r\neggs\r\none\r\ntwo\r\n"),  # the file's own line endings
    (b"", "first", b"first\n"),
])
async def test_append_adds_whole_lines_at_the_end_and_changes_nothing_before(
    workspace: Path, make_ctx: MakeCtx, before: bytes, added: str, after: bytes,
) -> None:
    (workspace / "notes.txt").write_bytes(before)
    result = await run_tool(AppendToFile(), {"path": "notes.txt", "text": added}, make_ctx("append_to_file"))
    assert result.success, result.error
    assert (workspace / "notes.txt").read_bytes() == after


async def test_append_to_a_missing_file_writes_nothing_and_says_how_to_create_it(
    workspace: Path, make_ctx: MakeCtx,
) -> None:
    result = await run_tool(AppendToFile(), {"path": "nope.txt", "text": "x"}, make_ctx("append_to_file"))
    assert not result.success and "write_file creates a new file" in result.error
    assert not (workspace / "nope.txt").exists()
