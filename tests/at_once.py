"""Processes that start their work at the same moment, for tests of files several processes share.

Each child runs ``setup`` (open its store: what it holds in memory from then on), says it is
ready, waits until every child is, and only then runs ``work``: the saves overlap whatever the
machine's speed, and a store that writes back what it read before another's save loses it.
Each child gets ``sys.argv[1:] == [gate folder, name]``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

_BARRIER = """
import time as _time
from pathlib import Path as _Path
_gate = _Path(sys.argv[1])
(_gate / f"ready-{sys.argv[2]}").touch()
_deadline = _time.monotonic() + 60
while not (_gate / "go").exists():  # polling a condition with a deadline
    if _time.monotonic() > _deadline:
        raise SystemExit("never told to go")
    _time.sleep(0.001)
"""


def run_at_once(setup: str, work: str, gate: Path, names: list[str], timeout: float = 120.0) -> list[int]:
    """Run one child per name; return their exit codes."""
    gate.mkdir(parents=True, exist_ok=True)
    script = "import sys\n" + setup + _BARRIER + work
    children = [subprocess.Popen([sys.executable, "-c", script, str(gate), name]) for name in names]
    try:
        deadline = time.monotonic() + timeout
        while not all((gate / f"ready-{name}").exists() for name in names):
            assert time.monotonic() < deadline, "the children never got ready"
            assert all(child.poll() is None for child in children), "a child ended before it was ready"
            time.sleep(0.005)  # polling a condition with a deadline
        (gate / "go").touch()
        return [child.wait(timeout=timeout) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
