"""A setting the line gives git (``git -c key=value``, ``git clone -c``/``--config``) is one git
runs like those of its settings files: ``core.fsmonitor`` at ``git status``, an alias ``!cmd``,
``core.sshCommand``, and ``core.hooksPath`` in a new clone's settings runs its post-checkout
hook during ``git clone`` (git 2.39, tried for real). A rule naming ``-c`` with a wildcard
(``git -c * status``) trusts the option, not every setting: a rule names a setting by its key
(``git -c color.ui=* status``)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_reading import clone_settings
from echo_desk.agent.permissions.tokens import names_setting

from .conftest import Setup
from .engine_verdicts import effect_of

WILDCARD = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git -c * [status|log|diff] **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git clone -c * **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git clone --config=* **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""

KEYS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git -c color.ui=* [status|log] **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git -c core.quotepath=off diff **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git clone -c core.autocrlf=* **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _effect(setup: Setup, rules: str, line: str) -> Effect | None:
    setup.write_user_rules(rules)
    assert not setup.engine.load().errors
    return effect_of(setup, line)


@pytest.mark.parametrize("line", [
    "git -c core.fsmonitor='touch PWNED' status",
    "git -c core.hooksPath=out/h status",
    "git -c color.ui=never status",  # (a wildcard names no setting, however harmless this one)
    "git -c diff.external=out/x diff",
    "git -c core.pager='touch PWNED' log",
    "git clone -c core.hooksPath=../h . out/c",
    "git clone --config=core.hooksPath=../h . out/c",
])
def test_a_wildcard_after_dash_c_names_no_setting(setup: Setup, line: str) -> None:
    assert _effect(setup, WILDCARD, line) is None


def test_a_rule_names_a_setting_by_its_key(setup: Setup) -> None:
    for line in ("git -c color.ui=never status", "git -c color.ui=always log -3", "git -c core.quotepath=off diff",
                 "git clone -c core.autocrlf=false . out/c"):
        assert _effect(setup, KEYS, line) is Effect.ALLOW, line
    for line in ("git -c core.fsmonitor=x status", "git -c color.ui=never -c core.fsmonitor=x status",
                 "git -c core.quotepath=on diff", "git -c Color.ui=never status",
                 "git clone -c core.hooksPath=../h . out/c", "git clone -c core.autocrlf=false -c core.fsmonitor=x . out/c"):
        assert _effect(setup, KEYS, line) is None, line


def test_which_words_name_a_setting() -> None:
    words = frozenset({"git", "-c", "color.ui=*", "core.quotepath=off", "*", "core.*=x"})
    assert names_setting(words, "color.ui=never") and names_setting(words, "core.quotepath=off")
    assert not names_setting(words, "core.quotepath=on") and not names_setting(words, "core.fsmonitor=x")
    assert not names_setting(frozenset({"*"}), "color.ui=x") and not names_setting(frozenset({"*=*"}), "a.b=c")


def test_every_way_git_clone_takes_a_setting() -> None:
    assert clone_settings(("-c", "a.b=1", "--config", "c.d=2", "--config=e.f=3", "--conf=g.h=4", "-qc", "i.j=5",
                           "-ck.l=6", ".", "out/c")) == ["a.b=1", "c.d=2", "e.f=3", "g.h=4", "i.j=5", "k.l=6"]
    assert clone_settings(("-q", "--", "-c", "x")) == [] and None in clone_settings(("-c", None))
