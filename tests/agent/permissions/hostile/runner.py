"""Run a hostile line for real, unsandboxed, in a fresh copy of the scratch world, and say
whether its claimed harm happened.

The line runs as ``bash --noprofile --norc -c LINE`` or ``dash -c LINE`` in the workspace, with
the clean environment of ``scratch.base_env``, stdin from /dev/null, in its own process group,
with a timeout. What it left running in its group is waited for (with a deadline), then killed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.agent.permissions.hostile import scratch
from tests.agent.permissions.hostile.corpus import Entry
from tests.agent.permissions.hostile.harm import Harm, happened, observe, precondition

SHELLS: dict[str, list[str]] = {
    "bash": ["bash", "--noprofile", "--norc", "-c"],
    "dash": ["dash", "-c"],
}
#: Signals the test run ignores (pytest started in the background ignores SIGINT) are ignored by
#: the shell it starts too, and a shell cannot trap a signal ignored on entry: ``trap … INT`` lines
#: would do no harm. Each line starts as from a terminal, every signal at its default.
DEFAULT_SIGNALS = ["/usr/bin/env", "--default-signal"]
#: A line must finish within this; none of the corpus needs more than a fraction of it.
RUN_TIMEOUT = 20.0
#: After the shell exits: how long what it started in the background may take.
SETTLE_TIMEOUT = 5.0


@dataclass(frozen=True)
class Outcome:
    shell: str
    harmed: bool
    exit_code: int | None  # None: killed at the timeout
    output: str
    problem: str | None = None  # the world was not as the claim needs it (a corpus bug)


def _group_alive(pgid: int) -> bool:
    """Whether any process (not a zombie) of the process group is left."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def _wait(condition: object, deadline: float) -> bool:
    assert callable(condition)
    delay = 0.005
    while True:
        if condition():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def run_line(line: str, shell: str, harm: Harm, template_root: Path, *, expect_harm: bool = True) -> Outcome:
    """Run ``line`` under ``shell`` in a fresh world and check ``harm``. When ``expect_harm``,
    a harm that shows up late (a background process) is waited for, with a deadline."""
    tmp = Path(tempfile.mkdtemp(prefix="hostile-", dir=scratch.fast_temp_folder()))
    try:
        root = scratch.copy_world(template_root, tmp)
        before = observe(harm, root)
        problem = precondition(harm, before)
        if problem is not None:
            return Outcome(shell, False, None, "", problem)
        process = subprocess.Popen(
            [*DEFAULT_SIGNALS, *SHELLS[shell], scratch.fill(line, root)], cwd=root / "ws", env=scratch.base_env(root),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=RUN_TIMEOUT)
            exit_code: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            exit_code = None
        _wait(lambda: not _group_alive(process.pid), time.monotonic() + SETTLE_TIMEOUT)
        harmed = happened(harm, root, before)
        if not harmed and expect_harm:
            harmed = _wait(lambda: happened(harm, root, before), time.monotonic() + 1.0)
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        return Outcome(shell, harmed, exit_code, output.decode("utf-8", "replace")[-2000:])
    finally:
        _make_removable(tmp)


def _make_removable(folder: Path) -> None:
    """A line may leave a folder without write permission (chmod): give it back before cleanup."""
    for dirpath, dirnames, _ in os.walk(folder):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, 0o700)
                except OSError:
                    pass
    shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Check:
    """One entry run under every shell: what was claimed and what happened."""

    entry: Entry
    outcomes: tuple[Outcome, ...]

    @property
    def harmed_under(self) -> tuple[str, ...]:
        return tuple(o.shell for o in self.outcomes if o.harmed)

    @property
    def problem(self) -> str | None:
        for o in self.outcomes:
            if o.problem:
                return o.problem
        if self.harmed_under != self.entry.shells:
            return f"claims harm under {'+'.join(self.entry.shells)}, harmed under {'+'.join(self.harmed_under) or 'none'}"
        return None


def check_entry(entry: Entry, template_root: Path) -> Check:
    outcomes = tuple(run_line(entry.line, shell, entry.harm, template_root, expect_harm=shell in entry.shells)
                     for shell in SHELLS)
    return Check(entry, outcomes)


def check_all(entries: list[Entry], template_root: Path, workers: int | None = None) -> list[Check]:
    """Every entry, run in parallel (each run waits on its own processes)."""
    workers = workers or max(4, 3 * (os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda e: check_entry(e, template_root), entries))
