"""A program named by a path (``./gradlew``, ``out/tool``) is the file at that path (s152): a rule
naming the path trusts what the file holds, and while the write rules let the agent write that
file, what it holds is the agent's — the rule does not allow running it. The hostile corpus
proves the harm (issue ``s152``, rule set ``path-programs``)."""

from __future__ import annotations

import os

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[./gradlew|./tool|out/tool|src/tool|~/bin/tool] **"
"""


def _verdict(setup: Setup, line: str, writable: str) -> Effect | None:
    return effect_under(setup, RULES + writes_allowed(writable), line)


@pytest.mark.parametrize(("line", "writable"), [
    ("./gradlew build", "@workspace/**"), ("./gradlew build", "@workspace/gradlew"), ("out/tool", "@workspace/out/**"),
    ("~/bin/tool -v", "~/bin/**"),
])
def test_a_program_the_agent_may_write_is_not_allowed_by_naming_its_path(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    ("./gradlew build", "@workspace/out/**"), ("src/tool", "@workspace/out/**"), ("~/bin/tool -v", "@workspace/**"),
])
def test_a_program_the_agent_cannot_write_stays_allowed(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is Effect.ALLOW


def test_a_link_counts_where_it_leads(setup: Setup) -> None:
    """``./tool`` a link into out/: the file that runs is out/tool's."""
    os.symlink("out/real", setup.workspace / "tool")
    assert _verdict(setup, "./tool", "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, "./tool", "@workspace/docs/**") is Effect.ALLOW
