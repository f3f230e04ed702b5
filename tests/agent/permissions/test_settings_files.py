"""A program that reads settings or code from files it finds itself (mypy, ruff, git, npm,
pytest, ``python -m``) is allowed by a rule only while none of those files is one the write
rules let the agent write. The hostile corpus proves the harm (``checker-settings``,
``module-shadow``, ``runner-settings``); these pin the verdicts around it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, Opaque, settings_files
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.settings_files import places
from tests.agent.permissions.git_setup import git_in

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed
from .passed_env import pass_on

CHECKERS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[mypy|ruff check|git status|npm test|npx tsc|python3 -m pytest|pnpm test|yarn test|less|pytest|make test|cd|python -m mypy|python -m pytest|python3 -m pytest|py.test|python -W ignore -m mypy|man] **"
"""


def _rules(*writable: str) -> str:
    return CHECKERS + writes_allowed(*writable)


def _verdict(setup: Setup, line: str, *writable: str) -> Effect | None:
    return effect_under(setup, _rules(*writable), line)


@pytest.mark.parametrize("line", [
    "mypy src", "ruff check src", "git status", "npm test", "npx tsc --noEmit", "pytest -q tests", "make test", "cd src && mypy .",
    "python -m mypy src", "pytest -q tests/test_ok.py", "python -m pytest -x src tests",
    "pytest -q tests/test_ok.py::test_ok", "python -m pytest 'tests/test_ok.py::test_ok[a]'",
])
def test_settings_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cd out && mypy ../src", "cd out && ruff check ../src", "cd out && git status", "cd out && npm test",
    "cd out && pytest -q", "cd out && make test", "cd out && python -m mypy ../src", "cd out && python -W ignore -m mypy ../src",
    "ruff check out", "ruff check .", "ruff check src out", "cd out/deeper && mypy ../../src",
    "ruff check --stdin-filename=out/x.py src", "ruff check --stdin-filename out/x.py src",
    "cd out && ruff check --select=E",
    # npx runs the bin of that name in the nearest package.json: out/package.json's "tsc".
    "cd out && npx tsc --noEmit", "cd out; npx tsc", "cd out && pnpm test", "cd out && yarn test",
    # pytest imports the conftest.py of every folder it collects and reads the settings file
    # where its operands are; bare pytest collects the folder it runs in, out/ included.
    "pytest -q", "pytest out", "pytest -q out/test_x.py", "python -m pytest --co -q", "python3 -m pytest -q tests out",
    "py.test -k x .",
    # stop50: a node id's path is what comes before its first "::" (out/conftest.py is loaded).
    "python -m pytest -q 'out::x'", "pytest out::test_x tests", "pytest -q out/test_x.py::t[a]", "pytest ::x",
    # An option's value is no operand: these check the folder they run in, out/ included.
    "pytest -k tests", "python -m pytest -m slow", "ruff check --select E", "ruff check --output-format concise",
])
def test_settings_in_a_folder_the_agent_may_write_ask(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW


@pytest.mark.parametrize(("settings", "effect"), [
    ('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n', Effect.ALLOW),
    ('[tool.pytest.ini_options]\ntestpaths = ["tests", "out"]\n', None),
    ('[tool.pytest.ini_options]\ntestpaths = ["t*"]\n', None),  # a glob: not read here
    ('[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "out"\n', None),  # addopts may add operands
    ('[tool.pytest.ini_options]\n', None),  # no testpaths: the whole folder
    ('[tool.ruff]\n', None),  # not pytest's: pytest collects the whole folder
    ('[tool.pytest.ini_options\n', None),  # does not parse
])
def test_bare_pytest_collects_the_testpaths_of_the_persons_settings(setup: Setup, settings: str,
                                                                    effect: Effect | None) -> None:
    (setup.workspace / "tests").mkdir()
    (setup.workspace / "pyproject.toml").write_text(settings, encoding="utf-8")
    verdict = _verdict(setup, "python -m pytest -q", "@workspace/out/**")
    assert (verdict is Effect.ALLOW) is (effect is Effect.ALLOW)


def test_testpaths_count_only_in_the_folder_pytest_runs_in(setup: Setup) -> None:
    """pytest uses ``testpaths`` only when it runs in its rootdir: from src/ it collects src/."""
    (setup.workspace / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    # testpaths none of which exists: pytest collects the folder it runs in after all.
    assert _verdict(setup, "pytest", "@workspace/out/**") is not Effect.ALLOW
    (setup.workspace / "tests").mkdir()
    assert _verdict(setup, "pytest", "@workspace/out/**") is Effect.ALLOW
    assert _verdict(setup, "cd src && pytest", "@workspace/src/gen/**") is not Effect.ALLOW
    assert _verdict(setup, "pytest", "@workspace/src/gen/**") is Effect.ALLOW


def test_a_folder_rule_that_matches_folders_below_counts(setup: Setup) -> None:
    """``@workspace/**/cfg/**`` lets the agent write ``src/cfg/ruff.toml``: ruff reads it when it
    checks src. ``@workspace/**/*.log`` names files: it does not let the agent write into a
    folder ``src/x.log`` (``PathPattern``), so it gives ruff nothing to read."""
    assert _verdict(setup, "ruff check src", "@workspace/**/cfg/**") is not Effect.ALLOW
    assert _verdict(setup, "ruff check src", "@workspace/**/*.log") is Effect.ALLOW
    assert _verdict(setup, "mypy src", "@workspace/**/*.log") is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    # s88: pytest runs as code every file it collects, not only conftest.py: doctest files
    # (`test*.txt`, or what --doctest-glob names), test modules, every .py with
    # --doctest-modules, and a file named as an operand. Proven: tests/run.log holding
    # `>>> subprocess.run(["touch", …])` ran with `python -m pytest --doctest-glob='*.log' tests`.
    ("python -m pytest --doctest-glob='*.log' tests", "@workspace/**/*.log"),
    ("pytest --doctest-glob=x.log tests", "@workspace/**/*.log"),
    ("pytest --doctest-glob='*.md' tests", "@workspace/**/*.log"),  # the option itself: not covered
    ("pytest tests", "@workspace/**/*.txt"),  # tests/test_notes.txt is a doctest file
    ("pytest tests", "@workspace/**/test_*.py"),
    ("pytest tests", "@workspace/**/*_test.py"),
    ("python -m pytest --doctest-modules tests", "@workspace/**/scratch_*.py"),
    ("pytest tests/notes.txt", "@workspace/**/*.txt"),
    # Any .py under a collected folder: a test may import it, and pytest puts the folder first
    # on sys.path (tests/requests.py shadows the installed requests).
    ("pytest tests", "@workspace/**/scratch_*.py"),
])
def test_files_pytest_collects_as_code_the_agent_may_write_ask(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    ("python -m pytest -q tests", "@workspace/**/*.log"),
    ("python -m pytest --doctest-modules tests", "@workspace/**/*.log"),
    ("pytest tests/test_ok.py", "@workspace/**/*.txt"),  # a file: nothing below it is collected
])
def test_files_pytest_does_not_collect_leave_the_rule_in_force(setup: Setup, line: str, writable: str) -> None:
    (setup.workspace / "tests").mkdir()
    (setup.workspace / "tests" / "test_ok.py").write_text("def test_ok():\n    pass\n", encoding="utf-8")
    assert _verdict(setup, line, writable) is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    # s207: of the .txt files, pytest runs as doctests only those named test*.txt (its
    # default --doctest-glob, matched on the name): notes.txt is no code of a plain pytest.
    ("pytest tests", "@workspace/tests/notes.txt"),
    ("pytest -q", "@workspace/notes.txt"),
    ("python -m pytest tests", "@workspace/**/notes*.txt"),
    ("pytest tests", "@workspace/tests/Test_a.txt"),  # (the glob is matched with its case)
])
def test_text_files_pytest_does_not_run_as_doctests_leave_the_rule_in_force(setup: Setup, line: str,
                                                                             writable: str) -> None:
    assert _verdict(setup, line, writable) is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    ("pytest tests", "@workspace/tests/test_notes.txt"),
    ("pytest tests", "@workspace/tests/t*"),
    ("pytest tests", "@workspace/tests/*s.txt"),
    ("pytest tests", "@workspace/tests/[st]est_a.txt"),
    # A rule's name glob allows every name it matches, not only the sample made of it (testx):
    ("pytest tests", "@workspace/tests/test*"),
    ("pytest tests", "@workspace/tests/*_test*"),
    ("pytest tests/notes.txt", "@workspace/tests/notes.txt"),  # named on the line: collected
])
def test_files_pytest_runs_by_their_names_ask(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW


@pytest.mark.parametrize(("addopts", "effect"), [
    ('"-q --strict-markers"', Effect.ALLOW),
    ('"--doctest-glob=*.md"', None),  # runs tests/x.md (proven, pytest 9, s207)
    ('["--doctest-glob", "*.md"]', None),
    ('"-q --doctest-glob=test*.txt --doctest-glob=docs*.md"', None),
    ('"-o doctest_encoding=latin-1"', None),  # changes other settings: not read here
    ('"-qo x=y"', None),
    ('"--doctest-glob"', None),
])
def test_doctest_globs_from_the_settings_file_count(setup: Setup, addopts: str, effect: Effect | None) -> None:
    (setup.workspace / "pyproject.toml").write_text(f"[tool.pytest.ini_options]\naddopts = {addopts}\n",
                                                   encoding="utf-8")
    assert _verdict(setup, "pytest tests", "@workspace/**/*.md") is effect


def test_a_settings_file_above_the_collected_folder_counts(setup: Setup) -> None:
    (setup.workspace / "src" / "tox.ini").write_text("[pytest]\naddopts = --doctest-glob=*.md\n", encoding="utf-8")
    assert _verdict(setup, "pytest src/pkg", "@workspace/**/*.md") is not Effect.ALLOW
    assert _verdict(setup, "pytest tests", "@workspace/**/*.md") is Effect.ALLOW


def test_pytest_addopts_in_the_environment_may_name_any_doctest_file(setup: Setup,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``PYTEST_ADDOPTS`` in the environment Echo Desk's commands inherit: pytest adds its options
    to the line's (``--doctest-glob=*.md`` runs tests/x.md): any file under what it collects."""
    pass_on(monkeypatch, "PYTEST_ADDOPTS", "--doctest-glob=*.md")
    assert _verdict(setup, "pytest tests", "@workspace/**/*.md") is not Effect.ALLOW
    pass_on(monkeypatch, "PYTEST_ADDOPTS", " ")
    assert _verdict(setup, "pytest tests", "@workspace/**/*.md") is Effect.ALLOW


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


@pytest.mark.parametrize("line", ["git status", "mypy src", "python -m mypy src", "ruff check src", "npm test",
                                  "less src/x.py", "man ls", "man -l src/x.py"])
def test_the_users_own_settings_count_when_the_agent_may_write_the_home_folder(setup: Setup, line: str) -> None:
    """git, mypy, ruff, npm and less read the user's settings in the home folder wherever they run
    (``~/.gitconfig``'s ``diff.external`` runs a program): with ``~/**`` writable they ask."""
    assert _verdict(setup, line, "~/**") is not Effect.ALLOW
    assert _verdict(setup, line, "~/notes/**") is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    ("git status", "~/.config/git/**"), ("ruff check src", "~/.config/ruff/**"), ("mypy src", "~/.config/mypy/**"),
    ("git status", "~/.gitconfig"), ("mypy src", "~/.mypy.ini"), ("npm test", "~/.npmrc"), ("npx tsc", "~/.npmrc"),
    ("less src/x.py", "~/.lesskey"), ("less src/x.py", "~/.config/lesskey"),
    # (man-db's ~/.manpath: its DEFINE lines name the programs man formats a page with, s236)
    ("man ls", "~/.manpath"), ("man -l src/x.py", "~/.manpath"),
])
def test_each_user_settings_file_counts(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW


def test_the_settings_folder_named_by_xdg_config_home_counts(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = setup.workspace / "out" / "config"
    pass_on(monkeypatch, "XDG_CONFIG_HOME", str(elsewhere))
    assert _verdict(setup, "ruff check src", "@workspace/out/config/**") is not Effect.ALLOW
    pass_on(monkeypatch, "XDG_CONFIG_HOME", "relative/config")  # not absolute: programs ignore it
    assert _verdict(setup, "ruff check src", "@workspace/out/config/**") is Effect.ALLOW


@pytest.mark.parametrize("line", ["python -m mypy src", "python3 -m pytest -q tests", "mypy src", "pytest -q tests"])
def test_the_users_site_packages_count_for_python_programs(setup: Setup, line: str) -> None:
    """A python outside a virtual environment runs every ``.pth`` file of
    ``~/.local/lib/pythonX.Y/site-packages`` at its start (any line in it that starts with
    ``import`` is run): a write rule reaching there makes python programs ask."""
    assert _verdict(setup, line, "~/.local/**") is not Effect.ALLOW
    assert _verdict(setup, line, "~/.local/lib/python3.11/site-packages/*.pth") is not Effect.ALLOW
    assert _verdict(setup, line, "~/.local/share/**") is Effect.ALLOW


# -- s109: git runs git in every submodule whose folder holds a repository -------------------------


def _with_submodule(workspace: Path, path: str = "out/sub") -> None:
    git_in(workspace, "init", "-q")
    git_in(workspace, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},{path}")


@pytest.mark.parametrize("line", ["git status", "git status -s", "git status --short --branch", "cd src && git status"])
def test_a_submodule_in_a_folder_the_agent_may_write_asks(setup: Setup, line: str) -> None:
    """The repository ships a gitlink at out/sub: the agent may plant out/sub/.git, whose
    core.fsmonitor ``git status`` runs (hostile corpus: git-submodule)."""
    _with_submodule(setup.workspace)
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, line, "@workspace/tmp/**") is Effect.ALLOW


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_submodules_are_read_from_every_index_version(tmp_path: Path, version: str) -> None:
    from echo_desk.agent.permissions import git_index

    for name in ("a.txt", "deep/er/b.txt", "deep/er/c.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    git_in(tmp_path, "init", "-q")
    git_in(tmp_path, "add", "deep")
    if version == "3":
        git_in(tmp_path, "add", "--intent-to-add", "a.txt")  # an entry with extended flags
    git_in(tmp_path, "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},deep/er/sub")
    git_in(tmp_path, "update-index", "--add", "--cacheinfo", f"160000,{'2' * 40},zz/s2")
    git_in(tmp_path, "update-index", "--index-version", version)
    assert git_index.gitlinks(tmp_path) == ("deep/er/sub", "zz/s2")
    assert git_index.repository_root(tmp_path / "deep" / "er") == tmp_path


def test_an_index_without_submodules_or_one_not_read_says_so(tmp_path: Path) -> None:
    from echo_desk.agent.permissions import git_index

    git_in(tmp_path, "init", "-q")
    assert git_index.gitlinks(tmp_path) == ()  # no index yet
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    git_in(tmp_path, "add", "a.txt")
    assert git_index.gitlinks(tmp_path) == ()
    _with_submodule(tmp_path)
    git_in(tmp_path, "update-index", "--split-index")  # most entries in another file: not read
    assert git_index.gitlinks(tmp_path) is None
    (tmp_path / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09\0\0\0\x01" + bytes(70) + b"\0\0\xe0\0")
    assert git_index.gitlinks(tmp_path) is None


def test_an_index_not_read_makes_every_folder_of_the_worktree_count(setup: Setup) -> None:
    _with_submodule(setup.workspace)
    (setup.workspace / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09\0\0\0\x01" + bytes(70) + b"\0\0\xe0\0")
    assert _verdict(setup, "git status", "@workspace/out/**") is not Effect.ALLOW


def test_the_submodules_of_a_sha256_repository_are_read(tmp_path: Path) -> None:
    from echo_desk.agent.permissions import git_index

    git_in(tmp_path, "init", "-q", "--object-format=sha256")
    (tmp_path / "a.txt").write_text("x\n", encoding="utf-8")
    git_in(tmp_path, "add", "a.txt")
    git_in(tmp_path, "update-index", "--add", "--cacheinfo", f"160000,{'3' * 64},out/sub")
    assert git_index.gitlinks(tmp_path) == ("out/sub",)


def test_the_submodules_of_a_linked_worktree_are_read(tmp_path: Path) -> None:
    from echo_desk.agent.permissions import git_index

    main = tmp_path / "main"
    main.mkdir()
    git_in(main, "init", "-q")
    (main / "a.txt").write_text("x\n", encoding="utf-8")
    git_in(main, "add", "a.txt")
    git_in(main, "commit", "-q", "-m", "x")
    git_in(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    git_in(tmp_path / "wt", "update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},out/sub")
    assert git_index.gitlinks(tmp_path / "wt") == ("out/sub",)


# -- s130: a git command of the same line may make a planted repository a submodule first -------------
STAGING = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git status|git diff|git log|git add|git commit|git rev-parse|git branch|git tag|xargs|sh -c|echo] **"
"""


def _staging_verdict(setup: Setup, line: str, writable: str = "@workspace/out/**") -> Effect | None:
    git_in(setup.workspace, "init", "-q")
    return effect_under(setup, STAGING + writes_allowed(writable), line)


@pytest.mark.parametrize("line", [
    "git add out/r && git status", "git add -A; git diff", "git add out && git add out", "git status; git add out",
    "git add -A && git commit -qam x", "git add . | git add .", "git add out/r && git log -1",
    # (a line a command runs holds commands too)
    "git add out/r && sh -c 'git status'", "sh -c 'git add out/r && git status'",
])
def test_a_line_that_may_stage_a_planted_repository_asks(setup: Setup, line: str) -> None:
    """``git add out/r`` makes the repository the agent planted in out/r a submodule, which a
    later git command of the line runs git in (its core.fsmonitor: hostile corpus, s130): the
    index read before the line runs does not show it."""
    assert _staging_verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git add out/r", "git add -A", "git commit -qam x", "git status && git diff --stat", "git log -1; git status",
    "git branch -a; git status", "git tag -l; git diff", "git rev-parse HEAD && git status",
])
def test_staging_alone_or_reading_twice_leaves_the_rule_in_force(setup: Setup, line: str) -> None:
    """Alone, ``git add`` runs nothing in a folder that is not a submodule yet (proven), and
    commands that never add an index entry leave the index as read."""
    assert _staging_verdict(setup, line) is Effect.ALLOW


def test_staging_then_reading_asks_only_where_a_repository_may_be_planted(setup: Setup) -> None:
    assert _staging_verdict(setup, "git add src && git status", "@workspace/**/*.log") is Effect.ALLOW


# -- s130: what the person's git settings name: a hooks folder, an included file, a program ---------
def _configured(setup: Setup, *settings: tuple[str, str]) -> None:
    git_in(setup.workspace, "init", "-q")
    for key, value in settings:
        git_in(setup.workspace, "config", key, value)


@pytest.mark.parametrize(("settings", "writable", "line"), [
    # The project keeps its hooks in the worktree (`.githooks`, husky's `.husky/_`).
    ((("core.hooksPath", "scripts/hooks"),), "@workspace/scripts/**", "git commit -qam x"),
    ((("core.hooksPath", "scripts/hooks"),), "@workspace/scripts/hooks/*", "git status"),
    ((("core.hooksPath", ".husky/_"),), "@workspace/.husky/**", "git commit -qm x"),
    # A settings file the project shares from its worktree, and one it includes in turn.
    ((("include.path", "../shared.gitconfig"),), "@workspace/shared.gitconfig", "git status"),
    ((("includeIf.gitdir:/.path", "../shared.gitconfig"),), "@workspace/shared.gitconfig", "git diff"),
    # A program given by path, and a shell line that changes folder first.
    ((("diff.external", "./tools/difftool.sh"),), "@workspace/tools/**", "git diff"),
    ((("core.fsmonitor", "tools/fsmonitor --quiet"),), "@workspace/tools/**", "git status"),
    ((("filter.x.clean", "sh -c 'exec ./tools/clean'"),), "@workspace/tools/**", "git add a.txt"),
])
def test_a_file_git_settings_name_that_the_agent_may_write_asks(setup: Setup, settings: tuple[tuple[str, str], ...],
                                                                writable: str, line: str) -> None:
    """git runs what its settings name (hostile corpus: git-hooks): a rule for the git command
    is no rule for what the agent may have put in those files."""
    _configured(setup, *settings)
    rules = STAGING.replace("[git status|", "[git st|git status|")
    setup.write_user_rules(rules + f'\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "{writable}"\n')
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
    setup.write_user_rules(rules + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n')
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW


@pytest.mark.parametrize(("settings", "line"), [
    (("core.fsmonitor", "cd tools && sh run"), "git status"), (("alias.st", "!cd tools && ./st"), "git st"),
])
def test_a_shell_line_in_git_settings_that_changes_folder_makes_the_worktree_count(
        setup: Setup, settings: tuple[str, str], line: str) -> None:
    """Its paths may be below any folder: any file of the worktree the agent may write asks."""
    _configured(setup, settings)
    rules = STAGING.replace("[git status|", "[git st|git status|")
    setup.write_user_rules(rules + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**/*.log"\n')
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
    setup.write_user_rules(rules + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "~/notes/**"\n')
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW


def test_a_remote_s_url_is_no_path(setup: Setup) -> None:
    """(``remote.origin.url = https://host/org/repo`` normalised as a path would land in the
    worktree, which ``@workspace/**`` opens: every git command would ask.)"""
    _configured(setup, ("remote.origin.url", "https://example.invalid/org/repo"),
                ("remote.up.url", "git@example.invalid:org/repo.git"))
    setup.write_user_rules(STAGING + '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**"\n'
                           '\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/.git/**"\n')
    setup.engine.refresh()
    assert setup.engine.check_command("git status", workspace=setup.workspace).effect is Effect.ALLOW


def test_an_alias_counts_only_for_its_own_subcommand(setup: Setup) -> None:
    _configured(setup, ("alias.x", "!cd tools && ./x"))
    assert _staging_verdict(setup, "git status", "@workspace/tools/**") is Effect.ALLOW


def test_git_settings_are_read_as_git_reads_them(tmp_path: Path) -> None:
    from echo_desk.agent.permissions import git_config

    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    (git_dir / "config").write_text(
        '[core]\n\tbare = false ; a comment\n[core] hooksPath = "hooks dir" # here\n'
        '[diff "x"]\n\ttextconv = tools/conv \\\n\t\t--all\n[Include]\n\tPath = ~/shared\n', encoding="utf-8")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "shared").write_text("[gpg]\n\tprogram = /opt/gpg\n", encoding="utf-8")
    found = git_config.named(tmp_path, git_dir, tmp_path / "home", "status")
    assert git_config.Named(tmp_path / "hooks dir", folder=True) in found
    assert git_config.Named(tmp_path / "tools" / "conv") in found
    assert git_config.Named(tmp_path / "home" / "shared") in found
    assert git_config.Named(Path("/opt/gpg")) in found
    (git_dir / "config").write_text('[core]\n\tpager = "less\n', encoding="utf-8")  # an open quote: not read
    assert git_config.named(tmp_path, git_dir, None, "status") == [git_config.ANYWHERE]


def test_a_part_a_deny_decided_says_the_agents_settings_too(setup: Setup) -> None:
    """(s193: ``ruff check .`` asks for the write deny below ``.`` and for ``out/ruff.toml`` the
    agent may write; the reason shown named the first only, and a person who settles it still
    meets the second.)"""
    setup.write_user_rules(_rules("@workspace/out/**")
                           + '\n[[rule]]\neffect = "deny"\ntool = "write"\npattern = "@workspace/.git/**"\n')
    setup.engine.refresh()
    (part,) = setup.engine.check_command("ruff check .", workspace=setup.workspace).parts
    assert part.provenance.rule is not None and part.provenance.rule.pattern == "@workspace/.git/**"
    assert part.also == (Opaque.AGENT_SETTINGS,)
    (part,) = setup.engine.check_command("ruff check src", workspace=setup.workspace).parts
    assert part.also == ()


@pytest.mark.parametrize("line", ["pytest ~/scratch/t", "python -m pytest -q ~/scratch", "pytest ~/scratch/t/test_x.py",
                                  "ruff check --no-fix ~/scratch", "pytest tests ~/scratch", "pytest ~other/t"])
def test_a_checked_folder_named_below_the_home_folder_counts(setup: Setup, line: str) -> None:
    """The shell makes an operand starting ``~/`` a path below the home folder (s202: ``pytest
    ~/scratch/t`` imported the conftest.py the agent wrote there; it was read below the folder
    pytest runs in); another user's home is not known here."""
    assert _verdict(setup, line, "~/scratch/**") is not Effect.ALLOW
    if "~other" not in line:
        assert _verdict(setup, line, "~/elsewhere/**") is Effect.ALLOW


BUILDERS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[pip install|python -m build|go test|go build|go run|go vet] **"
"""


@pytest.mark.parametrize("line", ["pip install ~/scratch/p", "pip install -e ~/scratch/p", "python -m build ~/scratch/p",
                                  "go test ~/scratch/p", "go build ~/scratch/p/...", "go run ~/scratch/m.go",
                                  "go vet ~other/p"])
def test_a_project_or_package_named_below_the_home_folder_counts(setup: Setup, line: str) -> None:
    """pip and ``python -m build`` run the build of the project they are given, go compiles
    and runs the packages it is given: an operand starting ``~/`` is below the home folder, as the
    shell expands it (s202: ``go run ~/scratch/m.go`` was taken for an import path of the
    workspace's module and ran what the agent wrote there); another user's home is not known."""
    def verdict(writable: str) -> Effect | None:
        return effect_under(setup, BUILDERS + writes_allowed(writable), line)

    assert verdict("~/scratch/**") is not Effect.ALLOW
    if "~other" not in line:
        assert verdict("~/elsewhere/**") is Effect.ALLOW


# -- s236: man's pages beside the folders of PATH and in those of MANPATH --------------------------
@pytest.mark.parametrize("line", ["man zzz", "man ls", "man -k x"])
def test_a_manual_page_folder_the_agent_may_write_asks(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                       line: str) -> None:
    """man-db looks for pages beside each folder of ``PATH`` before the system's
    (``~/.local/bin`` gives ``~/.local/share/man``): a page there takes in any file (``.so
    ~/.ssh/id_rsa`` was printed by ``man zzz``, man-db 2.11, under bash and dash). The
    scratch world of the hostile corpus has no such folder the agent may write, so the case is
    proven here against the engine."""
    pass_on(monkeypatch, "PATH", f"/usr/bin:{setup.home}/.local/bin:/bin")
    monkeypatch.delenv("MANPATH", raising=False)
    assert _verdict(setup, line, "~/.local/share/**") is not Effect.ALLOW
    assert _verdict(setup, line, "~/.local/share/*.txt") is Effect.ALLOW  # (no page folder)
    pass_on(monkeypatch, "PATH", "/usr/bin:/bin")
    assert _verdict(setup, line, "~/.local/share/**") is Effect.ALLOW
    pass_on(monkeypatch, "MANPATH", f"{setup.home}/.local/share/man:")
    assert _verdict(setup, line, "~/.local/share/**") is not Effect.ALLOW


def test_each_place_is_made_concrete_once_a_verdict(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """s338: every command of a line has the folders of PATH among the places its settings and
    code are read from, and each time the write rules' patterns were made concrete under each
    of them again (most of a verdict's time with a write rule): once a verdict now, same verdict."""
    made: Counter[tuple[str, Path, str]] = Counter()
    concrete = settings_files._concrete

    def counted(pattern: PathPattern, roots: list[Path], folder: Path, name: str) -> list[Path]:
        made[(pattern.text, folder, name)] += 1
        return concrete(pattern, roots, folder, name)

    monkeypatch.setattr(settings_files, "_concrete", counted)
    pass_on(monkeypatch, "PATH", "/usr/bin:/bin")
    for line, allowed in (("mypy src && ruff check src; less x | less", True), ("ruff check src; mypy src", True)):
        made.clear()
        assert (_verdict(setup, line, "@workspace/out/**", "~/.local/share/**") is Effect.ALLOW) is allowed
        assert made and max(made.values()) == 1, made.most_common(3)
