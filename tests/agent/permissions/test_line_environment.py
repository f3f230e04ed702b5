"""A variable the line gives a command (``env NAME=value CMD``, ``strace -E``, ``cmake -E env``)
is read as the same variable in the environment Echo Desk runs with (``line_environment``,
s173). Under a rule that names the assignment (``env HGRCPATH=* hg **``) the engine judged
the command by Echo Desk's own environment: ``env HGRCPATH=out/h hg version`` ran the hooks
of a file the agent may write, ``env PIP_CONFIG_FILE=out/p.conf pip list`` appended pip's log
to ~/.bashrc, ``env GIT_CONFIG_GLOBAL=out/g git status`` ran core.fsmonitor, ``env
RUBYOPT=-rout/x gem list`` and ``env PYTHONPATH=out pytest src`` ran the agent's Ruby and
Python (each proven with hg 6.3, pip 23, git 2.39, RubyGems 3.3, pytest 8; npm's script-shell
through ``npm_config_userconfig`` too). A rule naming the variable trusts the variable, not
every file it may name."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, line_environment, settings_commands

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed
from .passed_env import pass_on

PROGRAMS = "[hg|pip|git|gem|bundle|just|pytest|npm|curl|go|nice|ls|env|gh|make|cmake] **"


def _verdict(setup: Setup, line: str, names: str, *writable: str) -> Effect | None:
    rules = [PROGRAMS, *(f"{wrapper} {name}=* **" for name in names.split() for wrapper in ("env", "strace -E"))]
    rules += [f"cmake -E env {name}=* **" for name in names.split()]
    return effect_under(setup, rule_text(*rules) + writes_allowed(*writable), line)


#: (variable, its value under the workspace, the command): what the variable names is where
#: the command reads settings or code from, for the engine too when Echo Desk runs with it.
NAMED = [
    ("HGRCPATH", "out/h", "hg version"),
    ("XDG_CONFIG_HOME", "out", "hg version"),
    ("XDG_CONFIG_HOME", "out", "git status"),
    ("GIT_CONFIG_GLOBAL", "out/g", "git status"),
    ("GIT_CONFIG_SYSTEM", "out/g", "git status"),
    ("PIP_CONFIG_FILE", "out/p.conf", "pip list"),
    ("BUNDLE_GEMFILE", "out/Gemfile", "bundle install"),
    ("JUST_JUSTFILE", "out/j", "just"),
    ("CURL_HOME", "out", "curl -s https://example.com/"),
    ("GOENV", "out/env", "go build ./..."),
    ("PYTHONPATH", "out", "pip list"),
    ("MAKEFILES", "out/x.mk", "make"),
    ("CMAKE_PREFIX_PATH", "out", "cmake -S . -B b"),
]


@pytest.mark.parametrize(("variable", "value", "command"), NAMED)
def test_a_variable_on_the_line_is_read_as_in_echo_desks_environment(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, command: str) -> None:
    path = setup.workspace / value
    pass_on(monkeypatch, variable, str(path))
    inherited = _verdict(setup, command, variable, "@workspace/out/**")
    monkeypatch.delenv(variable)
    for line in (f"env {variable}={path} {command}", f"env {variable}={path} nice {command}",
                 f"strace -E {variable}={path} {command}", f"cmake -E env {variable}={path} {command}",
                 f"env {variable}={path} {command}"):
        assert _verdict(setup, line, variable, "@workspace/out/**") is inherited is not Effect.ALLOW, line
    # Where the agent may not write it, the rule naming the variable stays in force.
    assert _verdict(setup, f"env {variable}={path} {command}", variable, "@workspace/docs/*.md") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    # A relative path (the readers take absolute ones only), or a variable the engine does not
    # read for that program: it may name any file.
    "env HGRCPATH=out/h hg version", "env PIP_CONFIG_FILE=out/p.conf pip list", "env BUNDLE_GEMFILE=out/G bundle install",
    "env GIT_CONFIG_GLOBAL=out/g git status", "env RUBYOPT=-rout/x gem list", "env PYTHONPATH=out pytest src",
    "env npm_config_userconfig=out/n npm test", "env GEMRC=out/g gem list", "env HGRCPATH=out/h nice hg version",
])
def test_a_variable_the_engine_cannot_place_counts_as_any_file(setup: Setup, line: str) -> None:
    names = "HGRCPATH PIP_CONFIG_FILE BUNDLE_GEMFILE GIT_CONFIG_GLOBAL RUBYOPT PYTHONPATH npm_config_userconfig GEMRC"
    assert _verdict(setup, line, names, "@workspace/out/*.md") is not Effect.ALLOW
    # With no write rule, the agent has nothing to plant: the rule naming the variable applies.
    assert _verdict(setup, line, names) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "env LANG=C pytest src", "env TZ=UTC git status", "env FOO=bar ls", "env -u HGRCPATH hg version",
])
def test_inert_variables_and_programs_without_settings_stay_allowed(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "FOO", "@workspace/out/**") is Effect.ALLOW


# (``gem sources --add`` writes the file $GEMRC names too, ``test_the_line_s_variables_hold_…``;
# gem also reads the gemrc it writes, so it asks whenever the agent may write it: test_gem_settings.)
@pytest.mark.parametrize(("variable", "value", "line"), [
    ("GH_CONFIG_DIR", ".ssh", "gh config set editor vim{}"),
])
def test_a_settings_command_writes_the_file_the_line_names(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                           variable: str, value: str, line: str) -> None:
    """``gh config set`` writes the config.yml of the folder $GH_CONFIG_DIR names: the write
    rules judge it, given on the line too."""
    named = setup.home / value
    writable = ("~/.config/gh/**",)
    # (each time other words: Echo Desk's own environment is read once for the same words)
    assert _verdict(setup, line.format(1), variable, *writable) is Effect.ALLOW
    pass_on(monkeypatch, variable, str(named))
    assert _verdict(setup, line.format(2), variable, *writable) is not Effect.ALLOW
    monkeypatch.delenv(variable)
    assert _verdict(setup, f"env {variable}={named} {line.format(3)}", variable, *writable) is not Effect.ALLOW


def test_the_line_s_variables_hold_for_the_command_given_only() -> None:
    argv = ("gem", "sources", "--add", "https://example.com/")
    with line_environment.giving([("GEMRC", "/x/gemrc")]):
        assert "/x/gemrc" in settings_commands.written(argv, settings_commands.COMMANDS["gem"])[0]
        with line_environment.giving([("GEMRC", None)]):
            assert "/x/gemrc" not in settings_commands.written(argv, settings_commands.COMMANDS["gem"])[0]
    assert "/x/gemrc" not in settings_commands.written(argv, settings_commands.COMMANDS["gem"])[0]
