"""s288: the variables other programs read as data only (``data_variables``), before them on the
line, are covered by the program's own rule as ``NODE_ENV`` is for npm (s269): Python's hash
seed, fault handler and UTF-8 mode for python and pytest, pytest's ``PY_COLORS``, Rust's log
filter and test-harness switches for cargo, ``GOMAXPROCS`` for go, ``NODE_ENV`` for pnpm and
yarn. Each was proven with strace, under bash and dash, in a scratch project with a scratch home:
the line ran the same programs and opened and wrote the same files with it as without.

A variable that names code, options, a program or a folder keeps asking unless a rule names
the assignment: cargo's settings (``CARGO_*``), ``RUSTC_WRAPPER``, ``GOFLAGS``, ``GOOS`` (``go
run`` runs the go_$GOOS_$GOARCH_exec it finds on PATH), ``PYTHONPATH``, ``PYTHONWARNINGS`` (it
imports the module a category names), ``PYTEST_ADDOPTS``, ``NODE_OPTIONS``…"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

PROGRAMS = rule_text("[cargo test|cargo run|cargo build|go test|go build|go run|pnpm test|pnpm install|yarn test|"
                     "yarn install|pytest|python -m pytest|python3 -m pytest] **")
#: The agent may write in out/: a variable of a program judged by its settings files that is
#: neither inert nor data counts as naming any file then (``shell_verdict._loose_variables``).
WRITING = PROGRAMS + writes_allowed("@workspace/out/**")


@pytest.fixture
def project(setup: Setup) -> Setup:
    # (pytest collects only tests/: without it, a conftest.py the agent may write in out/ asks)
    (setup.workspace / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
                                                    encoding="utf-8")
    (setup.workspace / "tests").mkdir()
    return setup


@pytest.mark.parametrize("line", [
    "PYTHONHASHSEED=0 pytest",
    "PYTHONFAULTHANDLER=1 pytest -q",
    "PYTHONUTF8=1 pytest",
    "PY_COLORS=1 pytest -x",
    "PYTHONHASHSEED=0 PY_COLORS=1 PYTHONDONTWRITEBYTECODE=1 pytest",
    "PYTHONHASHSEED=0 python -m pytest",
    "PYTHONUTF8=1 python3 -m pytest -q",
    "RUST_LOG=debug cargo run",
    "RUST_LOG=info cargo test",
    "RUST_TEST_THREADS=1 cargo test",
    "RUST_TEST_NOCAPTURE=1 cargo test",
    "RUST_MIN_STACK=16777216 cargo test",
    "RUST_LIB_BACKTRACE=1 RUST_BACKTRACE=1 cargo test",
    "NODE_ENV=test pnpm test",
    "NODE_ENV=production pnpm install",
    "NODE_ENV=test yarn test",
    "NODE_ENV=production yarn install",
])
def test_a_variable_the_program_reads_as_data_is_covered_by_its_rule(project: Setup, line: str) -> None:
    assert effect_under(project, WRITING, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["GOMAXPROCS=1 go test ./...", "GOMAXPROCS=2 go build ./...", "GOMAXPROCS=1 go run ."])
def test_gomaxprocs_is_data_for_go(project: Setup, line: str) -> None:
    # (go compiles the code of the folders it builds: with out/ writable, go test ./... asks as
    # it does bare, so these are judged where the agent may write nothing)
    assert effect_under(project, PROGRAMS, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    # cargo's settings, and the programs and options it takes from its environment
    "CARGO_TERM_COLOR=always cargo test",
    "CARGO_INCREMENTAL=0 cargo build",
    "CARGO_BUILD_RUSTC_WRAPPER=w cargo build",
    "RUSTC_WRAPPER=sccache cargo build",
    "RUSTC=rustc cargo build",
    "RUSTFLAGS=-Ctarget-cpu cargo build",
    "RUST_LOG=debug RUSTC_WRAPPER=sccache cargo test",
    "RUST_LOG=demo=debug cargo run",  # (a value of other characters: opaque)
    # go's options, platform, toolchain and build switches
    "GOFLAGS=-race go test ./...",
    "GOOS=windows go run .",
    "GOARCH=arm64 go test ./...",
    "GOTOOLCHAIN=go1.22.0 go build",
    "CGO_ENABLED=0 go build ./...",
    "GOTRACEBACK=crash go test ./...",
    "GO111MODULE=off go build",
    # Python's module search, imports and startup code; pytest's options and plugins
    "PYTHONPATH=out pytest",
    "PYTHONPATH=out python3 -m pytest",
    "PYTHONWARNINGS=ignore::this.W python -m pytest",
    "PYTHONSTARTUP=x python3 -m pytest",
    "PYTHONBREAKPOINT=x.y pytest",
    "PYTEST_ADDOPTS=-x pytest",
    "PYTEST_PLUGINS=x pytest",
    "PYTEST_THEME=monokai pytest",
    "PYTHONHASHSEED=0 PYTHONPATH=out pytest",
    # node's options, the package managers' settings
    "NODE_OPTIONS=--inspect pnpm test",
    "npm_config_script_shell=bash yarn test",
    # data for one program only, and the program as written
    "GOMAXPROCS=1 cargo test",
    "RUST_LOG=debug pytest",
    "PY_COLORS=1 cargo test",
    "NODE_ENV=test /usr/bin/pnpm test",
])
def test_a_variable_that_may_change_what_runs_still_asks(project: Setup, line: str) -> None:
    assert effect_under(project, PROGRAMS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "PY_COLORS=1 python -m pytest",
    "PY_COLORS=0 python3 -m pytest -q",
    "PY_COLORS=1 PYTHONHASHSEED=0 python -B -m pytest -x",
    "env PY_COLORS=1 python -m pytest",
    "env PY_COLORS=1 python3 -m pytest -q",
])
def test_python_running_a_module_is_judged_by_the_program_it_runs(project: Setup, line: str) -> None:
    # s298: `python -m pytest` is pytest (`Reading.program_form`), so pytest's data variables
    # are covered there too; it asked, the variable judged by the word `python`
    rules = WRITING + rule_text("env **") if line.startswith("env ") else WRITING
    assert effect_under(project, rules, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "PY_COLORS=1 python",  # (python alone does not read it: not proven for it)
    "PY_COLORS=1 python -c 1",
    "PY_COLORS=1 python -X dev -m pytest",  # (an option that is not a plain one: not the program form)
    "PY_COLORS=1 python -m pip list",  # (pytest's, not pip's)
    "PY_COLORS=1 /usr/bin/python3 -m pytest",  # (the program as written)
    "PYTHONPATH=out python -m pytest",
    "env PY_COLORS=1 PYTEST_ADDOPTS=-x python -m pytest",
])
def test_what_python_runs_a_module_as_covers_only_its_own_variables(project: Setup, line: str) -> None:
    rules = WRITING + rule_text("[python -m pip|python|env] **")
    assert effect_under(project, rules, line) is not Effect.ALLOW


def test_a_rule_naming_a_variable_not_listed_allows_it(project: Setup) -> None:
    rules = PROGRAMS + rule_text("CARGO_TERM_COLOR=* cargo test **")
    assert effect_under(project, rules, "CARGO_TERM_COLOR=always cargo test") is Effect.ALLOW
