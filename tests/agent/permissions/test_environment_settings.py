"""s195: git and npm take settings from the environment Echo Desk runs in, not only from
files: ``GIT_CONFIG_COUNT`` with ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``,
``GIT_CONFIG_PARAMETERS`` (``git -c`` leaves its settings there for the git commands it runs),
and every ``npm_config_<name>`` (any case). Proven with git 2.39 and npm under bash and dash,
the variables in the environment the shell was started with and the lines themselves plain: a
``core.fsmonitor`` ran under ``git status``, a relative ``core.hooksPath`` ran out/hooks/pre-commit
under ``git commit``, ``npm_config_script_shell`` ran under ``npm test``, and
``NPM_CONFIG_NODE_OPTIONS=--require …`` loaded a file into the test's node. They were read
only when the line gave them; now they weigh as a settings file does wherever they come from:
a path they name counts as a file the command reads, and what cannot be read counts as any
file."""

from __future__ import annotations

import os
import subprocess

import pytest

from echo_desk.agent.permissions import Effect, git_environment

from .conftest import Setup
from .engine_verdicts import effect_under
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git|npm|npx|pnpm|yarn] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""
_VARIABLES = ("GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0", "GIT_CONFIG_PARAMETERS")


def _verdict(setup: Setup, monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], line: str,
             repository: bool = True) -> Effect | None:
    for name in (*_VARIABLES, *(n for n in os.environ if n.lower().startswith("npm_config_"))):
        monkeypatch.delenv(name, raising=False)
    if repository and not (setup.workspace / ".git").exists():
        subprocess.run(["git", "init", "-q", str(setup.workspace)], check=True)
    for name, value in environ.items():
        pass_on(monkeypatch, name, value.replace("@WS@", str(setup.workspace)))
    (setup.workspace / "package.json").write_text('{"scripts": {"test": "node -e 1"}}')
    return effect_under(setup, RULES, line)


_FSMONITOR = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor"}


@pytest.mark.parametrize(("hostile", "harmless", "line"), [
    ({**_FSMONITOR, "GIT_CONFIG_VALUE_0": "@WS@/out/x"}, {**_FSMONITOR, "GIT_CONFIG_VALUE_0": "/usr/bin/true"},
     "git status"),
    ({**_FSMONITOR, "GIT_CONFIG_VALUE_0": "out/x"}, {**_FSMONITOR, "GIT_CONFIG_VALUE_0": "true"}, "git status"),
    ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "sh out/p"},
     {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager", "GIT_CONFIG_VALUE_0": "less -R"}, "git log"),
    ({**_FSMONITOR, "GIT_CONFIG_COUNT": "x"}, {**_FSMONITOR, "GIT_CONFIG_COUNT": "0"}, "git status"),
    ({"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"},
     {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name", "GIT_CONFIG_VALUE_0": "me"}, "git status"),
    ({"GIT_CONFIG_PARAMETERS": "'core.hooksPath'='out/hooks'"}, {"GIT_CONFIG_PARAMETERS": "'user.name'='me'"},
     "git commit -m x"),
    ({"GIT_CONFIG_PARAMETERS": "'user.name'='me' 'core.fsmonitor=@WS@/out/x'"},
     {"GIT_CONFIG_PARAMETERS": "'user.name'='me' 'color.ui=auto'"}, "git status"),
    ({"GIT_CONFIG_PARAMETERS": "core.fsmonitor=/bin/true"}, {"GIT_CONFIG_PARAMETERS": "'core.fsmonitor'='/bin/true'"},
     "git status"),
    ({"GIT_CONFIG_PARAMETERS": "'include.path'='@WS@/out/inc'"}, {"GIT_CONFIG_PARAMETERS": "'include.path'='/etc/x'"},
     "git status"),
    ({"npm_config_script_shell": "@WS@/out/x"}, {"npm_config_script_shell": "/bin/bash"}, "npm test"),
    ({"NPM_CONFIG_SCRIPT_SHELL": "out/x"}, {"NPM_CONFIG_SCRIPT_SHELL": "bash"}, "npm test"),
    ({"NPM_CONFIG_NODE_OPTIONS": "--require @WS@/out/x.js"}, {"NPM_CONFIG_NODE_OPTIONS": "--max-old-space-size=4096"},
     "npm test"),
    ({"npm_config_userconfig": "${PWD}/out/rc"}, {"npm_config_userconfig": "/etc/npmrc"}, "npm test"),
    ({"npm_config_prefix": "@WS@/out"}, {"npm_config_registry": "https://registry.example/a/b/"}, "npm test"),
    ({"npm_config_script_shell": "@WS@/out/x"}, {"npm_config_script_shell": "/bin/bash"}, "pnpm test"),
    ({"npm_config_script_shell": "@WS@/out/x"}, {"npm_config_script_shell": "/bin/bash"}, "yarn test"),
])
def test_settings_of_echo_desks_environment_count(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                  hostile: dict[str, str], harmless: dict[str, str], line: str) -> None:
    assert _verdict(setup, monkeypatch, harmless, line) is Effect.ALLOW
    assert _verdict(setup, monkeypatch, hostile, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["npm test", "npm run test"])
@pytest.mark.parametrize("environ", [
    # What npm writes into the environment of a script (Echo Desk started by `npm start`): its
    # project folder, here the workspace the agent may write below, and its global folder.
    {"npm_config_local_prefix": "@WS@", "npm_config_global_prefix": "@WS@/out"},
    {"NPM_CONFIG_LOCAL_PREFIX": "@WS@/out", "npm_config_local-prefix": "@WS@/out"},
])
def test_the_prefixes_npm_writes_for_its_scripts_name_nothing_npm_reads(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], line: str) -> None:
    assert _verdict(setup, monkeypatch, environ, line) is Effect.ALLOW


@pytest.mark.parametrize(("environ", "line"), [
    ({"npm_config_local_prefix": "@WS@/out"}, "pnpm test"),  # (not known for pnpm and yarn)
    ({"npm_config_local_prefix": "@WS@/out"}, "yarn test"),
    ({"npm_config_local_prefix": "@WS@", "npm_config_prefix": "@WS@/out"}, "npm test"),
    ({"npm_config_local_prefix_x": "@WS@/out"}, "npm test"),
])
def test_other_npm_settings_beside_them_still_count(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                    environ: dict[str, str], line: str) -> None:
    assert _verdict(setup, monkeypatch, environ, line) is not Effect.ALLOW


def test_outside_a_repository_too(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    environ = {"GIT_CONFIG_PARAMETERS": "'core.hooksPath'='@WS@/out/hooks'"}
    line = "git clone https://example.com/r.git out/r"
    assert _verdict(setup, monkeypatch, {}, line, repository=False) is Effect.ALLOW
    assert _verdict(setup, monkeypatch, environ, line, repository=False) is not Effect.ALLOW


def test_git_s_quoting_of_its_parameters_is_read() -> None:
    assert git_environment._parameters("'a.b'='x y' 'c.D=z' 'it'\\''s.k'='v'") == [
        ("a.b", "x y"), ("c.D", "z"), ("it's.k", "v")]
    assert git_environment._parameters("a.b=c") is None
    assert git_environment._parameters("'a.b") is None
