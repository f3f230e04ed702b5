"""Cost of the command sandbox, measured against no sandbox in the same run.

    PYTHONPATH=. python bench/sandbox.py [--runs 60]

Prints the median and p90 start-up of ``true`` run through ``/bin/sh -c`` directly and through
the full sandbox (bwrap with every hidden path, the read-only repository files, seccomp and the
process limit: exactly what ``run_command`` starts), the added milliseconds, and the throughput
of a 100 MB ``cat`` read through a pipe from inside the sandbox and from outside (targets: added
median <= 20 ms, throughput ratio >= 0.9).
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


def _runner(workspace: Path, sandboxed: bool, bwrap: str, minimal: bool = False) -> Callable[[str], float]:
    def run(command: str) -> float:
        argv = ["/bin/sh", "-c", command]
        fds: tuple[int, ...] = ()
        started = time.perf_counter()
        launch = None
        if minimal:  # bwrap's own floor on this machine right now: one mount, no namespaces but its own
            argv = [bwrap, "--ro-bind", "/", "/", *argv]
        elif sandboxed:
            launch = sandbox.prepare(sandbox.SandboxSpec(writable=(workspace,), cwd=workspace), argv, bwrap)
            argv, fds = launch.argv, launch.pass_fds
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
        if proc.returncode != 0:
            raise SystemExit(f"{command!r} failed with {proc.returncode} (sandboxed={sandboxed})")
        return time.perf_counter() - (streaming if first else started)
    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    found = sandbox.availability()
    if not found.available:
        raise SystemExit(f"sandbox unavailable: {found.english()}")
    assert found.bwrap is not None
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        workspace = Path(folder)
        (workspace / "big").write_bytes(os.urandom(1 << 20) * (SIZE >> 20))
        plain, boxed = _runner(workspace, False, found.bwrap), _runner(workspace, True, found.bwrap)
        floor = _runner(workspace, False, found.bwrap, minimal=True)
        for run in (plain, boxed, floor):  # warm the page cache and the binaries
            run("true")
            run("cat big")
        outside: list[float] = []
        inside: list[float] = []
        bare: list[float] = []
        for _ in range(args.runs):  # interleaved, so machine load hits all alike
            outside.append(plain("true") * 1000)
            inside.append(boxed("true") * 1000)
            bare.append(floor("true") * 1000)
        cat_out: list[float] = []
        cat_in: list[float] = []
        for _ in range(7):
            cat_out.append(plain("cat big"))
            cat_in.append(boxed("cat big"))
    med_out, med_in = statistics.median(outside), statistics.median(inside)
    print(f"start-up of true, {args.runs} runs each (ms)")
    print(f"  outside:   median {med_out:6.2f}  p90 {_p90(outside):6.2f}")
    print(f"  sandboxed: median {med_in:6.2f}  p90 {_p90(inside):6.2f}")
    print(f"  (bwrap --ro-bind / / alone: median {statistics.median(bare):6.2f}  p90 {_p90(bare):6.2f})")
    print(f"  added:     median {med_in - med_out:6.2f}  p90 {_p90(inside) - _p90(outside):6.2f}  (target <= 20 ms median)")
    mb = SIZE / (1 << 20)
    rate_out, rate_in = mb / statistics.median(cat_out), mb / statistics.median(cat_in)
    print(f"cat of {mb:.0f} MB through a pipe, median of 7 (from the first byte: start-up is measured above)")
    print(f"  outside {rate_out:7.0f} MB/s   sandboxed {rate_in:7.0f} MB/s   ratio {rate_in / rate_out:.2f} (target >= 0.9)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
