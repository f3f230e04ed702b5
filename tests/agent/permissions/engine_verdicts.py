"""What the engine decides for one shell line in a test's workspace, and the rule text the tests
write first: the steps every permission test file repeats. A file keeps its own rule set and
whatever else its helper does (files it writes, variables it sets) beside these."""

from __future__ import annotations

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.model import Verdict

from .conftest import Setup


def rule_text(*patterns: str, effect: str = "allow", tool: str = "shell") -> str:
    """One rule per pattern, as a person writes it in permissions.toml (each rule ends with a
    blank line, so more rules can follow)."""
    return "".join(f'[[rule]]\neffect = "{effect}"\ntool = "{tool}"\npattern = {_toml(p)}\n\n' for p in patterns)


def writes_allowed(*patterns: str) -> str:
    """Rules letting the agent write each pattern, to append to a rule set (they start on a line
    of their own, whatever that rule set ends with)."""
    return "".join(f'\n{rule_text(pattern, tool="write")}' for pattern in patterns)


def effect_of(setup: Setup, line: str) -> Effect | None:
    """The engine's verdict on ``line`` in the workspace, under the rules already in force."""
    return setup.engine.check_command(line, workspace=setup.workspace).effect


def verdict_under(setup: Setup, rules: str, line: str) -> Verdict:
    """The whole verdict on ``line`` once ``rules`` are the person's rules (written, and read again)."""
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace)


def effect_under(setup: Setup, rules: str, line: str) -> Effect | None:
    """``verdict_under``'s effect (``None``: no rule spoke, the line asks)."""
    return verdict_under(setup, rules, line).effect


def _toml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
