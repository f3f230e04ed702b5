"""``echo-desk changes list|revert``: a real subprocess on the real data folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from echo_desk.cli.changes import EXIT_NEEDS_CHOICE


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "echo_desk", "--no-mcp", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ), cwd=cwd, stdin=subprocess.DEVNULL)


def test_list_and_revert_with_a_conflict(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    target.write_text("before\n")
    wrote = cli("call", "write_file", "--yes", "--args", json.dumps({"path": "x.txt", "content": "tool\n"}),
                "--workspace", str(tmp_path), cwd=tmp_path)
    assert wrote.returncode == 0, wrote.stderr
    rows = json.loads(cli("changes", "list", "--json", cwd=tmp_path).stdout)
    [row] = [r for r in rows if r["path"] == str(target)]
    assert row["tool"] == "write_file" and row["restorable"] and not row["reverted"]
    call_id = row["call_id"]
    target.write_text("the person edited it\n")
    refused = cli("changes", "revert", call_id, cwd=tmp_path)
    assert refused.returncode == EXIT_NEEDS_CHOICE
    assert "changed since the tool wrote it" in refused.stdout and target.read_text() == "the person edited it\n"
    # What changed since the tool wrote it is shown as a diff, not only as hashes.
    assert "  -tool\n  +the person edited it\n" in refused.stdout
    chosen = cli("changes", "revert", call_id, "--choose", "before", cwd=tmp_path)
    assert chosen.returncode == 0, chosen.stderr
    assert target.read_text() == "before\n" and "reverted:" in chosen.stdout
    listed = cli("changes", "list", "--conversation", row["conversation_id"], cwd=tmp_path).stdout
    assert "reverted" in listed and str(target) in listed
    again = cli("changes", "revert", call_id, cwd=tmp_path)
    assert again.returncode == 0 and "already reverted" in again.stderr
