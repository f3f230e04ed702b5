"""s195: ``programs.read`` keeps what it read of a command's words, but where a settings command
writes (``rustup default``: ``$RUSTUP_HOME``; ``gh config set``: ``$GH_CONFIG_DIR``; ``gem
sources --add``: ``$GEMRC``) also depends on the environment Echo Desk runs in. A reading kept
from before that environment changed judged the old file: the write rule that let the agent
write below the home let it write the file the variable names now (/etc/…); gem reads the file
$GEMRC names (s193), so a changed one is a changed verdict. What is kept is now
keyed by the values of the variables the reading looked up, so a changed one is read again."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[rustup|gh|gem] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/**"
"""


@pytest.mark.parametrize(("variable", "line"), [
    ("RUSTUP_HOME", "rustup default stable"),
    ("GH_CONFIG_DIR", "gh config set editor vim"),
])
def test_a_changed_environment_is_read_again(setup: Setup, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             variable: str, line: str) -> None:
    monkeypatch.delenv(variable, raising=False)
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW
    pass_on(monkeypatch, variable, str(tmp_path / "elsewhere"))  # (outside the home: no write rule)
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
    monkeypatch.delenv(variable)
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW



def test_a_changed_gemrc_variable_is_read_again(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    # (every gem command reads its gemrc files, s193: the write rule leaves ~/.gemrc out, so
    # only $GEMRC naming a file the agent may write makes gem ask)
    monkeypatch.delenv("GEMRC", raising=False)
    setup.write_user_rules(RULES.replace('"~/**"', '"~/gems/**"'))
    setup.engine.refresh()
    line = "gem list"
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW
    pass_on(monkeypatch, "GEMRC", str(setup.home / "gems" / "rc"))
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
    monkeypatch.delenv("GEMRC")
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is Effect.ALLOW
