"""s229: the variables programs take any option from by a naming scheme (``option_variables``),
in the environment the commands inherit from Echo Desk, are judged as the options they stand
for. Echo Desk started with ``TOX_CONFIG_FILE=out/t.ini`` made ``tox -e x`` run out/t.ini's
commands, with ``TOX_ROOT_DIR=../other`` run them in ../other, and ``PIP_TARGET``/``PIP_LOG``
made ``pip install`` write outside the workspace, ``JUST_WORKING_DIRECTORY=../other`` made ``just
x`` run ../other's recipe there (tox 4.67, pip 23.2, just 1.59, bash and dash). Given on
the line they ask as any unread assignment does (the s229 lines of the hostile corpus)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, option_variables
from echo_desk.agent.permissions.model import Verdict

from .conftest import Setup
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[tox|pip|pip3|python3 -m pip|nice|just|cargo|uv|uvx|pycowsay] **"
"""
WRITES_OUT = '\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/out/**"\n'
#: A developer's everyday pip settings: where packages come from, how long to wait, a CA file.
EVERYDAY_PIP = {"PIP_INDEX_URL": "https://pypi.example/simple", "PIP_EXTRA_INDEX_URL": "https://a/ https://b/",
                "PIP_FIND_LINKS": "/opt/wheels", "PIP_DEFAULT_TIMEOUT": "180", "PIP_DISABLE_PIP_VERSION_CHECK": "1",
                "PIP_NO_CACHE_DIR": "1", "PIP_CERT": "/etc/ssl/certs/ca-certificates.crt", "PIP_TRUSTED_HOST": "a b",
                "PIP_REQUIRE_VIRTUALENV": "true", "PIP_PROGRESS_BAR": "off"}


def _decide(setup: Setup, line: str, rules: str = RULES + WRITES_OUT) -> Verdict:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace)


def _outside(setup: Setup, value: str) -> str:
    return value.replace("{outside}", str(setup.workspace.parent / "other"))


@pytest.mark.parametrize(("name", "value"), [
    ("TOX_CONFIG_FILE", "out/t.ini"), ("TOXCONFIG_FILE", "out/t.ini"), ("TOX_CONFIG_FILE", "out"),
    ("TOX_ROOT_DIR", "../other"), ("TOX_ROOT_DIR", "{outside}"),
    ("TOX_RESULT_JSON", "../other/r.json"), ("TOX_RESULT_JSON", "~/r.json"),
])
def test_echo_desk_s_own_tox_option_variable_is_judged_as_the_option(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    assert _decide(setup, "tox -e x").effect is Effect.ALLOW
    pass_on(monkeypatch, name, _outside(setup, value))
    assert _decide(setup, "tox -e x").effect is not Effect.ALLOW
    assert _decide(setup, "nice tox -e x").effect is not Effect.ALLOW  # (also where a wrapper runs it)


@pytest.mark.parametrize(("name", "value"), [
    ("TOX_CONFIG_FILE", "tox.ini"), ("TOX_ROOT_DIR", "src"), ("TOX_RESULT_JSON", "out/r.json"),
    ("TOXENV", "py,lint"), ("TOX_SKIP_MISSING_INTERPRETERS", "true"), ("TOX_PARALLEL_NO_SPINNER", "1"),
    # (what tox gives the commands it runs: Echo Desk started from `tox -e dev`)
    ("TOX_ENV_NAME", "dev"), ("TOX_ENV_DIR", "/home/u/p/.tox/dev"), ("TOX_PACKAGE", "/home/u/p/.tox/p.whl"),
])
def test_a_tox_option_variable_naming_nothing_the_agent_may_change_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value)
    assert _decide(setup, "tox -e x").effect is Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [
    ("TOX_OVERRIDE", "testenv.commands=touch ../x"), ("TOX_INSTALLPKG", "/srv/p.whl"), ("TOX_DISCOVER", "/opt/py"),
    ("TOX_USER_CONFIG_FILE", "/etc/tox.ini"), ("TOX_DEFAULT_RUNNER", "virtualenv"), ("TOX_SOMETHING_NEW", "1"),
])
def test_a_tox_option_variable_the_engine_does_not_understand_asks(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value)
    assert _decide(setup, "tox -e x").effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [
    ("PIP_TARGET", "../other/t"), ("PIP_TARGET", "{outside}"), ("PIP_PREFIX", "~/p"), ("PIP_ROOT", "/"),
    ("PIP_SRC", "../other/src"), ("PIP_LOG", "../other/pip.log"), ("PIP_LOG_FILE", "~/.bashrc"),
    ("PIP_REPORT", "src/r.json"), ("PIP_USER", "1"), ("PIP_USER", "yes"),
    ("PIP_CERT", "out/ca.pem"), ("PIP_CLIENT_CERT", "out/c.pem"), ("PIP_PYTHON", "/usr/bin/python3"),
    ("PIP_KEYRING_PROVIDER", "subprocess"), ("PIP_SOMETHING_NEW", "x"),
])
@pytest.mark.parametrize("line", ["pip install foo", "python3 -m pip install foo", "nice pip3 install foo"])
def test_echo_desk_s_own_pip_option_variable_is_judged_as_the_option(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str) -> None:
    assert _decide(setup, line).effect is Effect.ALLOW
    pass_on(monkeypatch, name, _outside(setup, value))
    assert _decide(setup, line).effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [("PIP_TARGET", "out/t"), ("PIP_LOG", "out/pip.log")])
def test_pip_writing_where_the_agent_may_write_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value)
    assert _decide(setup, "pip install foo").effect is Effect.ALLOW
    assert _decide(setup, "pip install foo", RULES).effect is not Effect.ALLOW  # (no write rule: asks)


@pytest.mark.parametrize("value", ["0", "false", "No", "off"])
def test_pip_told_not_to_install_for_the_user_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    pass_on(monkeypatch, "PIP_USER", value)
    assert _decide(setup, "pip install foo").effect is Effect.ALLOW


def test_an_everyday_pip_environment_keeps_pip_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in EVERYDAY_PIP.items():
        pass_on(monkeypatch, name, value)
    for line in ("pip install foo", "pip install -U foo bar", "pip list", "pip freeze", "pip show foo",
                 "python3 -m pip install -U foo", "pip download foo"):
        assert _decide(setup, line).effect is Effect.ALLOW, line


@pytest.mark.parametrize("value", ["/data/pip-cache", "../other/c", "out/c"])
def test_the_person_s_own_pip_cache_keeps_pip_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """Echo Desk's own PIP_CACHE_DIR is the person's choice, as the default ~/.cache/pip is."""
    pass_on(monkeypatch, "PIP_CACHE_DIR", value)
    assert _decide(setup, "pip install foo", RULES).effect is Effect.ALLOW


def test_a_pip_cache_the_line_names_is_judged_by_the_write_rules(setup: Setup) -> None:
    named = RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "env PIP_CACHE_DIR=* pip **"\n'
    outside = setup.workspace.parent / "other" / "c"
    assert _decide(setup, f"env PIP_CACHE_DIR={outside} pip install foo", named).effect is not Effect.ALLOW
    assert _decide(setup, f"env PIP_CACHE_DIR={setup.workspace}/out/c pip install foo",
                   named + WRITES_OUT).effect is Effect.ALLOW


def test_an_install_option_is_not_taken_by_a_listing_subcommand(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """pip takes a variable only for an option the subcommand has: ``pip list`` ignores PIP_TARGET."""
    pass_on(monkeypatch, "PIP_TARGET", "../other/t")
    assert _decide(setup, "pip list").effect is Effect.ALLOW
    assert _decide(setup, "pip install foo").effect is not Effect.ALLOW


@pytest.mark.parametrize("variables", [
    {"JUST_WORKING_DIRECTORY": "../other"}, {"JUST_WORKING_DIRECTORY": "{outside}"},
    {"JUST_JUSTFILE": "justfile", "JUST_WORKING_DIRECTORY": "../other"},
    {"JUST_DOTENV_COMMAND": "touch ../x"}, {"JUST_CHOOSER": "out/pick"}, {"JUST_TEMPDIR": "../other"},
    {"JUST_JUSTFILE_NAME": "x.just"}, {"JUST_SOMETHING_NEW": "1"},
])
def test_echo_desk_s_own_just_option_variable_is_judged_as_the_option(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]) -> None:
    assert _decide(setup, "just x").effect is Effect.ALLOW
    for name, value in variables.items():
        pass_on(monkeypatch, name, _outside(setup, value))
    assert _decide(setup, "just x").effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [("JUST_WORKING_DIRECTORY", "src"), ("JUST_COLOR", "always"),
                                           ("JUST_UNSTABLE", "1"), ("JUST_DRY_RUN", "true"), ("JUST_JOBS", "4")])
def test_a_just_option_variable_naming_nothing_the_agent_may_change_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value)
    assert _decide(setup, "just x").effect is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "tox -x 'testenv:x.commands=touch ../other/P' -e x", "tox --override=testenv.commands=x -e x", "tox --ov a=b",
    "tox -rx a=b -e x", "tox --installpkg out/x.whl -e x", "tox --i out/x.whl", "tox --discover out/python -e x",
    "tox --runner out -e x", "tox devenv --devenv ../other/v", "tox -e x $OPTION",
    "just --dotenv-command 'touch ../other/P' x", "just --shell bash x", "just --shell-arg -c x",
    "just --chooser out/pick --choose", "just -c 'touch P'", "just --command touch P", "just -E out/env x",
    "just -qE out/env x", "just --dotenv-filename out.env x", "just --justfile-name out.just x", "just -g x",
    "just --tempdir ../other x", "just --fmt", "just --init", "just --color always --dotenv-command 'touch P' x",
    "just --unknown-option --dotenv-command 'touch P' x", "just $RECIPE",
])
def test_a_tox_or_just_option_that_runs_or_loads_what_the_rule_does_not_trust_asks(setup: Setup, line: str) -> None:
    """``tox -x 'testenv:x.commands=touch ../other/P'`` and ``just --dotenv-command 'touch
    ../other/P' x`` ran their commands (tox 4.67, just 1.59, bash and dash) under a rule naming
    the program: such options are covered only by a rule naming them."""
    assert _decide(setup, line).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "tox", "tox -e py311", "tox -e py -r -q", "tox -ex", "tox run -e py -- -x foo", "tox -p auto", "tox -e lint-fix",
    "just", "just -l", "just --list", "just test", "just x --shell y", "just test arg --flag", "just -d src x",
    "just --color never -n build", "just -f src/justfile x",
])
def test_everyday_tox_and_just_lines_stay_allowed(setup: Setup, line: str) -> None:
    assert _decide(setup, line).effect is Effect.ALLOW


# -- cargo (s237) -------------------------------------------------------------------------------
CARGO_LINES = ("cargo build", "cargo run", "nice cargo test")


@pytest.mark.parametrize(("name", "value"), [
    ("CARGO_BUILD_RUSTC_WRAPPER", "out/w"), ("RUSTC_WRAPPER", "out/w"), ("RUSTC_WORKSPACE_WRAPPER", "./out/w"),
    ("CARGO_BUILD_RUSTC", "out/rustc"), ("RUSTC", "out/bin/rustc"), ("RUSTDOC", "out/rustdoc"),
    ("CARGO_HOME", "out/ch"), ("CARGO_HOME", "out"),
    ("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER", "/usr/bin/env"),
    ("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER", "cc"), ("CARGO_ALIAS_B", "run"),
    ("CARGO_ALIAS_BUILD", "run --config build.rustc-wrapper=out/w"), ("RUSTFLAGS", "-C linker=out/w"),
    ("CARGO_ENCODED_RUSTFLAGS", "-Clinker=out/w"), ("CARGO_BUILD_RUSTFLAGS", "-C linker=out/w"),
    ("CARGO_REGISTRIES_X_CREDENTIAL_PROVIDER", "out/p"), ("CARGO_PROFILE_DEV_RUSTFLAGS", "-C linker=out/w"),
    ("CARGO_UNSTABLE_SOMETHING", "true"), ("CARGO_SOMETHING_NEW", "1"),
])
@pytest.mark.parametrize("line", CARGO_LINES)
def test_echo_desk_s_own_cargo_variable_is_judged_as_the_setting(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str) -> None:
    """Echo Desk started with ``CARGO_HOME=out/ch`` made ``cargo build`` run the rustc-wrapper
    out/ch/config.toml names; ``RUSTC_WRAPPER=out/w`` and the rest ran out/w (cargo 1.95, bash
    and dash): a program or settings file the agent may write, or a setting not understood, asks."""
    assert _decide(setup, line).effect is Effect.ALLOW
    pass_on(monkeypatch, name, value)
    assert _decide(setup, line).effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [
    ("CARGO_HOME", "~/.cargo"), ("CARGO_HOME", "/opt/cargo"), ("RUSTC_WRAPPER", "sccache"),
    ("RUSTC_WRAPPER", "/usr/bin/sccache"), ("CARGO_INSTALL_ROOT", "/opt/cargo"), ("CARGO_TERM_COLOR", "always"),
    ("CARGO_INCREMENTAL", "0"), ("CARGO_NET_RETRY", "5"), ("CARGO_REGISTRIES_CRATES_IO_PROTOCOL", "sparse"),
    ("CARGO_PROFILE_DEV_DEBUG", "0"), ("CARGO_PROFILE_RELEASE_LTO", "true"), ("CARGO_BUILD_JOBS", "2"),
    ("CARGO_TARGET_DIR", "out/t"), ("CARGO_PKG_NAME", "x"),
])
def test_a_cargo_variable_naming_nothing_the_agent_may_change_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value.replace("~", str(setup.home)) if value.startswith("~") else value)
    for line in CARGO_LINES:
        assert _decide(setup, line).effect is Effect.ALLOW, line


#: A rule naming the assignments of cargo's variables.
CARGO_NAMED = "".join(f'\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "env {name}=* cargo **"\n' for name in (
    "CARGO_BUILD_RUSTC_WRAPPER", "RUSTC_WRAPPER", "CARGO_BUILD_RUSTC", "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
    "CARGO_ALIAS_B", "RUSTFLAGS", "CARGO_HOME", "CARGO_INSTALL_ROOT"))


@pytest.mark.parametrize("line", [
    "env CARGO_BUILD_RUSTC_WRAPPER=@WS@/out/w cargo build", "env RUSTC_WRAPPER=@WS@/out/w cargo build",
    "env RUSTC_WRAPPER=sccache cargo build", "env CARGO_BUILD_RUSTC=@WS@/out/w cargo build",
    "env CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=@WS@/out/w cargo run", "env CARGO_ALIAS_B=run cargo b",
    "env RUSTFLAGS='-C linker=@WS@/out/w' cargo build", "env CARGO_HOME=@WS@/out/ch cargo build",
    "env CARGO_HOME=@OTHER@/ch cargo build", "env CARGO_HOME=@HOME@/.cargo cargo build",
    "env CARGO_INSTALL_ROOT=@OTHER@ cargo install --path .",
])
def test_a_cargo_variable_the_line_gives_is_judged_under_a_rule_naming_the_assignment(setup: Setup, line: str) -> None:
    """Each of these ran out/w, read out/ch/config.toml (whose rustc-wrapper ran) or wrote into
    ../other/ch (``.package-cache``, even ``--offline``) under ``bash --noprofile --norc -c`` and
    ``dash -c`` (cargo 1.95, s237): a rule naming the assignment trusts the variable, not every
    program or folder its value may name."""
    line = (line.replace("@WS@", str(setup.workspace)).replace("@HOME@", str(setup.home))
            .replace("@OTHER@", str(setup.workspace.parent / "other")))
    assert _decide(setup, line, RULES + WRITES_OUT + CARGO_NAMED).effect is not Effect.ALLOW


# -- uv (s237) ----------------------------------------------------------------------------------
UV_LINES = ("uv sync", "uv lock", "nice uv sync", "uv --offline sync --frozen")


@pytest.mark.parametrize(("name", "value"), [
    ("UV_PROJECT", "../other"), ("UV_PROJECT", "{outside}"), ("UV_WORKING_DIR", "../other"),
    ("UV_WORKING_DIRECTORY", "{outside}"), ("UV_ENV_FILE", "out/e.env"), ("UV_CONFIG_FILE", "out/uv.toml"),
    ("UV_PROJECT_ENVIRONMENT", "../other/venv"), ("UV_PYTHON", "out/python"), ("UV_SYSTEM_PYTHON", "1"),
    ("UV_PYTHON_INSTALL_DIR", "../other/py"), ("UV_FIND_LINKS", "out/wheels"), ("UV_KEYRING_PROVIDER", "subprocess"),
    ("UV_SOMETHING_NEW", "1"),
])
@pytest.mark.parametrize("line", UV_LINES)
def test_echo_desk_s_own_uv_variable_is_judged_as_the_option(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str) -> None:
    """Echo Desk started with ``UV_ENV_FILE=out/e.env`` (``PYTHONPATH=out``) made ``uv run python``
    run out/sitecustomize.py, with ``UV_PROJECT_ENVIRONMENT=../other/venv`` ``uv sync`` built it
    there, with ``UV_WORKING_DIRECTORY=../other`` ``uv run x.py`` ran ../other/x.py (uv 0.13.9,
    bash and dash)."""
    assert _decide(setup, line).effect is Effect.ALLOW
    pass_on(monkeypatch, name, _outside(setup, value))
    assert _decide(setup, line).effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [("UV_ENV_FILE", "out/e.env"), ("UV_PYTHON", "out/python"),
                                           ("UV_SOMETHING_NEW", "1")])
def test_uvx_takes_uv_s_variables(setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    # (uvx is ``uv tool run``: the tool it runs is judged by a rule of its own, s239)
    assert _decide(setup, "uvx pycowsay hi").effect is Effect.ALLOW
    pass_on(monkeypatch, name, value)
    assert _decide(setup, "uvx pycowsay hi").effect is not Effect.ALLOW


@pytest.mark.parametrize(("name", "value"), [
    ("UV_CACHE_DIR", "/data/uv"), ("UV_CACHE_DIR", "../other/c"), ("UV_INDEX_URL", "https://pypi.example/simple"),
    ("UV_EXTRA_INDEX_URL", "https://a/"), ("UV_NO_PROGRESS", "1"), ("UV_LINK_MODE", "copy"), ("UV_FROZEN", "1"),
    ("UV_PYTHON_PREFERENCE", "only-system"), ("UV_RUN_RECURSION_DEPTH", "1"), ("UV_PROJECT", "src"),
    ("UV_WORKING_DIR", "."),
])
def test_a_uv_variable_naming_nothing_the_agent_may_change_stays_allowed(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    pass_on(monkeypatch, name, value)
    for line in (*UV_LINES, "uvx pycowsay hi"):
        assert _decide(setup, line).effect is Effect.ALLOW, line


def test_a_uv_cache_the_line_names_asks(setup: Setup) -> None:
    """Echo Desk's own UV_CACHE_DIR is the person's cache; one the line gives is not judged yet."""
    named = RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "env UV_CACHE_DIR=* uv **"\n'
    assert _decide(setup, f"env UV_CACHE_DIR={setup.workspace.parent}/other/c uv sync", named).effect is not Effect.ALLOW


def test_a_verdict_works_out_a_command_s_option_variables_once(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """s246: what a command's option variables make of it is worked out once in a verdict, and
    used for its rule, its writes and its settings files alike (until then three times)."""
    worked_out: list[tuple[str | None, ...]] = []
    real = option_variables.from_environment

    def counted(argv: tuple[str | None, ...]) -> option_variables.FromEnvironment:
        worked_out.append(argv)
        return real(argv)

    monkeypatch.setattr(option_variables, "from_environment", counted)
    pass_on(monkeypatch, "PIP_INDEX_URL", "https://pypi.example/simple")
    assert _decide(setup, "pip list && tox -e x").effect is Effect.ALLOW
    assert sorted(worked_out) == [("pip", "list"), ("tox", "-e", "x")]
