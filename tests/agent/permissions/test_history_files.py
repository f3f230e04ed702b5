"""bash's ``history`` builtin writes the file its line names (``-w``, ``-a``): judged by the write
rules as a redirection is (s289: ``history -s 'cmd'; history -w ~/.bashrc`` under ``history **``)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

RULES = rule_text("[echo|ls|cat|history] **") + writes_allowed("@workspace/**")


@pytest.mark.parametrize("line", [
    "history -s 'touch PWNED'; history -w ~/.bashrc", "history -a ~/.bashrc", "history -w -- ~/.profile",
    "history -d 1 -w ~/.bashrc", "history -d1 -a ~/.bashrc", "history -sw ~/.bashrc", "'history' -a ~/.profile",
    "\\history -w ../elsewhere", "history -w /tmp/h.txt",
    # With no file, $HISTFILE, which bash -c leaves unset: readline's ~/.history.
    "history -w", "history -a",
    # A glob may name the file, or become an option that writes.
    "history *", "history -w *",
])
def test_a_history_file_outside_the_write_rules_asks(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "history", "history 5", "history -c", "history -p x", "history -r", "history -n out/h.txt",
    "history -w out/h.txt", "history -a out/h.txt", "history -s 'text' ~/.bashrc", "history -x ~/.bashrc",
])
def test_listing_the_history_and_writing_it_where_the_rules_allow_stay_allowed(setup: Setup, line: str) -> None:
    assert effect_under(setup, RULES, line) is Effect.ALLOW


def test_the_default_history_file_is_allowed_where_the_home_folder_is(setup: Setup) -> None:
    assert effect_under(setup, RULES + writes_allowed("~/.history"), "history -w") is Effect.ALLOW
