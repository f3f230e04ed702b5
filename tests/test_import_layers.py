"""The layers contract of pyproject.toml fails on an import against the layers, wherever it is.

A copy of the package passes ``lint-imports``; the same copy with a few planted imports (upward,
between independent siblings, inside a function, inside the UI) fails, naming each of them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
        "sys.argv[0] = 'lint-imports'; sys.exit(lint_imports_command())", "--no-cache"]

#: file → (code appended to it, the import the report must name)
PLANTED = {
    # The shared primitives reaching up into the engine.
    "echo_desk/common/fs.py": ("from echo_desk.agent import policy as _planted\n",
                               "echo_desk.common.fs -> echo_desk.agent.policy"),
    # A built-in tool reaching into the engine, its independent sibling.
    "echo_desk/builtins/echo.py": ("import echo_desk.agent.dispatcher as _planted\n",
                                   "echo_desk.builtins.echo -> echo_desk.agent.dispatcher"),
    # Inside a function, where a cycle used to be dodged: still an import.
    "echo_desk/sandbox/detect.py": ("\n\ndef _planted() -> object:\n    from echo_desk.store import paths\n\n"
                                    "    return paths\n", "echo_desk.sandbox.detect -> echo_desk.store.paths"),
    # An MCP tool naming its manager, even only for a type: the package's circle back.
    "echo_desk/mcp/tool.py": ("\nif TYPE_CHECKING:\n    from echo_desk.mcp.manager import McpManager as _Planted\n",
                              "echo_desk.mcp.tool -> echo_desk.mcp.manager"),
    # The UI's core reaching up into the chat window.
    "echo_desk/ui/core/theme.py": ("import echo_desk.ui.chat.chat_window as _planted\n",
                                   "echo_desk.ui.core.theme -> echo_desk.ui.chat.chat_window"),
}


def _lint(where: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(where)}
    return subprocess.run(LINT, cwd=where, env=env, capture_output=True, text=True, timeout=120, check=False)


def test_a_planted_import_against_the_layers_fails_the_lint(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "echo_desk", tmp_path / "echo_desk",
                    ignore=shutil.ignore_patterns("__pycache__", "locale"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    clean = _lint(tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    for name, (code, _named) in PLANTED.items():
        with (tmp_path / name).open("a", encoding="utf-8") as fh:
            fh.write(code)
    planted = _lint(tmp_path)
    report = " ".join(planted.stdout.split())  # the report wraps long lines
    assert planted.returncode == 1, report
    for _code, named in PLANTED.values():
        assert named in report, named
    contracts = (ROOT / "pyproject.toml").read_text(encoding="utf-8").count("[[tool.importlinter.contracts]]")
    assert f"Contracts: {contracts - 3} kept, 3 broken." in report
