"""The command line pays only for what it runs: parsing any command line, and a rules check,
load no built-in tool, no HTTP client, no MCP SDK and no runtime (checked in a fresh interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Heavy parts a parse or a rules check must not load (a module or any of its submodules).
HEAVY = ("echo_desk.builtins", "echo_desk.runtime", "echo_desk.agent.dispatcher", "echo_desk.mcp", "echo_desk.providers",
         "httpx", "mcp", "pydantic")
COMMAND_LINES = [
    [], ["tools", "list"], ["tools", "schema", "--provider", "gemini"], ["call", "read_file", "--args", "{}"],
    ["mcp", "list"], ["ask", "hello"], ["rules", "check", "--", "git status"], ["changes", "list"],
]


def _loaded_after(code: str, tmp_path: Path) -> list[str]:
    env = {**os.environ, "ECHO_DESK_CONFIG_DIR": str(tmp_path / "c"), "ECHO_DESK_DATA_DIR": str(tmp_path / "d"),
           "ECHO_DESK_CACHE_DIR": str(tmp_path / "k")}
    script = code + "\nimport json, sys\nprint('MODULES ' + json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("MODULES ")]
    assert lines, done.stdout + done.stderr
    modules: list[str] = json.loads(lines[-1][len("MODULES "):])
    return modules


def _heavy(modules: list[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_parsing_every_command_line_loads_nothing_heavy(tmp_path: Path) -> None:
    code = ("import echo_desk.cli\nfrom echo_desk.cli.main import build_parser\n"
            f"for argv in {COMMAND_LINES!r}:\n    build_parser().parse_args(argv)\n")
    modules = _loaded_after(code, tmp_path)
    assert "echo_desk.cli.main" in modules
    assert _heavy(modules) == []


@pytest.mark.parametrize("argv", [["rules", "check", "--", "git status"], ["rules", "list"]])
def test_a_rules_command_runs_on_the_rules_engine_alone(tmp_path: Path, argv: list[str]) -> None:
    code = f"from echo_desk.cli.main import main\nprint('EXIT', main({argv!r}))\n"
    modules = _loaded_after(code, tmp_path)
    assert "echo_desk.agent.permissions.engine" in modules  # it did ask the engine
    assert _heavy(modules) == []
    assert "echo_desk.common.atomic" not in modules  # the rule files' writer: only when one is written
