"""Constructs the random exploration (``scripts/explore_against_bash.py``) builds since s289,
pinned: each line really runs ``touch M`` under bash, hidden from a rule set that allows every
program the line names, and the engine asks for it. Data that becomes a program's name (what
xargs reads, what find finds, a line sed runs), builtins that run or evaluate what they are given,
variables that builtins set and bash then evaluates, start-up files a shell option reads."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

RULES = rule_text("[echo|ls|cat|sed|xargs|env|find|tee|set|read|let|test|printf|true|compgen|mapfile|getopts|shopt] **",
                  "[bash|sh] -c **")
HIDDEN_TOUCH = [
    'echo touch M | xargs env',
    'echo touch M | xargs xargs',
    'echo touch M | sed e',
    'find /usr/bin -maxdepth 1 -name touch -exec env {} M \\;',
    'echo $(( $(touch M) ))',
    'tee >(touch M) < a.txt',
    "compgen -C 'touch M' x",
    "mapfile -C 'touch M' -c 1 y < a.txt",
    "getopts a: y -a 'a[$(touch M)]'; let OPTARG",
    "read <<< 'a[$(touch M)]'; let REPLY",
    "printf -v PS4 %s '$(touch M)'; set -x; true",
    "set -o posix; set -k; set -x PS4='$(touch M)'; true",
    "echo 'touch M' > s.sh; set -k; bash -c true BASH_ENV=s.sh",
    'x=1; echo ${x:$(touch M)}',
    'select x in $(touch M); do break; done <<< 1',
    "shopt -s lastpipe; echo 'a[$(touch M)]' | read y; let y",
    "echo 'touch M' | bash -s",
    "echo 'touch M' > .bash_profile; bash -lc true",
    "echo 'touch M' | xargs -I{} bash -c {}",
]


@pytest.mark.parametrize("line", HIDDEN_TOUCH)
def test_the_line_runs_what_its_rules_do_not_name(tmp_path: Path, line: str) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run([bash, "--noprofile", "--norc", "-c", line], cwd=tmp_path, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert (tmp_path / "M").exists(), line


@pytest.mark.parametrize("line", HIDDEN_TOUCH)
def test_the_engine_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is not Effect.ALLOW
