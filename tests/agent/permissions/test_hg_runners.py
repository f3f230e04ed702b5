"""s201: hg's commands that run what the line gives them. Under a rule ``hg **``, ``hg bisect -c
CMD`` ran CMD (at once, with no revision marked), ``hg debugshell`` ran the Python piped to it
and ``hg merge --tool out/evil`` (or ``--tool python:out/evil.py:f``) ran the agent's program on
a conflict: proven with hg 6.3 under bash and dash in a scratch home (the s201 lines of the
hostile corpus; the merge needs a conflict, proven by hand). A rule covers each only by naming
it, as hg's ``--config`` and ``--ssh``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.hg_runners import hg_runner_flags
from echo_desk.agent.permissions.options import Does

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .hg_rules import HG_ANY_WRITES_OUT, judged_under


@pytest.mark.parametrize("line", [
    "hg bisect -c 'touch PWNED'",
    "hg bisect --command='touch PWNED'",
    "hg bisect --comm 'touch PWNED'",  # (a unique prefix of the option)
    "hg bis -Uc 'touch PWNED'",  # (of the command, and a cluster of short options)
    "hg -R ../r bisect -g 0 -c 'touch PWNED'",
    "hg debugshell",
    "hg debugsh",
    "hg merge --tool out/evil 1",
    "hg merge -t python:out/evil.py:f",
    "hg merge --to=out/evil",
    "hg update -C --tool kdiff3 1",  # (a program found on PATH)
    "hg co -t out/evil 1",  # (hg's other names of update)
    "hg checkout -tout/evil 1",
    "hg resolve --all -t out/evil",
    "hg graft -r 1 --tool out/evil",
    "hg backout --tool out/evil 1",
    "hg unshelve -t out/evil",
    "hg merge --unknown x",  # (an option not known here may take the next word)
    "hg $CMD -t x",  # (the command known only when the line runs)
])
def test_an_hg_command_running_what_the_line_gives_asks(setup: Setup, line: str) -> None:
    judged_under(setup)
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "hg bisect -g 0", "hg bisect --reset", "hg merge -r 1", "hg merge --tool :merge3", "hg up -C 2",
    "hg resolve --all --tool=internal:local", "hg update", "hg log -t x", "hg serve -t templates", "hg status -c",
])
def test_the_same_commands_without_a_program_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    judged_under(setup)
    assert _verdict(setup, line) is Effect.ALLOW


def test_a_rule_naming_the_option_or_the_command_covers_it(setup: Setup) -> None:
    judged_under(setup, HG_ANY_WRITES_OUT + """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[hg bisect --command **|hg debugshell|hg merge --tool **]"
""")
    for line in ("hg bisect --command 'make test'", "hg debugshell", "hg merge --tool meld"):
        assert _verdict(setup, line) is Effect.ALLOW, line
    assert _verdict(setup, "hg bisect -c 'make test'") is not Effect.ALLOW


@pytest.mark.parametrize(("argv", "does"), [
    (("hg", "bisect", "-c", "x"), [Does.RUNS]),
    (("hg", "-q", "debugshell"), [Does.RUNS]),
    (("hg", "merge", "-t", ":merge"), []),
    (("hg", "u", "-t", "x"), []),  # (update or unshelve: hg stops, the prefix is ambiguous)
    (("hg", "re", "-t", "x"), [Does.RUNS]),  # (hg stops too; counted all the same)
    (("hg",), []),
    (("hg", None, "-t", "x"), [None]),
])
def test_the_flags_each_hg_runner_gives(argv: tuple[str | None, ...], does: list[Does | None]) -> None:
    assert [f.does for f in hg_runner_flags(argv)] == does


def test_a_socket_the_command_server_makes_is_judged_as_a_write(setup: Setup, tmp_path: Path) -> None:
    """``hg serve --cmdserver unix -a ~/sock`` made a socket in the home folder (proven by hand,
    hg 6.3: a server that does not end is no corpus line)."""
    judged_under(setup)
    for line in ("hg serve --cmdserver unix -a ~/sock", "hg serve --cmdserver=unix --address ../sock",
                 "hg serve --cmdserver chgunix -a out/sock"):
        assert _verdict(setup, line) is not Effect.ALLOW, line
    for line in ("hg serve --cmdserver unix -a out/sock", "hg serve --cmdserver pipe", "hg serve -a 127.0.0.1"):
        assert _verdict(setup, line) is Effect.ALLOW, line
