"""Programs that run ssh besides scp and sftp (s156): git for a remote of ssh's forms, hg for an
``ssh://`` path, rsync for a ``host:path``. ssh runs what its settings say (``ProxyCommand``,
``Match exec``) from the files they include, before it reaches any host: where the write rules
let the agent write one, a rule naming the program is a rule for what the agent put there.
Proven with OpenSSH 9.2, git 2.39 and hg 6.3 (``GIT_SSH_COMMAND='ssh -F cfg'``, ``hg --config
ui.ssh='ssh -F cfg'``, a host that does not exist): ``ssh_reach``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git|hg|cd] **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "rsync -a x:/srv/a out/b"

[[rule]]
effect = "allow"
tool = "write"
pattern = "~/.orbstack/**"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""
#: What OrbStack adds to ~/.ssh/config: a file the rules above let the agent write.
INCLUDE = "Include ~/.orbstack/ssh/config\n"


def _verdict(setup: Setup, line: str) -> Effect | None:
    return effect_under(setup, RULES, line)


def _ssh_config(setup: Setup, text: str) -> None:
    (setup.home / ".ssh").mkdir(exist_ok=True)
    (setup.home / ".ssh" / "config").write_text(text, encoding="utf-8")


def _repository(folder: Path, origin: str) -> None:
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", origin], check=True)


@pytest.mark.parametrize("line", [
    "git fetch x:repo", "git ls-remote git+ssh://x/r", "git clone ssh://x/r out/r", "git clone ssh+git://x/r out/r",
    "git pull git@x:r.git main", "git -C src fetch x:repo", "git submodule update",
    "hg pull ssh://x/r", "hg clone ssh://x/r out/r", "hg identify ssh://x/r", "hg -R src incoming",
    "hg --cwd src pull", "rsync -a x:/srv/a out/b",
])
def test_a_command_that_runs_ssh_counts_what_its_settings_include(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW
    _ssh_config(setup, INCLUDE)
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git status", "git log", "git fetch ../other", "git clone /tmp/r out/r", "git clone file:///tmp/r out/r",
    "git push https://h/r", "git ls-remote git://h/r", "git remote -v", "git submodule status", "hg status",
    "hg log -r tip",
])
def test_a_command_that_cannot_run_ssh_is_left_alone(setup: Setup, line: str) -> None:
    _ssh_config(setup, INCLUDE)
    assert _verdict(setup, line) is Effect.ALLOW


@pytest.mark.parametrize(("origin", "effect"), [("x:repo", None), ("ssh://x/r", None), ("/tmp/local", Effect.ALLOW),
                                                ("https://h/r", Effect.ALLOW)])
@pytest.mark.parametrize("line", ["git push", "git pull", "git fetch origin"])
def test_a_remote_name_stands_for_its_url(setup: Setup, origin: str, effect: Effect | None, line: str) -> None:
    _repository(setup.workspace, origin)
    _ssh_config(setup, INCLUDE)
    if line == "git push" and origin.startswith("/"):
        effect = None  # (a push to a local path writes that repository, which no write rule here allows: s325)
    assert (_verdict(setup, line) is Effect.ALLOW) is (effect is Effect.ALLOW)


def test_a_rewrite_to_ssh_form_counts(setup: Setup) -> None:
    """``url.<base>.insteadOf`` (git@host: for https://host/, as many people set) makes an https
    URL ssh's."""
    _ssh_config(setup, INCLUDE)
    assert _verdict(setup, "git clone https://h/r out/r") is Effect.ALLOW
    (setup.home / ".gitconfig").write_text('[url "git@h:"]\n\tinsteadOf = https://h/\n', encoding="utf-8")
    assert _verdict(setup, "git clone https://h/r out/r") is not Effect.ALLOW


def test_a_fetch_in_a_repository_with_submodules_counts(setup: Setup) -> None:
    """A fetch recurses into submodules (``fetch.recurseSubmodules``: on demand), whose URLs the
    ``.gitmodules`` file holds, whatever the remote fetched from."""
    _repository(setup.workspace, "/tmp/local")
    _ssh_config(setup, INCLUDE)
    assert _verdict(setup, "git fetch origin") is Effect.ALLOW
    (setup.workspace / ".gitmodules").write_text('[submodule "m"]\n\tpath = m\n\turl = x:m\n', encoding="utf-8")
    assert _verdict(setup, "git fetch origin") is not Effect.ALLOW


def test_the_file_git_ssh_command_names_counts(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """``$GIT_SSH_COMMAND`` in the environment the commands inherit from Echo Desk: git runs it
    instead of ssh (``ssh -F FILE`` reads FILE's ProxyCommand)."""
    assert _verdict(setup, "git fetch x:repo") is Effect.ALLOW
    pass_on(monkeypatch, "GIT_SSH_COMMAND", "ssh -F out/cfg")
    assert _verdict(setup, "git fetch x:repo") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "effect"), [
    # The command hg runs instead of ssh (proven, hg 6.3: the hostile corpus, s156).
    ("hg identify -e 'touch PWNED;' ssh://x/r", None), ("hg clone --ssh 'sh out/x' ssh://x/r out/r", None),
    ("hg clone --ss='sh out/x' ssh://x/r out/r", None), ("hg id -qe'sh out/x' ssh://x/r", None),
    ("hg pull -e x ssh://x/r", None), ("hg status", Effect.ALLOW), ("hg log -r tip", Effect.ALLOW),
    ("hg id --remotecmd x ssh://x/r", Effect.ALLOW),  # (run on the host reached, not here)
])
def test_the_command_hg_runs_instead_of_ssh_is_covered_only_by_naming_it(setup: Setup, line: str,
                                                                          effect: Effect | None) -> None:
    assert (_verdict(setup, line) is Effect.ALLOW) is (effect is Effect.ALLOW)
