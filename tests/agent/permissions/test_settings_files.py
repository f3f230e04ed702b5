"""A program that reads settings or code from files it finds itself (mypy, ruff, git, npm,
pytest, ``python -m``) is allowed by a rule only while none of those files is one the write
rules let the agent write. The hostile corpus proves the harm (``checker-settings``,
``module-shadow``, ``runner-settings``); these pin the verdicts around it."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, Opaque
from echo_desk.agent.permissions.settings_files import places

from .conftest import Setup

CHECKERS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[mypy|ruff check|git status|npm test|pytest|make test|cd|python -m mypy|python -W ignore -m mypy] **"
"""


def _rules(*writable: str) -> str:
    return CHECKERS + "".join(f'\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "{p}"\n' for p in writable)


def _verdict(setup: Setup, line: str, *writable: str) -> Effect | None:
    setup.write_user_rules(_rules(*writable))
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace).effect


@pytest.mark.parametrize("line", [
    "mypy src", "ruff check src", "git status", "npm test", "pytest -q", "make test", "cd src && mypy .",
    "python -m mypy src",
])
def test_settings_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd out && mypy ../src", "cd out && ruff check ../src", "cd out && git status", "cd out && npm test",
    "cd out && pytest -q", "cd out && make test", "cd out && python -m mypy ../src", "cd out && python -W ignore -m mypy ../src",
    "ruff check out", "ruff check .", "ruff check src out", "cd out/deeper && mypy ../../src",
    "ruff check --stdin-filename=out/x.py src", "ruff check --stdin-filename out/x.py src",
    "cd out && ruff check --select=E",
])
def test_settings_in_a_folder_the_agent_may_write_ask(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW


def test_a_folder_rule_that_matches_folders_below_counts(setup: Setup) -> None:
    """``@workspace/**/cfg/**`` lets the agent write ``src/cfg/ruff.toml``: ruff reads it when it
    checks src. ``@workspace/**/*.log`` names files: it does not let the agent write into a
    folder ``src/x.log`` (``PathPattern``), so it gives ruff nothing to read."""
    assert _verdict(setup, "ruff check src", "@workspace/**/cfg/**") is not Effect.ALLOW
    assert _verdict(setup, "ruff check src", "@workspace/**/*.log") is Effect.ALLOW
    assert _verdict(setup, "mypy src", "@workspace/**/*.log") is Effect.ALLOW


def test_the_part_says_why(setup: Setup) -> None:
    setup.write_user_rules(_rules("@workspace/out/**"))
    setup.engine.refresh()
    verdict = setup.engine.check_command("cd out && mypy ../src", workspace=setup.workspace)
    assert [p.opaque for p in verdict.parts if p.opaque] == [Opaque.AGENT_SETTINGS]


def test_an_unknown_folder_asks(setup: Setup) -> None:
    assert _verdict(setup, 'cd "$D" && mypy src') is not Effect.ALLOW


def test_where_python_m_finds_its_module() -> None:
    here = Path("/w")
    assert [p.names[0] for p in places(("python3", "-Bm", "mypy", "src"), [here])][:1] == ["mypy.py"]
    assert places(("python", "-c", "import mypy"), [here]) == []
    assert places(("python", "-W", "ignore", "-m", "ruff.x", "check"), [here])[0].names[:2] == ("ruff.py",
                                                                                                 "ruff/__init__.py")
    assert places(("python", "-W", "-m", "x"), [here]) == []  # -W took "-m" as its value
