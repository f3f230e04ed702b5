"""s296: hg commands an extension provides are judged as not known. With ``[extensions] extdiff
=`` in ~/.hgrc, under ``hg **`` with ``@workspace/src/**`` read-denied, ``hg extdiff -p touch
-o PWNED -c 0`` ran touch, ``hg extdiff -p grep -o -r -o KEY -c 0`` (and ``--program=grep
--option=…``) printed src/main.py's ``KEY=secret``, and ``[extdiff] cmd.kd = grep`` with
``opts.kd = -r KEY`` made ``hg kd -c 0`` print it too (hg 6.3, scratch home, bash and dash,
strace: grep run on the snapshot of src/main.py hg wrote) while the engine took a command word it
did not know for one running and reading nothing. These need the person's settings (an extension
enabled in their home), which the hostile corpus's world does not have: engine tests.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text

VCS = rule_text("hg **", "cd **")
DENIED = VCS + rule_text("@workspace/src/**", effect="deny", tool="read")

HGRC = """[extensions]
extdiff =
churn =
[extdiff]
cmd.kd = grep
opts.kd = -r KEY
[alias]
lg = log -l 3
"""


@pytest.fixture
def extensions(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    (setup.home / ".hgrc").write_text(HGRC, encoding="utf-8")
    return setup


@pytest.mark.parametrize("line", [
    "hg extdiff -p touch -o PWNED -c 0",
    "hg extdiff --program=grep --option=-r --option=KEY -c 0",
    "hg extd -p grep -c 0",  # (a prefix of it)
    "hg kd -c 0",  # (a command [extdiff] makes)
    "hg churn -t '{diff}'",
    "hg -q churn",
    "hg histedit --commands out/plan",
    "hg fix -w",
    "hg email -r . --to x",
    "hg stat",  # (a prefix of status, or of a command an extension gives)
    "cd out && hg extdiff -p cat -c 0",
])
def test_a_command_an_extension_may_give_asks(extensions: Setup, line: str) -> None:
    assert effect_under(extensions, VCS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg extdiff -p grep -o -r -o KEY -c 0", "hg kd -c 0", "hg churn -t '{diff}'"])
def test_one_reading_the_repository_meets_the_read_deny(extensions: Setup, line: str) -> None:
    assert effect_under(extensions, DENIED + rule_text("hg [extdiff|kd|churn] **"), line) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg status", "hg st", "hg log -l 3", "hg lg", "hg summary", "hg debugindex x"])
def test_hg_own_commands_and_aliases_of_them_keep_the_rule(extensions: Setup, line: str) -> None:
    assert effect_under(extensions, VCS, line) is Effect.ALLOW


def test_a_rule_naming_the_command_covers_it(extensions: Setup) -> None:
    rules = VCS + rule_text("hg extdiff **")
    assert effect_under(extensions, rules, "hg extdiff -p meld") is Effect.ALLOW
    assert effect_under(extensions, rules, "hg kd -c 0") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg stat", "hg sum", "hg lg"])
def test_without_an_extension_a_prefix_of_hg_own_command_keeps_the_rule(setup: Setup, line: str) -> None:
    (setup.workspace / ".hg").mkdir()
    (setup.home / ".hgrc").write_text("[extensions]\nextdiff = !\n[alias]\nlg = log -l 3\n", encoding="utf-8")
    assert effect_under(setup, VCS, line) is Effect.ALLOW


def test_a_word_naming_no_command_of_hg_asks_without_extensions_too(setup: Setup) -> None:
    (setup.workspace / ".hg").mkdir()
    assert effect_under(setup, VCS, "hg extdiff -p touch") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["hg --cwd src pul", "hg -R src stat"])
def test_a_prefix_under_a_folder_whose_settings_are_not_read_asks(setup: Setup, line: str) -> None:
    """``--cwd``/``-R`` make hg read that folder's repository settings, which may enable an
    extension whose command the prefix names: the engine does not read them, so a prefix asks,
    even with no extension enabled in the home; the whole name keeps the rule."""
    (setup.workspace / ".hg").mkdir()
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert effect_under(setup, VCS, line) is not Effect.ALLOW
    whole = line.replace(" pul", " pull").replace(" stat", " status")
    assert effect_under(setup, VCS, whole) is Effect.ALLOW
