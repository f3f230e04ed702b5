"""s175: ``python -m MODULE args`` judged as the program of that name (``pip``, ``pytest``,
``mypy``), whose console script runs the same entry: a rule for ``pip config list`` covers
``python -m pip config list``. What differs is where python looks for modules: ``-m`` puts the
folder it runs in first (``./pip.py`` ran under ``python -m pip config list``, proven below),
and ``$PYTHONPATH`` comes before python's own folders for both forms. Where the agent may write
there, the line still asks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under
from .engine_verdicts import rule_text as _rules
from .passed_env import pass_on

RULES = (_rules("pip config list", "pip list **", "mypy **", "cd **") + _rules("pip install **", effect="deny")
         + _rules("@workspace/out/**", tool="write"))


def _verdict(setup: Setup, line: str, rules: str = RULES) -> Effect | None:
    return effect_under(setup, rules, line)


@pytest.mark.parametrize("line", ["python -m pip config list", "python3 -m pip list --outdated", "python -I -m pip list",
                                  "python3 -mpip list", "python -m mypy src", "python3.11 -m pip config list"])
def test_the_module_is_judged_as_its_program(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "python -m pip config set global.index-url http://x",  # not what the rule names
    "python -m pip list --log ~/.bashrc",  # pip's own options are read as pip's
    "python -i -m pip list",  # then reads python code from its input
    "python -W ignore::x.y -m pip list",  # imports x
    "python -c pip list",  # code, not a module
    "python -m pip.x list",  # another module
    "cd out && python -m pip list",  # out/pip.py would run instead
])
def test_what_the_program_rule_does_not_cover_asks(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


def test_a_deny_for_the_program_denies_the_module(setup: Setup) -> None:
    assert _verdict(setup, "python -m pip install x") is Effect.DENY


def test_a_python_path_the_agent_may_write_asks_for_both_forms(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    pass_on(monkeypatch, "PYTHONPATH", "out")
    for line in ("python -m pip config list", "pip config list", "python -m mypy src"):
        assert _verdict(setup, line) is not Effect.ALLOW, line
    pass_on(monkeypatch, "PYTHONPATH", "src")
    assert _verdict(setup, "python -m pip config list") is Effect.ALLOW


def _run(folder: Path, *argv: str, **env: str) -> None:
    home = folder / "home"
    home.mkdir(exist_ok=True)
    subprocess.run(list(argv), cwd=folder, env={"HOME": str(home), "PATH": os.environ["PATH"], **env},
                   capture_output=True, check=False, timeout=120)


@pytest.mark.skipif(subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0,
                    reason="pip is not installed")
def test_python_m_runs_the_module_of_the_folder_it_runs_in(tmp_path: Path) -> None:
    (tmp_path / "pip.py").write_text("open('PWNED', 'w').close()\n", encoding="utf-8")
    _run(tmp_path, sys.executable, "-m", "pip", "config", "list")
    assert (tmp_path / "PWNED").exists()


@pytest.mark.skipif(shutil.which("pip") is None, reason="pip is not installed")
def test_pythonpath_runs_the_package_it_names_under_pip(tmp_path: Path) -> None:
    (tmp_path / "out" / "pip").mkdir(parents=True)
    (tmp_path / "out" / "pip" / "__init__.py").write_text("open('PWNED', 'w').close()\n", encoding="utf-8")
    _run(tmp_path, "pip", "config", "list", PYTHONPATH=str(tmp_path / "out"))
    assert (tmp_path / "PWNED").exists()


def test_a_user_site_the_agent_may_write_asks_for_pip(setup: Setup) -> None:
    """pip is a python program: outside a virtual environment its python runs the ``.pth``
    files of ~/.local/lib/pythonX.Y/site-packages (``x.pth`` ran under ``pip config list``,
    pip 23, python 3.11: s175), as mypy's and pytest's do."""
    assert _verdict(setup, "pip config list") is Effect.ALLOW
    assert _verdict(setup, "pip config list", RULES + _rules("~/.local/**", tool="write")) is not Effect.ALLOW
