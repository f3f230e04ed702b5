"""ReadWhenChanged: one read per change of the file, including an atomic rewrite of equal size,
and a second look at a file written too recently for its stamp to tell."""

from __future__ import annotations

import os
import time
from pathlib import Path

from echo_desk.common.file_cache import UNSURE_SECONDS, ReadWhenChanged


def _reader() -> tuple[ReadWhenChanged[str], list[str]]:
    reads: list[str] = []

    def read(path: Path) -> str:
        reads.append(path.read_text())
        return reads[-1]

    return ReadWhenChanged(read, missing=""), reads


def _age(path: Path, seconds: float) -> None:
    then = time.time_ns() - int(seconds * 1_000_000_000)
    os.utime(path, ns=(then, then))


def test_a_file_is_read_again_only_when_it_changed_or_was_replaced(tmp_path: Path) -> None:
    cached, reads = _reader()
    path = tmp_path / "f.json"
    assert cached(path) == "" and reads == []  # missing: nothing read
    path.write_text("one")
    _age(path, 60)
    assert cached(path) == cached(path) == "one" and reads == ["one"]
    before = path.stat()
    other = tmp_path / "g.json"
    other.write_text("two")  # same size, then moved over it with the old times, as a rename can
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)
    assert cached(path) == "two" and reads == ["one", "two"]
    path.unlink()
    assert cached(path) == ""


def test_a_file_written_within_one_stamp_of_the_last_read_is_read_again(tmp_path: Path) -> None:
    # The stamp a rewrite can keep: the same inode, size and modification time.
    cached, reads = _reader()
    path = tmp_path / "f.json"
    path.write_text("one")
    assert cached(path) == "one"
    stamp = path.stat()
    path.write_text("two")
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert path.stat().st_ino == stamp.st_ino
    assert cached(path) == "two"  # recent: the contents are looked at again
    _age(path, UNSURE_SECONDS + 60)
    assert cached(path) == cached(path) == "two" and reads == ["one", "two", "two"]  # then trusted
