"""Fail-closed must not mean ask-everything: the everyday command lines of a developer, under a
rule set written as a person would write it, are allowed at least 95 % of the time.

The share is printed (``pytest -s``) and asserted; the lines that ask are listed, so a change
that makes ordinary work ask more shows up here.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import HERE, Setup

LINES = [line for line in (HERE / "everyday_lines.txt").read_text(encoding="utf-8").splitlines()
         if line.strip() and not line.startswith("#")]
TARGET = 0.95
#: How many lines the engine allows now: a change that makes ordinary work ask more fails here,
#: and one that allows more raises it (s193: `ls -la ~` under a deny of `~/.ssh/**`).
ALLOWED = 195


@pytest.fixture
def everyday(setup: Setup) -> Setup:
    setup.write_user_rules((HERE / "everyday_rules.toml").read_text(encoding="utf-8"))
    # The project names where its tests are, as Python projects do: bare `pytest` collects only
    # tests/. Without it pytest collects the whole workspace and imports a conftest.py the
    # agent may write in out/ or tmp/, so bare pytest asks (test_settings_files.py).
    (setup.workspace / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                                                    encoding="utf-8")
    (setup.workspace / "tests").mkdir()
    report = setup.engine.load((setup.workspace,))
    assert not report.errors, [p.describe() for p in report.errors]
    return setup


def test_the_corpus_is_large_enough() -> None:
    assert len(LINES) >= 150
    assert len(set(LINES)) == len(LINES)


def test_everyday_lines_are_allowed(everyday: Setup) -> None:
    engine, ws = everyday.engine, everyday.workspace
    asked = [line for line in LINES if engine.check_command(line, workspace=ws).effect is not Effect.ALLOW]
    share = 1 - len(asked) / len(LINES)
    print(f"\neveryday corpus: {len(LINES) - len(asked)} of {len(LINES)} allowed ({share:.1%}); not allowed:")
    for line in asked:
        print(f"  {line}")
    assert share >= TARGET, asked
    assert len(LINES) - len(asked) >= ALLOWED, asked
