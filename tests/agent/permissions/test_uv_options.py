"""s239: uv's own options (``uv_options``). Read with a generic runner's table, a global option
taking a value hid ``run`` (``uv --color never run touch ../other/P`` ran the command unjudged),
and ``-p out/py``, ``--with ./out/p``, ``--with-requirements``, ``uvx --from ./out/p`` and
``--cache-dir ../other/c`` were covered by ``uv **`` (proven, uv 0.13.9 under bash and dash:
the s239 lines of the hostile corpus). These are the cases a corpus line does not show."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[uv|uvx|pytest|python|true|black] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _effect(setup: Setup, line: str, rules: str = RULES) -> Effect | None:
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace).effect


@pytest.mark.parametrize("line", [
    "uv run pytest tests", "uv run --with pytest-cov pytest tests", "uv run -p 3.12 true", "uv run --python=cpython@3.12 true",
    "uv --offline --no-progress run --frozen true", "uv -qq run --all-extras --group dev true", "uv run -- true",
    "uv --directory src run true", "uv venv out/v", "uv venv --prompt x -p 3.12", "uv pip list --target ../other/t", "uv run -m pytest tests", "uv run true --python out/py",
    "uv run --index-url https://pypi.example/simple true", "uv run --with 'git+https://example.com/a/b' true",
    "uv sync", "uv lock --offline", "uv sync -p 3.12", "uv pip install -r requirements.txt", "uv venv", "uv tool list",
    "uv publish -p secret", "uvx black --check src", "uv tool run black --check src",
])
def test_everyday_uv_lines_stay_allowed(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    # an option uv's table does not know, before the subcommand: it may take `run` as its value
    "uv --something-new x run true", "uv run --something-new true", "uvx --something-new black",
    # a folder or index of packages the agent may write (uv builds what it finds there)
    "uv run -f out/w --with p true", "uv run --find-links=./out/w --with p true", "uv run -i out/idx true",
    "uv run --with 'p @ file:///srv/p' true", "uv run -w . true", "uv run --with-editable ./out/p true",
    "uvx --with ./out/p black", "uv run -p ~/bin/py true",
    # files of packages and settings, a program for credentials, an environment file
    "uvx -c out/c.txt black", "uv run --env-file out/e.env true", "uv run --keyring-provider subprocess true",
    "uv sync --config-file out/uv.toml",
    # where it writes, outside what the agent may write, whatever the subcommand
    "uv sync --cache-dir ../other/c", "uv run --cache-dir=../other/c true", "uv venv ../other/v",
    "uv venv --prompt x ../other/v", "uv init ../other/np", "uv pip compile r.in -o ../other/r.txt",
    "uv build -o ../other/dist", "uv export --output-file=../other/r.txt", "uv pip install -t ../other/t x",
    "uv pip install --prefix ~/p x", "uv python install -i ../other/py 3.12",
    "uv pip install --find-links out/w x", "uv add --index ./out/idx x",
    # `uv tool install` puts programs on the person's PATH
    "uv tool install black", "uv tool update-shell",
])
def test_uv_options_naming_code_settings_or_places_ask(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is not Effect.ALLOW


def test_a_module_uv_runs_is_judged_as_python_runs_it(setup: Setup) -> None:
    """``uv run -m mod`` is ``python -m mod``: judged by the rules for that, not for ``mod``."""
    as_program = RULES.replace("[uv|uvx|pytest|python|true|black]", "[uv|true|mod]")
    as_module = RULES.replace("[uv|uvx|pytest|python|true|black]", "[uv|true|python -m mod]")
    assert _effect(setup, "uv run -m mod", as_module) is Effect.ALLOW
    assert _effect(setup, "uv run -m mod", as_program) is not Effect.ALLOW
    assert _effect(setup, "uv run -s out/x.py", as_program) is not Effect.ALLOW


def test_a_rule_naming_the_option_covers_it(setup: Setup) -> None:
    named = RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "uv run --with-requirements * **"\n'
    assert _effect(setup, "uv run --with-requirements requirements-dev.txt true", named) is Effect.ALLOW


def test_a_rule_naming_tool_install_covers_it(setup: Setup) -> None:
    named = RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "uv tool install **"\n'
    assert _effect(setup, "uv tool install black") is not Effect.ALLOW
    assert _effect(setup, "uv tool install black", named) is Effect.ALLOW


def test_a_cache_a_rule_names_is_judged_by_the_write_rules(setup: Setup) -> None:
    """``--cache-dir`` writes where it says (``uv --cache-dir ../other/c run true`` wrote there),
    as pip's does: naming it trusts the option, not every folder."""
    named = RULES + '\n[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "uv run --cache-dir * **"\n'
    assert _effect(setup, "uv run --cache-dir out/uvc true") is not Effect.ALLOW
    assert _effect(setup, "uv run --cache-dir out/uvc true", named) is Effect.ALLOW
    assert _effect(setup, "uv run --cache-dir ../other/c true", named) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    # s255: interpreters and their programs in uv's data folder and ~/.local/bin, shell startup files
    "uv python install 3.12", "uv python install --default 3.12", "uv python update-shell",
    "uv python uninstall 3.12", "uv python pin 3.12", "uv python upgrade",
    # the first python on PATH, outside the project, changed as `--python` naming it would
    "uv pip install --system black", "uv pip sync --system requirements.txt", "uv pip uninstall --system black",
    "uv pip install black --system",
])
def test_uv_commands_changing_interpreters_outside_the_project_ask(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["uv python list", "uv python find 3.12", "uv python dir", "uv pip list --system",
                                  "uv pip freeze --system"])
def test_uv_commands_only_reading_interpreters_stay_allowed(setup: Setup, line: str) -> None:
    assert _effect(setup, line) is Effect.ALLOW


def test_a_rule_naming_python_install_or_system_covers_it(setup: Setup) -> None:
    named = RULES + ('\n[[rule]]\neffect = "allow"\ntool = "shell"\n'
                     'pattern = "[uv python install|uv pip install --system] **"\n')
    assert _effect(setup, "uv python install 3.12", named) is Effect.ALLOW
    assert _effect(setup, "uv pip install --system black", named) is Effect.ALLOW
    assert _effect(setup, "uv python uninstall 3.12", named) is not Effect.ALLOW


def test_uv_settings_the_agent_may_write_ask(setup: Setup) -> None:
    """uv reads the nearest uv.toml or pyproject.toml: ``[pip] python = "./py"`` in out/uv.toml
    made ``uv --directory out pip list`` run out/py (s255; the hostile corpus shows it for
    out/uv.toml, this the pyproject.toml a ``cd`` reaches)."""
    rules = RULES.replace("[uv|", "[cd|uv|")
    assert _effect(setup, "cd out && uv pip list", rules) is not Effect.ALLOW
    assert _effect(setup, "cd src && uv pip list", rules) is Effect.ALLOW


@pytest.mark.parametrize("line", ["env UV_SYSTEM_PYTHON=1 uv pip install black", "env UV_SYSTEM_PYTHON=true uv pip sync r.txt",
                                  "cd out && uv pip install black"])
def test_the_system_python_chosen_by_a_variable_or_the_agent_s_settings_asks(setup: Setup, line: str) -> None:
    """s270: UV_SYSTEM_PYTHON=1 and ``[pip] system = true`` in uv.toml made ``uv pip install``
    install into the first python on PATH as ``--system`` does (uv 0.13.10, ``--dry-run``:
    'Using Python 3.11.7 environment at: /root/.pyenv/…', under bash and dash). The variable is
    one of uv's not read here, so it asks; a uv.toml the agent may write asks as uv's settings
    do (s255). (These asked before s270: kept as they are.)"""
    (setup.workspace / "out" / "uv.toml").write_text("[pip]\nsystem = true\n", encoding="utf-8")
    rules = RULES.replace("[uv|", "[cd|env|uv|")
    assert _effect(setup, line, rules) is not Effect.ALLOW


def test_the_project_s_own_system_setting_is_the_person_s(setup: Setup) -> None:
    """A uv.toml the agent may not write is the person's, as their pip.conf is: ``system = true``
    there is their choice, and a rule for ``uv pip install`` covers it."""
    (setup.workspace / "uv.toml").write_text("[pip]\nsystem = true\n", encoding="utf-8")
    assert _effect(setup, "uv pip install black") is Effect.ALLOW
