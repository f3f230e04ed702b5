"""The rule set the hg tests judge under: any hg command, writes only below ``out/`` — so what a
command reads or writes elsewhere (settings, folders, files) makes it ask."""

from __future__ import annotations

from pathlib import Path

from .conftest import Setup

HG_ANY_WRITES_OUT = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "hg **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def judged_under(setup: Setup, rules: str = HG_ANY_WRITES_OUT) -> Path:
    """``setup``'s workspace with ``rules`` in force (not an hg repository: the folders of one
    the agent may write ask under any hg command)."""
    setup.write_user_rules(rules)
    setup.engine.refresh()
    return setup.workspace
