"""s208: ``git -C DIR rest`` is judged as ``cd DIR && git rest``: a rule for ``rest`` covers it
when DIR is a folder of the workspace known before the line runs (each ``-C`` relative to the
last, ``-C ""`` ignored, as git 2.39 does: strace shows its chdir calls), and the repository found
from DIR keeps its own checks (its settings and hooks the agent may write: ``test_git_repositories``).
A ``-C`` out of the workspace, or to a folder only known when the line runs, asks: git reads that
repository and runs its hooks and the commands its settings name (the s208 lines of the hostile
corpus)."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git status"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git -c color.ui=* status"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git log **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git -C * diff"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "[cd|ln|mkdir] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""




def _verdict(setup: Setup, line: str) -> Effect | None:
    return effect_under(setup, RULES, line)


@pytest.fixture
def repository(setup: Setup) -> Path:
    git_in(setup.workspace, "init", "-q", "-b", "main")
    git_in(setup.workspace, "commit", "-q", "--allow-empty", "-m", "x")
    (setup.workspace / "src" / "lib").mkdir()
    return setup.workspace


@pytest.mark.parametrize("line", [
    "git -C src status",
    "git -C src -C lib status",  # each -C relative to the last: src/lib
    "git -C src/lib -C .. status",
    "git -C '' status",  # git ignores an empty -C
    "git -C src -c color.ui=never status",
    "git -C src log -p",
    "git -C {ws} log --oneline",
    "git -C src diff",  # a rule naming -C still matches the command as written
    "cd src && git -C lib status",
])
def test_a_rule_for_the_rest_covers_a_move_inside_the_workspace(setup: Setup, repository: Path, line: str) -> None:
    assert _verdict(setup, line.replace("{ws}", str(setup.workspace))) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git -C {outside} log -p",  # reads a repository outside the workspace
    "git -C {outside} status",  # runs its hooks and fsmonitor
    "git -C .. status",
    "git -C src -C ../.. log",
    "git -C ~ log",
    "git -C ~/other log",
    "git -C ~root log",
    "git -C \"$X\" status",
    "git -C src/* status",
    "git -C $(echo src) status",
    "git -C {outside} diff",  # a rule naming -C covers only a folder of the workspace
    "ln -s {outside} src/l && git -C src/l status",  # a link the line makes leads out
    "git -C out/r status",  # a repository the agent may put there (as `cd out/r && git status`)
])
def test_a_move_out_of_the_workspace_or_unknown_asks(setup: Setup, repository: Path, line: str) -> None:
    outside = setup.workspace.parent / "other"
    outside.mkdir()
    git_in(outside, "init", "-q")
    assert _verdict(setup, line.replace("{outside}", str(outside))) is not Effect.ALLOW


def test_a_link_already_leading_out_asks(setup: Setup, repository: Path) -> None:
    outside = setup.workspace.parent / "other"
    outside.mkdir()
    (setup.workspace / "src" / "l").symlink_to(outside)
    assert _verdict(setup, "git -C src/l status") is not Effect.ALLOW
    assert _verdict(setup, "cd src/l && git status") is not Effect.ALLOW
    # git's chdir is physical at each step: .. from where the link leads is the folder above other
    assert _verdict(setup, "git -C src/l -C .. status") is not Effect.ALLOW
    assert _verdict(setup, "git -C src -C l/.. status") is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git -C src log -p -- ../secret/key",
    "git -C src diff --no-index ../secret/key /dev/null",
    "cd src && git log -p -- ../secret/key",
])
def test_a_word_is_read_from_where_the_move_leads(setup: Setup, repository: Path, line: str) -> None:
    (setup.workspace / "secret").mkdir()
    (setup.workspace / "secret" / "key").write_text("SECRET\n", encoding="utf-8")
    setup.write_user_rules(RULES + '\n[[rule]]\neffect = "deny"\ntool = "read"\npattern = "@workspace/secret/**"\n')
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW


def test_a_move_out_of_the_workspace_says_so(setup: Setup, repository: Path) -> None:
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    decision = setup.engine.check_command("git -C .. status", workspace=setup.workspace)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE
    inside = setup.engine.check_command("git -C out/* status", workspace=setup.workspace)
    assert inside.parts[0].opaque is not Opaque.CD_OUTSIDE  # (only known when it runs: not said to be outside)
