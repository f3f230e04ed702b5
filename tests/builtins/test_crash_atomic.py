"""Crash safety: saves of a 1 MB file SIGKILLed at random moments leave the old or the new content."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import pytest

from echo_desk.common import fs
from echo_desk.common.atomic import TEMP_SUFFIX, atomic_write, sha256, sweep_stale_temps

TRIALS = 200
SIZE = 1024 * 1024


def _save_in_child(target: fs.Resolved, data: bytes, expect: str) -> tuple[int, int]:
    """Fork a child that signals readiness on a pipe and then saves; returns (pid, read end)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest, no asyncio, just the save
        code = 0
        try:
            os.close(read_end)
            os.write(write_end, b"R")
            atomic_write(target, data, expect_sha256=expect)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, read_end


@pytest.mark.slow
def test_sigkilled_saves_leave_old_or_new_content_and_no_temp_files(tmp_path: Path) -> None:
    rng = random.Random(1234)
    folder = tmp_path.resolve()
    path = folder / "big.txt"
    contents = [rng.randbytes(SIZE // 2).hex().encode(), rng.randbytes(SIZE // 2).hex().encode()]
    assert all(len(c) == SIZE for c in contents)
    hashes = [sha256(c) for c in contents]
    path.write_bytes(contents[0])
    target = fs.resolve(str(path), (folder,))

    # How long one uninterrupted save takes in a child (fork, copy-on-write and all), so the
    # kills can be spread over the whole save.
    durations = []
    current = 0
    for _ in range(5):
        pid, read_end = _save_in_child(target, contents[1 - current], hashes[current])
        assert os.read(read_end, 1) == b"R"
        started = time.perf_counter()
        _, status = os.waitpid(pid, 0)
        durations.append(time.perf_counter() - started)
        os.close(read_end)
        assert os.waitstatus_to_exitcode(status) == 0
        current = 1 - current
    duration = sorted(durations)[len(durations) // 2]
    assert path.read_bytes() == contents[current]

    outcome = {"old": 0, "new": 0}
    leftovers_seen = 0
    for _ in range(TRIALS):
        other = 1 - current
        pid, read_end = _save_in_child(target, contents[other], hashes[current])
        assert os.read(read_end, 1) == b"R"
        deadline = time.perf_counter() + rng.uniform(0, duration * 1.3)
        while time.perf_counter() < deadline:  # a random moment inside (or just after) the save
            pass
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(read_end)
        data = path.read_bytes()
        assert data in contents, "the file holds neither the old nor the new content"
        outcome["new" if data == contents[other] else "old"] += 1
        current = contents.index(data)
        leftovers_seen += sum(1 for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))
        sweep_stale_temps(folder)  # what the next start does
        assert [p.name for p in folder.iterdir()] == ["big.txt"]
    assert sum(outcome.values()) == TRIALS
    # Both outcomes must occur, or the kills did not land inside the save.
    assert outcome["old"] > 0 and outcome["new"] > 0, outcome
    print(f"crash test: {TRIALS} SIGKILLed saves of {SIZE} bytes, save ≈ {duration * 1000:.1f} ms, "
          f"outcomes {outcome}, temp files left by killed saves: {leftovers_seen}")


def test_the_next_save_sweeps_temp_files_of_dead_processes(tmp_path: Path) -> None:
    folder = tmp_path.resolve()
    (folder / "a.txt").write_bytes(b"old")
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)  # a pid that is certainly gone now
    stale = folder / f".a.txt.{pid}.0123abcd{TEMP_SUFFIX}"
    stale.write_bytes(b"half")
    live = folder / f".a.txt.{os.getpid()}.0123abcd{TEMP_SUFFIX}"
    live.write_bytes(b"someone else's save in progress")
    atomic_write(fs.resolve(str(folder / "a.txt"), (folder,)), b"new", expect_sha256=sha256(b"old"))
    assert not stale.exists()
    assert live.exists()  # our own process is alive: never remove a save in progress
    assert (folder / "a.txt").read_bytes() == b"new"
