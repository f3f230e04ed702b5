"""A rule naming pip (``pip install **``, ``.venv/bin/pip install **``) trusts pip, not the
settings files it reads: besides the user's (``~/.pip/pip.conf``, ``~/.config/pip/pip.conf``),
pip 23 reads the site settings ``pip.conf`` of the environment it runs in (``sys.prefix``: the
folder above the ``bin/`` of ``.venv/bin/pip`` or ``.venv/bin/python -m pip``), the file
``$PIP_CONFIG_FILE`` names and the global ``/etc/pip.conf`` and ``/etc/xdg/pip/pip.conf``. Any
option may stand there (``log = ../home/.bashrc`` writes that file even when the install fails,
``find-links`` picks archives the agent wrote, ``target`` where pip writes): when the write rules
let the agent write one of them, the line asks (s134). The hostile corpus proves the harm (rule
set venv-pip).
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

PROGRAMS = ("pip install", "pip3.11 install", "python -m pip install", "python3 -m venv", ".venv/bin/pip install",
            ".venv/bin/pip3 install", ".venv/bin/python -m pip install", "out/venv/bin/pip install",
            "./.venv/bin/python3 -m pip install", "src/venv/bin/pip install", "printf", "cd")

#: With the agent's writes allowed in .venv/ and out/ only (or in ~/.config/pip/: the user's file).
AGENT_SETTINGS = [
    ".venv/bin/pip install x", ".venv/bin/pip3 install --no-index x", ".venv/bin/python -m pip install x",
    "./.venv/bin/python3 -m pip install x", "out/venv/bin/pip install x",
    "printf '[global]\\nlog = ../home/.bashrc\\n' > .venv/pip.conf && .venv/bin/pip install x",
]
#: The same programs, reading no settings file the agent may write.
PERSON_SETTINGS = ["src/venv/bin/pip install x", "pip install x", "python -m pip install x"]


@pytest.fixture
def pip_rules(setup: Setup) -> Setup:
    setup.write_user_rules(_rules(*(f"{p} **" for p in PROGRAMS))
                           + _rules("@workspace/.venv/**", "@workspace/out/**", tool="write"))
    return setup


@pytest.mark.parametrize("line", AGENT_SETTINGS)
def test_pip_of_an_environment_the_agent_may_write_asks(pip_rules: Setup, line: str) -> None:
    assert _effect(pip_rules, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", PERSON_SETTINGS)
def test_pip_reading_only_the_persons_settings_is_allowed(pip_rules: Setup, line: str) -> None:
    assert _effect(pip_rules, line) is Effect.ALLOW


def test_pip_user_settings_under_config_home_count_for_every_pip_name(setup: Setup) -> None:
    """(``pip``, ``pip3`` and ``python -m pip`` read ~/.config/pip/pip.conf already counted.)"""
    setup.write_user_rules(_rules(*(f"{p} **" for p in PROGRAMS)) + _rules("~/.config/pip/**", tool="write"))
    assert _effect(setup, "pip3.11 install x") is not Effect.ALLOW
