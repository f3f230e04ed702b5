"""An engine over a temporary config folder, workspace and home, with a fake clock."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from echo_desk.agent.permissions import PermissionEngine, grammar_of
from echo_desk.builtins import BUILTIN_CLASSES
from echo_desk.store.grants import GrantStore

HERE = Path(__file__).parent
#: What the runtime's registry tells the engine: a rule naming a built-in uses its family's grammar.
BUILTIN_GRAMMARS = {cls.name: grammar_of(cls) for cls in BUILTIN_CLASSES}


class FakeClock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Setup:
    engine: PermissionEngine
    clock: FakeClock
    config: Path
    workspace: Path
    home: Path
    store: GrantStore

    def write_user_rules(self, text: str) -> Path:
        path = self.config / "permissions.toml"
        path.write_text(text, encoding="utf-8")
        return path


#: Variables of the environment a build tool reads code by (``build_variables``): a test run
#: started by make (``make test VAR=x`` puts ``-- VAR=x`` in MAKEFLAGS) must not change what a
#: test's engine decides. Tests that read them set their own.
BUILD_VARIABLES = ("MAKEFILES", "MAKEFLAGS", "GNUMAKEFLAGS", "CMAKE_TOOLCHAIN_FILE", "CMAKE_PREFIX_PATH",
                   "CMAKE_FRAMEWORK_PATH", "CMAKE_APPBUNDLE_PATH", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS",
                   "CPPFLAGS", "LDLIBS", "AR", "AS", "LD", "CPP",
                   # (pytest's options from the environment name its doctest files: pytest_doctests)
                   "PYTEST_ADDOPTS",
                   # (where cargo builds: judged by the write rules, as --target-dir is)
                   "CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR",
                   # (where tox builds its environments, kubectl's settings file: s223)
                   "TOX_WORK_DIR", "KUBECONFIG",
                   # (docker's settings folder and the host it reaches: docker_settings)
                   "DOCKER_CONFIG", "DOCKER_HOST", "DOCKER_CONTEXT",
                   # (where install steps put everything they install: install_records)
                   "DESTDIR")


#: The prefixes of the variables programs take any option from (``option_variables``): a
#: developer's PIP_INDEX_URL must not change what a test's engine decides either.
OPTION_VARIABLE_PREFIXES = ("PIP_", "TOX", "JUST_")


@pytest.fixture(autouse=True)
def _no_build_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in BUILD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name in [n for n in os.environ if n.startswith(OPTION_VARIABLE_PREFIXES)]:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    home = tmp_path / "home"
    config = home / ".config" / "echo-desk"
    workspace = tmp_path / "ws"
    for folder in (config, workspace / "src", workspace / "out", home / ".ssh"):
        folder.mkdir(parents=True)
    clock = FakeClock()
    store = GrantStore(tmp_path / "data" / "grants.sqlite3", clock=clock)
    engine = PermissionEngine(config_dir=config, grants=store, clock=clock, home=home, tools=BUILTIN_GRAMMARS.get)
    yield Setup(engine=engine, clock=clock, config=config, workspace=workspace.resolve(), home=home, store=store)
    store.close()
