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
#: and one that allows more raises it (s193: `ls -la ~` under a deny of `~/.ssh/**`; s200:
#: `ls -d */`, test_glob_options.py; s269: `cd . && ls`, `cd src && cd .. && git status` beside the
#: `.git/**` deny, test_folder_options.py; `NODE_ENV=test npm test`, test_prefix_assignments.py;
#: s288: `PYTHONHASHSEED=0 pytest -q` and other data variables of python and pytest,
#: test_data_variables.py; s302: `wc -l -- *`, `grep -n -- TODO *.py` and `cat -- *.md`, a `--`
#: ending the options before a glob, test_named_file_reads.py; s310: `head -n 3 -- *`,
#: `tail -n +2 -- *.log`, `grep -n -e TODO -- *.py`, `grep -i --color=never -- KEY *`, options
#: taking a value before that `--`, read by head's, tail's and grep's option tables).
#:
#: The lines that still ask, and why they must (s200, each proven with strace under bash and dash
#: in a scratch folder with a scratch HOME):
#: - `python -m ruff check .`, `ruff check . > tmp/ruff.txt`: ruff reads the nearest settings of
#:   every file it checks, in every folder below `.`, and these rules let the agent write
#:   tmp/ruff.toml and out/ruff.toml: `cache-dir = "../.git/hooks"` there makes ruff write into
#:   .git/hooks (a write the rules deny), `extend = "~/.ssh/id_rsa"` makes it read the key and
#:   print its first line in the parse error (hostile corpus, issue s200).
#: - `find . -name '*.py' | xargs wc -l`, `… | xargs grep -l "import re"`: xargs splits find's
#:   output on blanks and quotes, so a planted name injects words: `src/x -R . y.py` makes it run
#:   `grep -l 'import re' ./src/x -R . y.py`, which follows the workspace's link to ~ into ~/.ssh.
#:   And find prints a link `src/k.py` to `~/.ssh/id_rsa` like any file: wc and grep open the key.
#: - `find . -name '*.py' -print0 | xargs -0 grep -n TODO`: the names are exact, but still the
#:   names the workspace holds when it runs: the same link has grep print the key's TODO line.
#:   The engine does not judge a command by what another command of the pipeline writes to it.
#: - `ps aux | grep python`: no rule names `ps` (and `ps e` prints the environment of processes,
#:   API keys included): only a rule can allow a program, the engine never does.
ALLOWED = 213


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
