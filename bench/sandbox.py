"""Cost of the command sandbox, measured against no sandbox in the same run.

    PYTHONPATH=. python bench/sandbox.py [--runs 60]

Prints, for ``true`` run through ``/bin/sh -c`` directly and through the full sandbox (bwrap with
every hidden path, the read-only repository files and protected list, seccomp and the process
limit: exactly what ``run_command`` starts), the median and p90 of

* the added start-up: from building the command line (the repository search and the snapshot
  of what can run code included) to the command's end, minus the same for ``true`` outside;
* the added time after it: releasing the placeholders and the guard's check (``Launch.check``);

in three workspaces: one git repository; the same holding 50 nested repositories; and a large
tree (``--folders`` folders, 3 repositories) to show the bound of the repository search (cold:
the first search; warm: a later one, which reads again only folders that changed). Then the
throughput of a 100 MB ``cat`` read through a pipe from inside the sandbox and from outside.
Targets: added start-up <= 20 ms median (one repository), throughput ratio >= 0.9.

To compare with an older version, run this same script with ``PYTHONPATH`` pointing at that
checkout (it then measures that version's sandbox in the same workspaces).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from echo_desk import sandbox

SIZE = 100 * 1024 * 1024


def _p90(values: list[float]) -> float:
    return sorted(values)[max(0, int(len(values) * 0.9) - 1)]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@e", *args], cwd=cwd, check=True,
                   capture_output=True)


def _repository(folder: Path, files: int = 5) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        (folder / f"file{i}.txt").write_text(f"{i}\n")
    (folder / "src").mkdir(exist_ok=True)
    (folder / "src" / "main.py").write_text("print('hi')\n")
    _git("init", "-q", ".", cwd=folder)
    _git("add", "-A", cwd=folder)
    _git("commit", "-qm", "first", cwd=folder)


def _large_tree(folder: Path, folders: int) -> None:
    _repository(folder)
    for i in range(folders):
        (folder / "deps" / f"p{i // 100}" / f"m{i % 100}").mkdir(parents=True, exist_ok=True)
    for i in range(3):
        _repository(folder / "libs" / f"lib{i}", files=1)


Measure = Callable[[str], tuple[float, float, float]]


def _runner(workspace: Path, sandboxed: bool, bwrap: str, minimal: bool = False) -> Measure:
    """``run(command)`` → (seconds from start to the command's end, seconds for the check after,
    seconds of that start spent building the command line: the search and the snapshot)."""
    def run(command: str) -> tuple[float, float, float]:
        argv = ["/bin/sh", "-c", command]
        fds: tuple[int, ...] = ()
        started = time.perf_counter()
        prepared = started
        launch = None
        if minimal:  # bwrap's own floor on this machine right now: one mount, no namespaces but its own
            argv = [bwrap, "--ro-bind", "/", "/", *argv]
        elif sandboxed:
            launch = sandbox.prepare(sandbox.SandboxSpec(writable=(workspace,), cwd=workspace), argv, bwrap)
            argv, fds = launch.argv, launch.pass_fds
            prepared = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=workspace, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                pass_fds=fds, env=launch.env if launch else sandbox.allowed_environment())
        if launch is not None:
            launch.close()
        assert proc.stdout is not None
        first = proc.stdout.read(1 << 20)
        streaming = time.perf_counter()  # throughput counts from the first byte, not the start-up
        while proc.stdout.read(1 << 20):
            pass
        proc.wait()
        ended = time.perf_counter()
        if launch is not None:
            launch.release()
            # (getattr: the same script also runs against an older checkout, to compare)
            planted = getattr(launch, "check", tuple)()
            assert not planted, planted
        checked = time.perf_counter()
        if proc.returncode != 0:
            raise SystemExit(f"{command!r} failed with {proc.returncode} (sandboxed={sandboxed})")
        return ended - (streaming if first else started), checked - ended, prepared - started
    return run


def _startup(workspace: Path, bwrap: str, runs: int, label: str) -> None:
    plain, boxed = _runner(workspace, False, bwrap), _runner(workspace, True, bwrap)
    floor = _runner(workspace, False, bwrap, minimal=True)
    for run in (plain, boxed, floor):  # warm the page cache, the binaries and the kept listings
        run("true")
    outside: list[float] = []
    inside: list[float] = []
    after: list[float] = []
    building: list[float] = []
    bare: list[float] = []
    for _ in range(runs):  # interleaved, so machine load hits all alike
        outside.append(plain("true")[0] * 1000)
        start, check, build = boxed("true")
        inside.append(start * 1000)
        after.append(check * 1000)
        building.append(build * 1000)
        bare.append(floor("true")[0] * 1000)
    med_out, med_in = statistics.median(outside), statistics.median(inside)
    print(f"{label}: start-up of true, {runs} runs each (ms)")
    print(f"  outside:   median {med_out:6.2f}  p90 {_p90(outside):6.2f}")
    print(f"  sandboxed: median {med_in:6.2f}  p90 {_p90(inside):6.2f}")
    print(f"  (bwrap --ro-bind / / alone: median {statistics.median(bare):6.2f}  p90 {_p90(bare):6.2f})")
    print(f"  added:     median {med_in - med_out:6.2f}  p90 {_p90(inside) - _p90(outside):6.2f}  (target <= 20 ms median)")
    print(f"  (load average when done: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    print(f"    of which building the command line (search, inventory, snapshot): median "
          f"{statistics.median(building):6.2f}  p90 {_p90(building):6.2f}  min {min(building):6.2f}")
    print(f"  check after the command: median {statistics.median(after):6.2f}  p90 {_p90(after):6.2f}  "
          f"min {min(after):6.2f}")
    print(f"  added in all: median {med_in + statistics.median(after) - med_out:6.2f}")
    sys.stdout.flush()


def _search(workspace: Path, runs: int) -> None:
    try:
        from echo_desk.sandbox import repositories
    except ImportError:  # an older version: no search to report
        return
    repositories.forget()
    started = time.perf_counter()
    found = repositories.find(workspace)
    cold = (time.perf_counter() - started) * 1000
    warm: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        again = repositories.find(workspace)
        warm.append((time.perf_counter() - started) * 1000)
    assert again.entries == found.entries
    print(f"  repository search: {found.folders_read} folders read (bound {repositories.MAX_FOLDERS}, "
          f"cut: {found.cut}), {len(found.entries)} found; cold {cold:.2f} ms, warm median {statistics.median(warm):.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--folders", type=int, default=20_000)
    args = parser.parse_args()
    found = sandbox.availability()
    if not found.available:
        raise SystemExit(f"sandbox unavailable: {found.english()}")
    assert found.bwrap is not None
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        base = Path(folder)
        # All made first: a folder changed in the last 2 s is read again by the search ("racy",
        # see echo_desk/sandbox/repositories.py), which a person's settled workspace is not.
        one = base / "one"
        _repository(one)
        nested = base / "nested"
        _repository(nested)
        for i in range(50):
            _repository(nested / "packages" / f"pkg{i}", files=1)
        large = base / "large"
        _large_tree(large, args.folders)
        _startup(one, found.bwrap, args.runs, "one repository")
        _search(one, args.runs)
        _startup(nested, found.bwrap, args.runs, "50 nested repositories")
        _search(nested, args.runs)
        _startup(large, found.bwrap, max(10, args.runs // 3), f"a tree of {args.folders} folders")
        _search(large, max(5, args.runs // 6))

        (one / "big").write_bytes(os.urandom(1 << 20) * (SIZE >> 20))
        plain, boxed = _runner(one, False, found.bwrap), _runner(one, True, found.bwrap)
        for run in (plain, boxed):
            run("cat big")
        cat_out: list[float] = []
        cat_in: list[float] = []
        for _ in range(7):
            cat_out.append(plain("cat big")[0])
            cat_in.append(boxed("cat big")[0])
    mb = SIZE / (1 << 20)
    rate_out, rate_in = mb / statistics.median(cat_out), mb / statistics.median(cat_in)
    print(f"cat of {mb:.0f} MB through a pipe, median of 7 (from the first byte: start-up is measured above)")
    print(f"  outside {rate_out:7.0f} MB/s   sandboxed {rate_in:7.0f} MB/s   ratio {rate_in / rate_out:.2f} (target >= 0.9)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
