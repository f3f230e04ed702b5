"""Build tools, package managers and in-place interpreters write files a rule naming them does not
name: perl -i and ruby -i the files they edit (and their backups), perl's ``<>`` a file its
two-argument open reads as ``>FILE``, pip install/download/wheel the folder an option names (and
~/.local for ``--user``), go the go.mod, go.sum and go.work it finds by walking up from where it
runs. A rule naming the program trusts the program, not every place it writes: each such path is
judged by the write rules, and one only known when the line runs asks (s127). The hostile corpus
proves the harm (rule set tool-writes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

PROGRAMS = ("perl -pi -e", "perl -i -pe", "perl -i.bak -pe", "perl -ne", "perl -pe", "perl -i", "ruby -i -pe",
            "ruby -pi -e", "pip install", "pip install --target", "pip install -t", "pip install --prefix",
            "pip install --root", "pip install --user", "pip install --report", "pip install --src",
            "pip download -d", "pip wheel -w", "python -m pip install --target", "go mod tidy", "go mod download",
            "go mod edit", "go mod init", "go mod vendor", "go get", "go work use", "go work init", "go work sync",
            "go build", "go build -mod=mod", "cd")

OUTSIDE = ["perl -pi -e 's/^/touch PWNED; /' ~/.bashrc", "perl -i -pe 's/^/x/' a.txt ../home/.bashrc",
           "perl -i.bak -pe 's/^/x/' ~/.bashrc",
           "perl -i.bak -pe 1 secret", "perl -i script.pl ~/.bashrc", "ruby -i -pe 'x' ~/.bashrc",
           "ruby -pi -e 'x' a.txt ~/.profile", "perl -ne 'print' '>../home/.bashrc'", "perl -ne 1 ' >>x'",
           "perl -pe '' 'touch PWNED|'", "perl -pe '' '|touch PWNED'",
           "pip install --target ~/lib ./pkg", "pip install -t ~/lib x", "pip install -Ut ~/lib x",
           "pip install --tar ~/lib x", "pip install --target=secret x", "pip install --prefix ~/.local x",
           "pip install --user x", "pip install --report ~/.bashrc x",
           "pip install --src ~/src -e x", "pip download -d ~/x x", "pip wheel -w ~/x x",
           "go mod edit ../go.mod"]
#: Where the engine cannot tell what they write: go's vendor folder (beside the go.mod it finds)
#: and the modules go.work uses.
UNKNOWN = ["go mod vendor", "go work sync"]
INSIDE = ["perl -pi -e 's/a/b/' a.txt", "perl -i.bak -pe 's/a/b/' a.txt notes.txt", "perl -ne 'print' a.txt",
          "perl -pe 's/a/b/' a.txt", "ruby -pi -e 'x' a.txt", "pip install x",
          "pip install --target out/lib x", "pip download -d out/wheels x",
          "go mod tidy", "go get", "go mod init x", "go work init"]


@pytest.fixture
def tool_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*(f"{p} **" for p in PROGRAMS)) + _rules("@workspace/**", tool="write")
                           + _rules("@workspace/secret/**", tool="write", effect="deny"))
    (setup.workspace / "a.txt").write_text("a\n")
    return setup


@pytest.mark.parametrize("line", OUTSIDE)
def test_a_tool_writing_outside_the_write_rules_asks(tool_rules: Setup, line: str) -> None:
    assert _effect(tool_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", UNKNOWN)
def test_a_tool_writing_where_the_engine_cannot_tell_asks(tool_rules: Setup, line: str) -> None:
    assert _effect(tool_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", INSIDE)
def test_a_tool_writing_inside_the_write_rules_is_allowed(tool_rules: Setup, line: str) -> None:
    assert _effect(tool_rules, line) is Effect.ALLOW, line


def _module_above(workspace: Path) -> Path:
    """A Go module holding the workspace (a person opened one folder of it): go finds its go.mod
    by walking up from the workspace."""
    (workspace.parent / "go.mod").write_text("module p\n", encoding="utf-8")
    return workspace.parent


@pytest.mark.parametrize("line", ["go mod tidy", "go get", "go get example.com/x@v1.0.0", "go mod download",
                                  "cd src && go mod tidy"])
def test_go_changing_the_go_mod_it_finds_above_the_workspace_asks(tool_rules: Setup, line: str) -> None:
    _module_above(tool_rules.workspace)
    assert _effect(tool_rules, line) is not Effect.ALLOW, line


def test_go_changing_its_own_module_files_follows_the_write_rules(tool_rules: Setup) -> None:
    _module_above(tool_rules.workspace)
    (tool_rules.workspace / "go.mod").write_text("module ws\n", encoding="utf-8")  # the nearest one
    for line in ("go mod tidy", "go get", "go mod download"):
        assert _effect(tool_rules, line) is Effect.ALLOW, line
    secret = tool_rules.workspace / "secret" / "sub"
    secret.mkdir(parents=True)
    (secret.parent / "go.mod").write_text("module s\n", encoding="utf-8")
    assert _effect(tool_rules, "cd secret/sub && go mod tidy") is not Effect.ALLOW
    # go work use changes the go.work it finds above
    (tool_rules.workspace.parent / "go.work").write_text("go 1.19\n", encoding="utf-8")
    assert _effect(tool_rules, "go work use .") is not Effect.ALLOW


def test_a_go_build_with_mod_mod_changes_the_go_mod_it_finds(setup: Setup) -> None:
    # Writes kept to text files, so the code go builds is not the agent's (a go build may be allowed).
    setup.write_user_rules(_rules("go build **", "go test **") + _rules("@workspace/*.txt", tool="write"))
    (setup.workspace / "main.go").write_text("package main\n\nfunc main() {}\n", encoding="utf-8")
    _module_above(setup.workspace)
    assert _effect(setup, "go build .") is Effect.ALLOW
    for line in ("go build -mod=mod .", "go test -mod mod .", "go build -mod=$M ."):
        assert _effect(setup, line) is not Effect.ALLOW, line


def test_mvn_another_project_a_settings_file_or_a_property_asks(setup: Setup) -> None:
    # Writes kept to out/, so the project's own pom.xml and .mvn/ are not the agent's.
    setup.write_user_rules(_rules("mvn **") + _rules("@workspace/out/**", tool="write"))
    for line in ("mvn -DskipTests package", "mvn -q -B -fae verify", "mvn -v"):
        assert _effect(setup, line) is Effect.ALLOW, line
    for line in ("mvn -f ~/p/pom.xml package", "mvn -f../p package", "mvn --file=../p package", "mvn -s ~/s.xml package",
                 "mvn -l ~/.bashrc -v", "mvn -DoutputDirectory=.. dependency:copy-dependencies",
                 "mvn -Dmaven.repo.local=../r package"):
        assert _effect(setup, line) is not Effect.ALLOW, line


def test_mvn_where_the_agent_may_write_the_projects_settings_asks(setup: Setup) -> None:
    # .mvn/jvm.config holds JVM options (-Xlog:gc:file=… writes anywhere): any mvn reads it.
    setup.write_user_rules(_rules("mvn **") + _rules("@workspace/**", tool="write"))
    assert _effect(setup, "mvn -v") is not Effect.ALLOW


def test_cargo_writes_where_a_named_target_dir_says_by_the_write_rules(setup: Setup) -> None:
    # Naming --target-dir trusts the option, not every folder: cargo builds into ~/tgt
    # (proven with cargo 1.8x, --offline). Writes kept to out/, so Cargo.toml is not the agent's.
    setup.write_user_rules(_rules("cargo build --target-dir **", "cargo build --lockfile-path **")
                           + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, "cargo build --target-dir out/t") is Effect.ALLOW
    for line in ("cargo build --target-dir ~/tgt", "cargo build --target-dir .. --release",
                 "cargo build --lockfile-path ~/.bashrc"):
        assert _effect(setup, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", [
    "cargo test -- --logfile ~/.bashrc", "cargo test -q -- --logfile=../home/.bashrc", "cargo t -- --logfile ~/x",
    "cargo bench -- --logfile ~/.bashrc", "cargo test -- --nocapture --logfile ~/.bashrc",
    # an option of the test harness the engine does not know, or not known until the line runs
    "cargo test -- --logf ~/.bashrc", "cargo test -- --new-option", "cargo test -- $OPT",
])
def test_cargo_tests_log_file_is_judged_by_the_write_rules(setup: Setup, line: str) -> None:
    # The test harness (libtest) writes its log where --logfile says: `cargo test -- --logfile
    # ~/.bashrc` emptied and rewrote it (proven, Rust 1.95; cargo is not on the corpus's PATH).
    setup.write_user_rules(_rules("cargo test **", "cargo t **", "cargo bench **") + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", [
    "cargo test -- --nocapture", "cargo test -- --test-threads 1 --exact tests::a", "cargo test -- --test-threads=1",
    "cargo test -- -Zunstable-options --format=json", "cargo test -- -Z unstable-options --format json",
    "cargo test parse -- --include-ignored --skip slow", "cargo test -- -- --logfile ~/.bashrc",
    "cargo test -- --logfile out/test.log",
])
def test_cargo_test_harness_options_that_write_nothing_stay_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(_rules("cargo test **", "cargo test -- --logfile **") + _rules("@workspace/out/**", tool="write"))
    assert _effect(setup, line) is Effect.ALLOW, line


@pytest.fixture
def ruff_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules("ruff check **", "python -m ruff check **") + _rules("@workspace/out/**", tool="write"))
    (setup.workspace / "src").mkdir(exist_ok=True)
    (setup.workspace / "out").mkdir(exist_ok=True)
    (setup.home / "proj").mkdir(exist_ok=True)
    (setup.workspace / "out" / "away").symlink_to(setup.home / "proj")
    (setup.workspace / "docs").mkdir(exist_ok=True)
    (setup.workspace / "src" / "near").symlink_to(setup.workspace / "docs")
    return setup


@pytest.mark.parametrize("line", [
    "ruff check --fix ~/proj", "ruff check --fix-only ~/proj/a.py", "ruff check ~/proj", "ruff check --fix ../x",
    "ruff check --fix @HOME@/proj", "ruff check --fix out/away", "ruff check --fix src ~/proj",
    "python -m ruff check --fix ~/proj", "ruff check --diff --fix ~/proj", "ruff check --fix $DIR",
])
def test_ruff_rewrites_files_outside_the_workspace_only_when_asked(ruff_rules: Setup, line: str) -> None:
    # ruff check --fix (or `fix = true` in its settings) rewrites what it checks: `ruff check
    # --fix ~/proj` removed an unused import from ~/proj/a.py (proven, ruff 0.17).
    line = line.replace("@HOME@", str(ruff_rules.home))
    assert _effect(ruff_rules, line) is not Effect.ALLOW, line


@pytest.mark.parametrize("line", [
    "ruff check --fix src", "ruff check src", "ruff check --fix src/near", "ruff check --diff ~/proj",
    "ruff check --no-fix ~/proj", "python -m ruff check --fix src",
])
def test_ruff_rewrites_files_inside_the_workspace_as_its_rule_says(ruff_rules: Setup, line: str) -> None:
    assert _effect(ruff_rules, line) is Effect.ALLOW, line
