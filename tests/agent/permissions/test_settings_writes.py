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
from .engine_verdicts import effect_under, writes_allowed
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git **"
"""


def _verdict(setup: Setup, line: str, writable: str = "@workspace/out/**") -> Effect | None:
    return effect_under(setup, RULES + writes_allowed(writable), line)


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
    pass_on(monkeypatch, "GIT_CONFIG_GLOBAL", str(tmp_path / "g"))
    pass_on(monkeypatch, "XDG_CONFIG_HOME", str(tmp_path / "x"))
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
    return effect_under(setup, NPM_RULES, line)


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

    pass_on(monkeypatch, "npm_config_userconfig", str(tmp_path / "rc"))
    assert npm_settings_writes.written(("npm", "config", "set", "a=b"), "npm") == ("~/.npmrc", str(tmp_path / "rc"))


# -- s163: the settings commands of pip, hg, rustup, conda, poetry and gh (``settings_commands``) --
OWN_RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[pip|pip3|hg|rustup|conda|poetry|gh|cargo|bundle|bundle3.1|gem|composer] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _own_verdict(setup: Setup, line: str) -> Effect | None:
    return effect_under(setup, OWN_RULES, line)


@pytest.mark.parametrize("line", [
    # pip 23 (proven): set/unset write the user's file, or the environment's when it has one;
    # edit runs the editor --editor names with a shell.
    "pip config set global.index-url http://127.0.0.1:9/simple",
    "pip config --user set global.find-links out/wheels",
    "pip3 config --global set global.index-url x",
    "pip config --site unset global.index-url",
    "pip config --editor 'touch PWNED;true' edit",
    "pip config edit",
    "pip config frobnicate",
    "pip -v config --user set global.index-url x",
    # hg 6.3 (proven): --edit opens ~/.hgrc (-l: the repository's) in the editor.
    "hg config --edit",
    "hg config --ed",
    "hg conf --edit",
    "hg showconfig --edit",
    "hg -R src config --local --edit",
    # rustup 1.29 (proven): a linked toolchain made the default (or a folder's override) is what
    # cargo runs; `rustup run` runs any program.
    "rustup toolchain link evil /tmp/evil",
    "rustup default evil",
    "rustup +stable default evil",
    "rustup override set evil",
    "rustup set profile minimal",
    "rustup run stable touch PWNED",
    "rustup +stable run --install stable touch PWNED",
    # s171, rustup 1.29 (proven): self uninstall deletes ~/.rustup and ~/.cargo; doc runs $BROWSER.
    "rustup self uninstall -y",
    "rustup +stable self uninstall",
    "rustup self update",
    "rustup self frobnicate",
    "rustup doc",
    "rustup docs --std",
    "rustup doc --toolchain --path",
    "rustup -v doc core",
    # conda, poetry, gh (their documentation).
    "conda config --set channel_alias http://127.0.0.1:9",
    "conda config --add channels http://127.0.0.1:9",
    "conda config --env --set a b",
    "conda config --stdin",
    "poetry config virtualenvs.path /tmp/x",
    "poetry config repositories.x http://127.0.0.1:9",
    "poetry config --unset repositories.x",
    "poetry -C src config --local virtualenvs.in-project true",
    "gh config set editor 'touch PWNED'",
    "gh config set -h github.com git_protocol ssh",
    "gh alias set --shell x 'touch PWNED'",
    "gh alias import aliases.yml",
    "gh --frob config set pager x",
    # bundler 2.3 (proven): ~/.bundle/config's gemfile is the Ruby every later bundle evaluates.
    "bundle config set --global gemfile /tmp/x.rb",
    "bundle3.1 config set gemfile /tmp/x.rb",
    "bundle config gemfile /tmp/x.rb",
    "bundle config --delete gemfile",
    "bundle config set --local path vendor",
    # s171, RubyGems 3.3 (proven): the gemrc's :sources: are where every later gem install fetches
    # from; --config-file names the file written; gem takes the command's name in any case and
    # by a unique prefix; --clear-all deletes the specs cache (rm -rf).
    "gem sources --add http://127.0.0.1:9/",
    "gem sources -a http://127.0.0.1:9/",
    "gem sources -ahttp://127.0.0.1:9/",
    "gem sources --ad http://127.0.0.1:9/",
    "gem sources --remove https://rubygems.org/",
    "gem sources -r https://rubygems.org/",
    "gem SOURCES --add http://127.0.0.1:9/",
    "gem so -a http://127.0.0.1:9/",
    "gem --debug sources -a http://127.0.0.1:9/",
    "gem sources -a http://127.0.0.1:9/ --config-file ~/.gemrc",
    "gem sources -a http://127.0.0.1:9/ --config-file=src/gemrc",
    "gem sources --clear-all",
    "gem sources --update",
    "gem sources --frob -a x",
    # s171, composer 2 (its documentation: not installed here): repositories.* is where composer
    # install fetches from, scripts.* what it runs; without --global the project's composer.json.
    "composer config --global repositories.x composer http://127.0.0.1:9",
    "composer config -g bin-dir /tmp/x",
    "composer -d src conf -g --unset repositories.packagist.org",
    "composer config --auth -g http-basic.x u p",
    "composer config scripts.test 'touch PWNED'",
    "composer config --file out/c.json a b",
    "composer config -e",
    "composer config --frob a b",
])
def test_a_program_s_own_settings_write_asks(setup: Setup, line: str) -> None:
    assert _own_verdict(setup, line) in (None, Effect.ASK)


@pytest.mark.parametrize("line", [
    "pip config list", "pip config get global.index-url", "pip config --user debug", "pip install requests",
    "hg config", "hg config ui.username", "hg status",
    "rustup show", "rustup default", "rustup toolchain list", "rustup override list", "rustup which cargo",
    "rustup run stable cargo build", "rustup self help", "rustup doc --path", "rustup docs --std --path",
    "conda config --show", "conda config --get channels", "conda config --file out/condarc --add channels x",
    "poetry config --list", "poetry config virtualenvs.path",
    "gh config get editor", "gh config list", "gh alias list", "gh pr list",
    "bundle config", "bundle config list", "bundle config get gemfile", "bundle config gemfile", "bundle install",
    "gem sources", "gem sources --list", "gem sources -l", "gem list", "gem install rake",
    "composer config -l", "composer config -g --list", "composer config name", "composer config -g bin-dir",
])
def test_reading_forms_and_writes_the_rules_allow_stay_allowed(setup: Setup, line: str) -> None:
    assert _own_verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("argv", "files", "below"), [
    (("pip", "config", "--user", "set", "a.b", "c"), ("~/.config/pip/pip.conf", "~/.pip/pip.conf"), ()),
    (("pip", "config", "set", "a.b", "c"), (None,), ()),
    (("pip", "config", "get", "a.b"), (), ()),
    (("pip", "install", "config"), (), ()),
    (("hg", "config", "-e"), (None,), ()),
    (("rustup", "default", "x"), (), ("~/.rustup",)),
    (("rustup", "toolchain", "link", "x", "/p"), (), ("~/.rustup",)),
    (("rustup", "toolchain", "list"), (), ()),
    (("rustup", "self", "uninstall", "-y"), (), ("~/.rustup", "~/.cargo")),
    (("rustup", "self", "help"), (), ()),
    (("conda", "config", "--file", "rc", "--set", "a", "b"), ("rc",), ()),
    (("conda", "config", "--set", "a", "b"), ("~/.condarc",), ()),
    (("poetry", "config", "a.b", "c"), ("~/.config/pypoetry/config.toml",), ()),
    (("poetry", "config", "a.b"), (), ()),
    (("gh", "config", "set", "editor", "vi"), ("~/.config/gh/config.yml",), ()),
    (("gh", "config", "clear-cache"), (None,), ()),
    (("bundle", "config", "set", "gemfile", "x"), ("~/.bundle/config",), ()),
    (("bundle", "config", "get", "gemfile"), (), ()),
    (("gem", "sources", "--add", "u"), ("~/.gemrc", "~/.config/gem/gemrc"), ("~/.gem/specs", "~/.local/share/gem/specs")),
    (("gem", "sources", "-r", "u"), ("~/.gemrc", "~/.config/gem/gemrc"), ()),
    (("gem", "Sou", "-a", "u", "--config-file=f"), ("f",), ("~/.gem/specs", "~/.local/share/gem/specs")),
    (("gem", "sources", "--clear-all"), (), ("~/.gem/specs", "~/.local/share/gem/specs")),
    (("gem", "sources", "--list"), (), ()),
    (("gem", "install", "sources"), (), ()),
    (("composer", "config", "-g", "a", "b"), ("~/.config/composer/config.json", "~/.config/composer/auth.json",
                                              "~/.composer/config.json", "~/.composer/auth.json"), ()),
    (("composer", "config", "a", "b"), (None,), ()),
    (("composer", "config", "a"), (), ()),
])
def test_the_files_each_settings_command_writes(argv: tuple[str | None, ...], files: tuple[str | None, ...],
                                                below: tuple[str | None, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    from echo_desk.agent.permissions import settings_commands

    for name in ("XDG_CONFIG_HOME", "RUSTUP_HOME", "CARGO_HOME", "POETRY_CONFIG_DIR", "GH_CONFIG_DIR", "BUNDLE_USER_CONFIG",
                 "BUNDLE_USER_HOME", "GEMRC", "GEM_SPEC_CACHE", "XDG_DATA_HOME", "COMPOSER_HOME"):
        monkeypatch.delenv(name, raising=False)
    assert settings_commands.written(argv, settings_commands.COMMANDS[str(argv[0])]) == (files, below)


def test_the_environment_s_settings_folders_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from echo_desk.agent.permissions import settings_commands

    pass_on(monkeypatch, "GH_CONFIG_DIR", str(tmp_path / "gh"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    pass_on(monkeypatch, "RUSTUP_HOME", str(tmp_path / "rustup"))
    assert settings_commands.written(("gh", "config", "set", "a", "b"), settings_commands.COMMANDS["gh"])[0] == (
        "~/.config/gh/config.yml", str(tmp_path / "gh" / "config.yml"))
    assert settings_commands.written(("rustup", "default", "x"), settings_commands.COMMANDS["rustup"])[1] == (
        "~/.rustup", str(tmp_path / "rustup"))
    pass_on(monkeypatch, "GEMRC", str(tmp_path / "gemrc"))
    assert settings_commands.written(("gem", "sources", "-r", "u"), settings_commands.COMMANDS["gem"])[0] == (
        "~/.gemrc", "~/.config/gem/gemrc", str(tmp_path / "gemrc"))


def test_python_m_pip_s_settings_command_writes_too() -> None:
    from echo_desk.agent.permissions.programs import read

    assert read(("python3", "-m", "pip", "config", "--editor", "x", "edit")).written == (None,)
    assert read(("python3", "-m", "pip", "config", "list")).written == ()


def test_rustup_doc_is_covered_by_a_rule_naming_it(setup: Setup) -> None:
    """s171: ``rustup doc`` runs ``$BROWSER`` (proven, rustup 1.29), so ``rustup **`` does not
    cover it (above) but a rule naming ``doc`` does."""
    setup.write_user_rules('[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "rustup doc **"\n')
    setup.engine.refresh()
    assert setup.engine.check_command("rustup doc --std", workspace=setup.workspace).effect is Effect.ALLOW
