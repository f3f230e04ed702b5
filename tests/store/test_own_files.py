"""Echo Desk's own program files get a copy of their own when they have other names (uv links
them to its cache): the sandbox tests show why (tests/sandbox/test_own_program.py)."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from echo_desk.store import own_files


def test_a_linked_file_gets_its_own_copy_with_the_same_content_mode_and_times(tmp_path: Path) -> None:
    program = tmp_path / "program"
    (program / "pkg").mkdir(parents=True)
    linked, alone, link = program / "pkg" / "mod.py", program / "pkg" / "alone.py", program / "pkg" / "to_cache"
    linked.write_bytes(b"VALUE = 1\n")
    os.chmod(linked, 0o640)
    os.utime(linked, ns=(1_600_000_000_000_000_000, 1_600_000_000_123_456_789))
    cache = tmp_path / "cache-file"
    os.link(linked, cache)
    alone.write_text("x\n")
    link.symlink_to(cache)
    before_alone = alone.stat().st_ino

    assert own_files.unshare_own_program([program]) == 1
    st = linked.stat()
    assert linked.read_bytes() == b"VALUE = 1\n" and st.st_nlink == 1 and st.st_ino != cache.stat().st_ino
    assert stat.S_IMODE(st.st_mode) == 0o640 and st.st_mtime_ns == 1_600_000_000_123_456_789
    assert alone.stat().st_ino == before_alone and link.is_symlink()  # others untouched; links not followed
    assert cache.stat().st_nlink == 1 and cache.read_bytes() == b"VALUE = 1\n"
    assert sorted(p.name for p in (program / "pkg").iterdir()) == ["alone.py", "mod.py", "to_cache"]

    os.link(linked, tmp_path / "linked-again")
    assert own_files.unshare_own_program([program]) == 0  # once per start


def test_a_walk_stopped_as_the_app_closes_is_not_counted_as_done(tmp_path: Path) -> None:
    program = tmp_path / "program"
    program.mkdir()
    (program / "mod.py").write_text("x\n")
    os.link(program / "mod.py", tmp_path / "cache-file")
    stopped = threading.Event()
    stopped.set()
    with pytest.raises(own_files._Stopped):
        own_files.unshare_own_program([program], stop=stopped)
    assert (program / "mod.py").stat().st_nlink == 2
    assert own_files.unshare_own_program([program]) == 1  # the next start (or command) does it
