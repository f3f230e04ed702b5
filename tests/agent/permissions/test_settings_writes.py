"""s153: ``git config`` writes a settings file git runs later (``core.pager`` at the person's
next ``git log``, ``core.fsmonitor`` at ``git status``, an alias ``!cmd``), ``npm config set``
the ~/.npmrc every later npm command reads (``script-shell`` runs ``npm test``'s script). Under
a rule naming the program each file a writing form writes is judged by the write rules, as a
redirection to it; a form the engine cannot place (the repository's own file, ``--system``,
``--blob``, npm's project and global files, a word known only when the line runs) asks, ``-e``
and ``npm config edit`` run an editor, and the reading forms stay allowed.

Proven with git 2.39 and npm 11 under bash and dash, in a scratch home and repository (strace -f -e
trace=execve: the command runs at the next ``git status`` / ``git log`` / ``git st`` / ``npm test``): see the
s153 lines of the hostile corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_settings_writes import config_written

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git **"
"""


def _verdict(setup: Setup, line: str, writable: str = "@workspace/out/**") -> Effect | None:
    setup.write_user_rules(RULES + f'\n[[rule]]\neffect = "allow"\ntool = "write"\npattern = "{writable}"\n')
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace).effect


@pytest.mark.parametrize("line", [
    "git config --global core.pager 'touch PWNED'",
    "git config --global alias.st '!touch PWNED'",
    "git config --global --add core.fsmonitor 'touch PWNED'",
    "git config --global --replace-all core.pager x",
    "git config --global --unset core.pager",
    "git config --global --rename-section core x",
    "git config --file ~/.gitconfig core.pager x",
    "git config -f ~/.gitconfig core.pager x",
    "git config --file=$HOME/.gitconfig core.pager x",
    "git config -f../home/.gitconfig core.pager x",
    "git -C out config --file ../../home/.gitconfig core.pager x",
    "git config --file src/c core.pager x",
    "git config core.pager 'touch PWNED'",
    "git config --local core.pager x",
    "git config --worktree core.pager x",
    "git config --system core.pager x",
    "git config --blob HEAD:c a.b c",
    "git config set core.pager x",
    "git config --unset core.pager",
    "git config -e",
    "git config --global --edit",
    "git config --file \"$F\" a.b c",
])
def test_a_write_outside_the_write_rules_asks(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) in (None, Effect.ASK)


@pytest.mark.parametrize("line", [
    "git config --get core.pager",
    "git config core.pager",
    "git config --global core.pager",
    "git config --global --get-all core.pager",
    "git config --global -l",
    "git config --list --show-origin",
    "git config --get-regexp 'alias.*'",
    "git config --get-color color.diff.old red",
    "git config get core.pager",
    "git config --file out/c core.pager x",
    "git config -f out/c --unset core.pager",
    "git -C src config --file ../out/c core.pager x",
])
def test_reading_and_writes_the_rules_allow_stay_allowed(setup: Setup, line: str) -> None:
    (setup.workspace / "src").mkdir(exist_ok=True)
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("argv", "written"), [
    (("git", "config", "--global", "a.b", "c"), ("~/.gitconfig", "~/.config/git/config")),
    (("git", "config", "-f", "x", "a.b", "c"), ("./x",)),
    (("git", "-C", "sub", "-C", "..", "config", "--file", "x", "a.b", "c"), ("./x",)),
    (("git", "-C", "sub", "config", "--file", "/abs/x", "a.b", "c"), ("/abs/x",)),
    (("git", "config", "a.b", "c"), (None,)),
    (("git", "config", "a.b", None), (None,)),
    (("git", "config", "--frobnicate", "a.b"), (None,)),
    (("git", "config", "a.b"), ()),
    (("git", "config", "--global", "--get-urlmatch", "http", "https://x"), ()),
])
def test_the_files_each_form_writes(argv: tuple[str | None, ...], written: tuple[str | None, ...],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    at = argv.index("config")
    assert config_written(argv, at) == written


def test_the_environment_s_global_file_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "g"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "x"))
    assert config_written(("git", "config", "--global", "a.b", "c"), 1) == (
        "~/.gitconfig", "~/.config/git/config", str(tmp_path / "g"), str(tmp_path / "x" / "git" / "config"))


# -- npm: ``npm config set`` writes ~/.npmrc, read by every later npm command ---------------------
NPM_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[npm|yarn|pnpm] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _npm_verdict(setup: Setup, line: str) -> Effect | None:
    setup.write_user_rules(NPM_RULES)
    setup.engine.refresh()
    return setup.engine.check_command(line, workspace=setup.workspace).effect


@pytest.mark.parametrize("line", [
    "npm config set script-shell /tmp/x",
    "npm set script-shell=/tmp/x",
    "npm c set node-options='--require /tmp/x.js'",
    "npm config delete script-shell",
    "npm config set a=b --location=project",
    "npm config set a=b -g",
    "npm config set a=b --location user",
    "npm config edit",
    "npm config fix",
    "npm config $X a=b",
    "yarn config set script-shell /tmp/x",
    "pnpm config set script-shell /tmp/x",
])
def test_npm_s_settings_writes_ask(setup: Setup, line: str) -> None:
    assert _npm_verdict(setup, line) in (None, Effect.ASK)


@pytest.mark.parametrize("line", [
    "npm config get script-shell", "npm config list", "npm config ls --json", "npm get registry", "npm test",
    "npm run build", "npm install", "yarn config get registry",
])
def test_npm_s_reading_forms_stay_allowed(setup: Setup, line: str) -> None:
    assert _npm_verdict(setup, line) is Effect.ALLOW


def test_npm_writes_the_user_file_the_environment_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from echo_desk.agent.permissions import npm_settings_writes

    monkeypatch.setenv("npm_config_userconfig", str(tmp_path / "rc"))
    assert npm_settings_writes.written(("npm", "config", "set", "a=b"), "npm") == ("~/.npmrc", str(tmp_path / "rc"))
