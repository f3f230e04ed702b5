"""search_files: hostile patterns and the ordinary 200k-line search, new engine vs the old one.

The old implementation (Python ``re``, at commit ``OLD_COMMIT``) is loaded from git and run in
the same process for the ordinary search, and in a child process that is killed at a cap for
the hostile patterns (it holds the GIL, so nothing in-process could stop it). Prints:
  - time to stop ``(a|a)*b`` over a 27-character line (old: measured at shorter lines, and at
    27 characters up to the cap), new
  - time to stop the glob ``*n*n*n*n*n*n*n*n*n*n*n*nQ`` against a 43-character name
  - a 200k-line content search, old and new, and new/old as a ratio
Run: PYTHONPATH=. python bench/search_redos.py [--cap SECONDS]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import subprocess
import sys
import tempfile
import time
import types
import uuid
from pathlib import Path
from typing import Any

from echo_desk.builtins.search.search_files import SearchFiles
from echo_desk.tools import ToolExecutionContext

OLD_COMMIT = "d092ecd"
REPO = Path(__file__).resolve().parent.parent
HOSTILE_REGEX = "(a|a)*b"
HOSTILE_GLOB = "*n*n*n*n*n*n*n*n*n*n*n*nQ"


def old_module() -> types.ModuleType:
    source = subprocess.run(["git", "-C", str(REPO), "show", f"{OLD_COMMIT}:echo_desk/agent/tools/search.py"],
                            check=True, capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("old_search", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, "old_search.py", "exec"), module.__dict__)
    return module


def ctx_for(folder: Path) -> ToolExecutionContext:
    return ToolExecutionContext(call_id=uuid.uuid4().hex, tool_name="search_files", scope_id="bench",
                                workspace_roots=(folder,), write_roots=(folder,))


async def timed(tool: Any, folder: Path, params: dict[str, Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await tool.run(params, ctx_for(folder))
    return time.perf_counter() - start, result


def old_in_child(folder: Path, params: dict[str, Any], cap: float) -> float | None:
    """Seconds the old implementation took in a child process; ``None`` if killed at ``cap``."""
    code = (
        "import asyncio, sys, time; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "import search_redos as b; from pathlib import Path; import json;"
        "tool = b.old_module().SearchFiles(); folder = Path(sys.argv[3]); params = json.loads(sys.argv[4]);"
        "print(asyncio.run(b.timed(tool, folder, params))[0])"
    )
    try:
        out = subprocess.run([sys.executable, "-c", code, str(REPO), str(REPO / "bench"), str(folder),
                              json.dumps(params)], capture_output=True, text=True, timeout=cap, check=True)
    except subprocess.TimeoutExpired:
        return None
    return float(out.stdout.strip().splitlines()[-1])


def show(label: str, seconds: float | None, cap: float) -> str:
    return f"{label}: " + (f"> {cap:g} s (killed at the cap)" if seconds is None else f"{seconds:.3f} s")


async def main(cap: float) -> None:
    old = old_module().SearchFiles()
    new = SearchFiles()
    root = Path(tempfile.mkdtemp(prefix="echo-bench-search-"))

    print(f"1. regex {HOSTILE_REGEX!r}: time to stop (old engine doubles per character)")
    for n in (20, 22, 24, 27):
        folder = root / f"regex{n}"
        folder.mkdir()
        (folder / "a.txt").write_text("a" * n + "\n")
        old_s = old_in_child(folder, {"regex": HOSTILE_REGEX}, cap)
        new_s, result = await timed(new, folder, {"regex": HOSTILE_REGEX})
        assert result.output == "no matches"
        print(f"   line of {n} chars  {show('old', old_s, cap)}   new: {new_s:.4f} s")
    folder = root / "regex-long"
    folder.mkdir()
    (folder / "a.txt").write_text("a" * 1_000_000 + "\n")
    new_s, _ = await timed(new, folder, {"regex": HOSTILE_REGEX})
    print(f"   line of 1,000,000 chars  new: {new_s:.4f} s")

    print(f"2. glob {HOSTILE_GLOB!r}: time to stop")
    for n in (30, 43):
        folder = root / f"glob{n}"
        folder.mkdir()
        (folder / ("n" * n)).write_text("x\n")
        old_s = old_in_child(folder, {"glob": HOSTILE_GLOB}, cap)
        new_s, result = await timed(new, folder, {"glob": HOSTILE_GLOB})
        assert result.output == "no matches"
        print(f"   name of {n} chars  {show('old', old_s, cap)}   new: {new_s:.4f} s")

    folder = root / "ordinary"
    folder.mkdir()
    for f in range(200):
        lines = [f"    def handler_{i}(self, value): return value * {i}  # line {i}" for i in range(1000)]
        (folder / f"m{f:03d}.py").write_text("\n".join(lines) + "\n")
    for pattern in (r"def \w+_999\(", r"return value \* 12345", "(?i)HANDLER_5"):
        params = {"regex": pattern, "max_results": 1000}
        print(f"3. ordinary search: 200 files x 1,000 lines (200k lines), regex {pattern!r}")
        for tool in (old, new):  # warm the page cache and the compiled patterns
            await timed(tool, folder, params)
        old_runs, new_runs = [], []
        for _ in range(5):
            old_runs.append((await timed(old, folder, params))[0])
            new_runs.append((await timed(new, folder, params))[0])
        old_best, new_best = min(old_runs), min(new_runs)
        print(f"   old (re): {old_best:.3f} s   new (RE2): {new_best:.3f} s   new/old: {new_best / old_best:.2f}")

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cap", type=float, default=20.0, help="kill the old engine after this many seconds")
    asyncio.run(main(parser.parse_args().cap))
