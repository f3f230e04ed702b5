"""s214: the variables that move where git works are judged as the options that do the same
(``git_variables``): ``GIT_DIR`` as ``--git-dir``, ``GIT_WORK_TREE`` as ``--work-tree``,
``GIT_COMMON_DIR`` as a repository folder, ``GIT_INDEX_FILE`` and the object folders as places
git reads and writes. Given on the line (``env GIT_WORK_TREE=../other git checkout -- x``
overwrote the file there under a rule naming the assignment: the s214 lines of the hostile
corpus) or already set in Echo Desk's own environment, into a folder outside the workspace
they ask, saying so; the index and objects they name are judged by the write rules. And a
program's own change-folder option (s210) is judged for a command a wrapper runs too
(``timeout 9 hg -R ../other update null`` deleted the files there), and env's own ``-C`` as a
``cd`` (``env -C ../other/proj make`` ran another project's build)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Opaque, Verdict
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .passed_env import pass_on

VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
             "GIT_ALTERNATE_OBJECT_DIRECTORIES")
RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git|hg|ninja|timeout|nice|env] **"
""" + "".join(f'\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "env {name}=* **"\n' for name in VARIABLES)
ENV_FOLDER = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[env -C *|env --chdir=*|make] **"\n'
WRITES_OUT = '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n'


@pytest.fixture(autouse=True)
def _none_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)


def _decide(setup: Setup, line: str, rules: str = RULES) -> Verdict:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line.replace("{outside}", str(setup.workspace.parent / "other")),
                                      workspace=setup.workspace)


@pytest.mark.parametrize("value", ["../other", "{outside}", "src/../..", "~/r"])
@pytest.mark.parametrize("name", VARIABLES)
def test_echo_desk_s_own_variable_into_a_folder_outside_asks_saying_so(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value.replace("{outside}", str(setup.workspace.parent / "other")))
    decision = _decide(setup, "git status")
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


@pytest.mark.parametrize("line", [
    "env GIT_WORK_TREE=../other git checkout -- README.md",
    "env GIT_WORK_TREE=../other git restore -- README.md",
    "env GIT_INDEX_FILE=../other/idx git add -A",
    "env GIT_INDEX_FILE={outside}/idx git add -A",
    "env GIT_OBJECT_DIRECTORY=../other/objects git add -A",
    "env GIT_DIR=../other/.git git log",
    "env GIT_COMMON_DIR=../other/.git git status",
    "env GIT_ALTERNATE_OBJECT_DIRECTORIES=out:../other git log",
    "env GIT_DIR=~/r git log",  # bash makes ~ the home folder after =, dash does not
    "env GIT_DIR=.git nice git --work-tree=../other checkout -- README.md",
    "git -C src --work-tree=../../other checkout -- README.md",
])
def test_a_variable_the_line_gives_into_a_folder_outside_is_not_allowed(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "env GIT_WORK_TREE=src git status",
    "env GIT_DIR=.git git log",
    "git status",
])
def test_a_variable_into_a_folder_of_the_workspace_is_covered_as_the_option_is(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is Effect.ALLOW


@pytest.mark.parametrize("value", ["src/idx", "out/idx"])
def test_the_index_a_variable_names_is_judged_by_the_write_rules(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    writable = value.startswith("out/")
    assert _decide(setup, f"env GIT_INDEX_FILE={value} git add -A").effect is not Effect.ALLOW  # (no write rule)
    pass_on(monkeypatch, "GIT_INDEX_FILE", value)
    assert (_decide(setup, "git add -A", RULES + WRITES_OUT).effect is Effect.ALLOW) is writable


def test_a_repository_the_agent_may_write_that_git_dir_names_is_git_s_settings(
        setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GIT_DIR=out/r`` makes out/r/config git's settings (``core.fsmonitor`` runs), as
    ``--git-dir=out/r`` does: where the agent may write it, a rule for git does not cover it."""
    repository = setup.workspace / "out" / "r"
    (repository / "objects").mkdir(parents=True)
    (repository / "refs").mkdir()
    (repository / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repository / "config").write_text("[core]\n\tfsmonitor = touch PWNED\n", encoding="utf-8")
    assert _decide(setup, "git status", RULES + WRITES_OUT).effect is Effect.ALLOW
    pass_on(monkeypatch, "GIT_DIR", "out/r")
    assert _decide(setup, "git status", RULES + WRITES_OUT).effect is not Effect.ALLOW
    monkeypatch.delenv("GIT_DIR")
    assert _decide(setup, "env GIT_DIR=out/r git status", RULES + WRITES_OUT).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "timeout 9 hg -R ../other update null",
    "nice hg --cwd ../other rm x",
    "nice ninja -C ../other",
    "timeout 9 nice hg -R {outside} status",
    "env git --work-tree=../other checkout -- README.md",
    "nice env -C ../other make",
])
def test_a_change_folder_option_behind_a_wrapper_is_judged_too(setup: Setup, line: str) -> None:
    assert _decide(setup, line, RULES + ENV_FOLDER).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["timeout 9 hg -R src status", "nice ninja -C src", "timeout 9 git status"])
def test_a_wrapped_option_into_the_workspace_is_covered_as_before(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "env -C ../other make",
    "env --chdir=../other git status",
    "env -C src -C ../.. git status",  # each from the last
    "env -C {outside} git status",
    "env -C ~ git status",
])
def test_env_s_change_folder_option_outside_asks_saying_so(setup: Setup, line: str) -> None:
    decision = _decide(setup, line, RULES + ENV_FOLDER)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


def test_env_s_change_folder_option_inside_is_judged_as_run_there(setup: Setup) -> None:
    """``env -C out git status`` reads the settings of the repository found from out/, as
    ``cd out && git status`` does: one the agent may plant there asks."""
    assert _decide(setup, "env -C src git status", RULES + ENV_FOLDER).effect is Effect.ALLOW
    repository = setup.workspace / "out" / ".git"
    (repository / "objects").mkdir(parents=True)
    (repository / "refs").mkdir()
    (repository / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repository / "config").write_text("[core]\n\tfsmonitor = touch PWNED\n", encoding="utf-8")
    assert _decide(setup, "env -C out git status", RULES + ENV_FOLDER + WRITES_OUT).effect is not Effect.ALLOW
    assert _decide(setup, "env -C src git status", RULES + ENV_FOLDER + WRITES_OUT).effect is Effect.ALLOW


CARGO = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[cargo|env CARGO_TARGET_DIR=*|env CARGO_BUILD_TARGET_DIR=*] **"\n'


@pytest.mark.parametrize("line", [
    "env CARGO_TARGET_DIR=../other/t cargo build",
    "env CARGO_BUILD_TARGET_DIR=../other/t cargo test",
    "env CARGO_TARGET_DIR={outside}/t cargo clean",  # (clean deletes that folder)
    "env CARGO_TARGET_DIR=src/t cargo build",
    "env CARGO_TARGET_DIR=~/t cargo build",
])
def test_the_folder_cargo_s_variables_name_is_judged_by_the_write_rules(setup: Setup, line: str) -> None:
    """``env CARGO_TARGET_DIR=../other/t cargo build`` wrote there and ``cargo clean`` deleted
    it (cargo 1.95, bash and dash): judged as ``cargo build --target-dir ../other/t`` is."""
    assert _decide(setup, line, RULES + CARGO).effect is not Effect.ALLOW
    assert _decide(setup, line, RULES + CARGO + WRITES_OUT).effect is not Effect.ALLOW


@pytest.mark.parametrize("value", ["../other/t", "src/t"])
def test_echo_desk_s_own_cargo_target_folder_is_judged_by_the_write_rules(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    assert _decide(setup, "cargo build", RULES + CARGO).effect is Effect.ALLOW
    pass_on(monkeypatch, "CARGO_TARGET_DIR", value)
    assert _decide(setup, "cargo build", RULES + CARGO).effect is not Effect.ALLOW
    assert _decide(setup, "cargo version", RULES + CARGO).effect is Effect.ALLOW  # (builds nothing)
    pass_on(monkeypatch, "CARGO_TARGET_DIR", "out/t")
    assert _decide(setup, "cargo build", RULES + CARGO + WRITES_OUT).effect is Effect.ALLOW


TOX = '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[tox|env TOX_WORK_DIR=*] **"\n'


@pytest.mark.parametrize("line", [
    "tox --workdir ../other/wd -e py", "tox --workdir=../other/wd", "tox -e py --w ../other/wd", "tox run --workdir ~/wd",
    "tox --workdir src/wd", "env TOX_WORK_DIR=../other/wd tox -e py", "tox --workdir",
    "tox -e py --result-json ../other/r.json", "tox run -e py --res=../other/r.json",
    "tox --workdir out/tox \"$@\"", "tox --result-json out/r.json $X",
])
def test_the_folder_tox_builds_in_is_judged_by_the_write_rules(setup: Setup, line: str) -> None:
    """``tox --workdir ../other/wd`` created a virtualenv there, ``--result-json`` wrote its file
    there (tox 4.67, bash and dash): a rule for tox trusts it to build in the project, not in
    every folder the line names."""
    assert _decide(setup, line, RULES + TOX + WRITES_OUT).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", ["tox --workdir out/tox -e py", "tox --workdir=out/tox", "tox -e py -- --workdir ../x",
                                  "tox -e py --result-json out/r.json", "tox -e py -r"])
def test_tox_building_where_the_agent_may_write_stays_allowed(setup: Setup, line: str) -> None:
    assert _decide(setup, line, RULES + TOX + WRITES_OUT).effect is Effect.ALLOW


@pytest.mark.parametrize("value", ["../other/wd", "src/wd", "~/wd"])
def test_echo_desk_s_own_tox_work_folder_is_judged_by_the_write_rules(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    assert _decide(setup, "tox -e py", RULES + TOX + WRITES_OUT).effect is Effect.ALLOW
    pass_on(monkeypatch, "TOX_WORK_DIR", value)
    assert _decide(setup, "tox -e py", RULES + TOX + WRITES_OUT).effect is not Effect.ALLOW
    assert _decide(setup, "tox -e py --workdir out/tox", RULES + TOX + WRITES_OUT).effect is Effect.ALLOW
    pass_on(monkeypatch, "TOX_WORK_DIR", "out/tox")
    assert _decide(setup, "tox -e py", RULES + TOX + WRITES_OUT).effect is Effect.ALLOW


@pytest.mark.parametrize(("name", "value", "line", "rules"), [
    *((name, "../other", "git status", RULES) for name in VARIABLES),
    ("CARGO_TARGET_DIR", "../other/t", "cargo build", RULES + CARGO),
    ("TOX_WORK_DIR", "../other/wd", "tox -e py", RULES + TOX + WRITES_OUT),
])
def test_a_variable_of_echo_desk_s_own_that_commands_never_get_is_not_judged(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str, rules: str) -> None:
    """s230: run_command passes a command only the allow-list of Echo Desk's environment
    (``sandbox.command_environment``): a ``GIT_DIR`` Echo Desk was started with moves nothing,
    so the engine judging it asked for a move that never happens."""
    monkeypatch.setenv(name, value)
    assert _decide(setup, line, rules).effect is Effect.ALLOW
    assert _decide(setup, f"env {name}={value} {line}", rules).effect is not Effect.ALLOW  # (given: judged)


@pytest.mark.parametrize("line", [
    "env GIT_DIR=../other/.git git log", "env GIT_WORK_TREE={outside} git checkout -- README.md",
    "env GIT_COMMON_DIR=../other/.git git status", "nice env GIT_DIR=../other/.git git log",
    "env GIT_WORK_TREE=src env GIT_DIR=../other/.git git log",
])
def test_a_variable_the_line_gives_into_a_folder_outside_says_so(setup: Setup, line: str) -> None:
    """s230: the ask's reason is what the engine found, a move outside the workspace, as for
    the same variable a command inherits, not the 'dangerous option' of a rule that matched."""
    decision = _decide(setup, line)
    assert decision.effect is None
    assert decision.parts[0].opaque is Opaque.CD_OUTSIDE


def test_a_variable_the_line_gives_into_the_workspace_is_not_a_move_outside(setup: Setup) -> None:
    assert _decide(setup, "env GIT_WORK_TREE=src git status").effect is Effect.ALLOW


GIT_ADD = ('\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "git add **"\n'
           '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "env GIT_*=* **"\n' + WRITES_OUT)


@pytest.mark.parametrize("line", ["env GIT_INDEX_FILE=out/idx git add -A", "cd src && env GIT_INDEX_FILE=../out/idx git add -A"])
def test_a_relative_index_the_line_gives_asks_where_the_agent_may_write(setup: Setup, line: str) -> None:
    """s230: git finds a relative ``GIT_INDEX_FILE`` from the top of the work tree, not from the
    folder it started in (``cd src && env GIT_INDEX_FILE=../other/idx git add -A`` wrote beside
    the workspace, git 2.39, bash and dash): judged from the folder, it would be out/idx."""
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert _decide(setup, line, GIT_ADD).effect is not Effect.ALLOW


def test_an_absolute_index_the_agent_may_write_is_allowed(setup: Setup) -> None:
    assert _decide(setup, f"env GIT_INDEX_FILE={setup.workspace}/out/idx git add -A", GIT_ADD).effect is Effect.ALLOW
    assert _decide(setup, f"env GIT_INDEX_FILE={setup.workspace}/idx git add -A", GIT_ADD).effect is not Effect.ALLOW


def _index_with_a_submodule_in_out(setup: Setup) -> Path:
    """A repository whose own index holds no submodule, and out/idx, an index holding a gitlink
    at out/sub, where a repository of the agent's lies."""
    ws = setup.workspace
    git_in(ws, "init", "-q")
    git_in(ws, "commit", "-q", "--allow-empty", "-m", "x")
    (ws / "out" / "sub").mkdir(parents=True, exist_ok=True)
    git_in(ws / "out" / "sub", "init", "-q")
    git_in(ws / "out" / "sub", "commit", "-q", "--allow-empty", "-m", "s")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws / "out" / "sub", capture_output=True, text=True,
                          check=True).stdout.strip()
    subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"160000,{head},out/sub"], cwd=ws, check=True,
                   env={**os.environ, "GIT_INDEX_FILE": str(ws / "out" / "idx"), "GIT_CONFIG_NOSYSTEM": "1"})
    return ws / "out" / "idx"


@pytest.mark.parametrize("named", ["absolute", "out/idx"])
def test_the_submodules_of_the_index_git_index_file_names_count(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                               named: str) -> None:
    """s270: git status and git add -A run git in the submodules of the index GIT_INDEX_FILE
    names: with out/idx holding a gitlink at out/sub, ``env GIT_INDEX_FILE=out/idx git status``
    ran the core.fsmonitor of out/sub/.git/config (git 2.39, bash and dash), while the engine
    read the repository's own index, which holds none."""
    index = _index_with_a_submodule_in_out(setup)
    rules = RULES + WRITES_OUT
    assert _decide(setup, "git status", rules).effect is Effect.ALLOW
    pass_on(monkeypatch, "GIT_INDEX_FILE", str(index) if named == "absolute" else named)
    assert _decide(setup, "git status", rules).effect is not Effect.ALLOW
    assert _decide(setup, "git add -A", rules).effect is not Effect.ALLOW
