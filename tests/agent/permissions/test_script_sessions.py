"""s165: util-linux ``script`` (2.38). Without ``-c`` it starts an interactive ``$SHELL`` that
runs whatever the line gives it on its input (``printf 'touch PWNED\\n' | script -q out/t``
ran touch: proven under bash and dash, strace showed the execve, the hostile corpus holds it):
a rule naming ``script`` trusts it to record a session, not the commands fed to it. Its
typescript goes to ``./typescript`` when no file is named: the write rules judge that file too.
``-c LINE`` is already covered only by naming it, and its line (run by ``$SHELL``) never is.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_of as _effect
from .engine_verdicts import rule_text as _rules

RULES = (_rules("[script|printf|cat|cd|env|timeout] **") + _rules("@workspace/out/**", tool="write"))

NOT_ALLOWED = [
    # commands the line gives the interactive shell on its input
    "printf 'touch PWNED\\nexit\\n' | script -q out/t",
    "printf 'touch PWNED\\n' | script out/t",
    "cat out/cmds | script -q out/t",
    "script -q out/t < out/cmds",
    "script -q out/t <<< 'touch PWNED'",
    "printf 'touch PWNED\\n' | env script -q out/t",
    "printf 'touch PWNED\\n' | timeout 5 script -q out/t",
    "printf 'touch PWNED\\n' | script -a -f out/t",
    # the typescript it writes when no file is named: ./typescript, here outside out/
    "script -q",
    "script",
    # (-c still asks: its line runs in $SHELL)
    "script -qc 'touch PWNED' out/t",
]

ALLOWED = [
    "script -q out/t",
    "script out/t",
    "script -V",
    "script --help | cat",
]


@pytest.mark.parametrize("line", NOT_ALLOWED)
def test_what_script_is_given_to_run_is_not_covered_by_a_rule_naming_script(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ALLOWED)
def test_recording_a_session_without_input_stays_allowed(setup: Setup, line: str) -> None:
    setup.write_user_rules(RULES)
    assert _effect(setup, line) is Effect.ALLOW


def test_the_typescript_written_where_no_file_is_named_is_judged_by_the_write_rules(setup: Setup) -> None:
    setup.write_user_rules(_rules("script **") + _rules("@workspace/**", tool="write"))
    assert _effect(setup, "script -q") is Effect.ALLOW
    setup.write_user_rules(_rules("script **") + _rules("@workspace/**", tool="write")
                           + _rules("@workspace/typescript", effect="deny", tool="write"))
    setup.engine.refresh()
    assert _effect(setup, "script -q") is not Effect.ALLOW
