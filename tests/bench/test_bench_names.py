"""A bench script named after an importable package shadows it for every ``python bench/<x>.py``
(the script's folder comes first on ``sys.path``): ``bench/mcp.py`` once hid the MCP SDK."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_no_bench_script_shadows_an_importable_module() -> None:
    scripts = sorted(p.stem for p in BENCH.glob("*.py"))
    assert scripts, "no bench scripts found"
    bench_dir = str(BENCH)
    saved = list(sys.path)
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
    try:
        shadowed = [name for name in scripts
                    if name in sys.builtin_module_names or importlib.util.find_spec(name) is not None]
    finally:
        sys.path[:] = saved
    assert shadowed == [], f"bench scripts named like importable modules ({bench_dir}): {shadowed}"
