"""ReadWhenChanged: one read per change of the file, including an atomic rewrite of equal size."""

from __future__ import annotations

import os
from pathlib import Path

from echo_desk.common.file_cache import ReadWhenChanged


def test_a_file_is_read_again_only_when_it_changed_or_was_replaced(tmp_path: Path) -> None:
    reads: list[str] = []

    def read(path: Path) -> str:
        reads.append(path.read_text())
        return reads[-1]

    cached = ReadWhenChanged(read, missing="")
    path = tmp_path / "f.json"
    assert cached(path) == "" and reads == []  # missing: nothing read
    path.write_text("one")
    assert cached(path) == cached(path) == "one" and reads == ["one"]
    before = path.stat()
    other = tmp_path / "g.json"
    other.write_text("two")  # same size, then moved over it with the old times, as a rename can
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)
    assert cached(path) == "two" and reads == ["one", "two"]
    path.unlink()
    assert cached(path) == ""
