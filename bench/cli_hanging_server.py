"""``echo-desk`` CLI start with an MCP server that never answers ``initialize``, old vs new.

mcp.json holds one approved stdio server (the in-repo fault server with FAULT_SILENT=1). For
the old code (``echo_desk`` as of ``OLD_COMMIT``) and this tree's ``HEAD`` (both extracted from
git), in the same run, prints the wall time of: ``call echo_text`` (needs no server), ``tools list`` (lists every
server's tools), and the CLI with ``--no-mcp`` as the floor (start-up alone), plus whether a
traceback reached stderr and whether the server was spawned.
Run: PYTHONPATH=. python bench/cli_hanging_server.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
# Run as a script, this file's folder comes first on sys.path: moved last, where it lends only what
# nothing installed is named (the shared paired-run helper), as in the other old/new benches.
sys.path[:] = [*(p for p in sys.path if Path(p or ".").resolve() != BENCH), str(BENCH)]

from _paired import ROOT, tree_at  # noqa: E402

OLD_COMMIT = "d092ecd"
FAULT_SERVER = ROOT / "tests" / "mcp" / "fault_server.py"
COMMANDS = {
    "--no-mcp call echo_text": ["--no-mcp", "call", "echo_text", "--args", '{"text": "hi"}'],
    "call echo_text": ["call", "echo_text", "--args", '{"text": "hi"}'],
    "tools list": ["tools", "list"],
}


def run(tree: Path, home: Path, argv: list[str]) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "ECHO_DESK_CONFIG_DIR": str(home / "cfg"),
           "ECHO_DESK_DATA_DIR": str(home / "data"), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    start = time.perf_counter()
    # cwd=tree: "python -m" puts the working folder first on sys.path.
    out = subprocess.run([sys.executable, "-m", "echo_desk", *argv], env=env, capture_output=True, text=True,
                         timeout=600, check=False, cwd=tree)
    seconds = time.perf_counter() - start
    notes = []
    log = home / "server.log"
    if log.exists():
        notes.append("server spawned")
        log.unlink()
    if "Traceback" in out.stderr:
        notes.append("traceback")
    return seconds, ", ".join(notes)


def main() -> None:
    trees = {"old": tree_at(OLD_COMMIT), "new": tree_at("HEAD")}
    print("echo-desk with one MCP server that never answers initialize (wall time, seconds)")
    for label, tree in trees.items():
        home = Path(tempfile.mkdtemp(prefix="echo-cli-"))
        (home / "cfg").mkdir()
        entry = {"command": sys.executable, "args": [str(FAULT_SERVER)],
                 "env": {"FAULT_SILENT": "1", "FAULT_LOG": str(home / "server.log")}}
        (home / "cfg" / "mcp.json").write_text(json.dumps({"mcpServers": {"hang": entry}}))
        run(tree, home, ["mcp", "approve", "hang", "--yes"])
        cells = []
        for name, argv in COMMANDS.items():
            seconds, notes = run(tree, home, argv)
            cells.append(f"{name}: {seconds:.1f}" + (f" ({notes})" if notes else ""))
        print(f"  {label}: " + "   ".join(cells))


if __name__ == "__main__":
    main()
