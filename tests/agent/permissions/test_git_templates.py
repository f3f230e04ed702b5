"""s174: ``git init --template=DIR`` and ``git clone --template=DIR`` copy every file of DIR into
the new repository folder: its hooks run there (``git clone`` runs ``post-checkout`` before it
ends) and its ``config`` is the repository's. Under ``git **`` the option asks (git's options
of init and clone are not read one by one), but a rule naming it (``git [init|clone]
--template **``) covered a template folder the agent may write: ``git clone --template out/tpl
../r out/c`` ran the agent's ``out/tpl/hooks/post-checkout`` (proven here under bash and dash,
git 2.39). Every file of the template folder now counts as code, as a repository's hooks do;
a template folder the agent may not write leaves the rule in force. (``init.templateDir`` in
git's settings already counted, as every path git's settings name does.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.git_folder_writes import templates

from .conftest import Setup
from .engine_verdicts import effect_of as _verdict
from .passed_env import pass_on

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "git [init|clone] --template **"

[[rule]]
effect = "allow"
tool = "shell"
pattern = "git **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/out/**"
"""


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}


@pytest.fixture
def world(setup: Setup, tmp_path: Path) -> Path:
    """The person's repository at ../r, the workspace a repository too."""
    for folder, args in ((tmp_path, ("init", "-q", "r")), (tmp_path / "r", ("commit", "-q", "--allow-empty", "-m", "x")),
                         (setup.workspace, ("init", "-q"))):
        subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, env=_env(setup.home))
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    return setup.workspace


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_clone_runs_the_hooks_of_its_template(world: Path, setup: Setup, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    hook = world / "out" / "tpl" / "hooks" / "post-checkout"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\ntouch ../../PWNED\n", encoding="utf-8")
    hook.chmod(0o755)
    argv = [shell, "--noprofile", "--norc", "-c"] if shell == "bash" else [shell, "-c"]
    subprocess.run([*argv, "git clone -q --template out/tpl ../r out/c"], cwd=world, check=True, capture_output=True,
                   env=_env(setup.home))
    assert (world / "PWNED").exists()


@pytest.mark.parametrize("line", [
    "git clone --template out/tpl ../r out/c",
    "git clone --template=out/tpl ../r out/c",
    "git init --template out/tpl out/r",
    "git -C out clone --template tpl ../../r c",  # (read from where -C leads)
    "git clone --template $dir ../r out/c",  # (a folder known only when the line runs)
])
def test_a_template_the_agent_may_write_asks(world: Path, setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git clone --template /usr/share/git-core/templates ../r out/c",
    "git init --template ../tpl out/r",
])
def test_a_template_the_agent_may_not_write_leaves_the_rule_in_force(world: Path, setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


def test_the_template_folder_the_environment_names_counts(world: Path, setup: Setup,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    assert _verdict(setup, "git init out/r") is Effect.ALLOW
    pass_on(monkeypatch, "GIT_TEMPLATE_DIR", str(world / "out" / "tpl"))
    assert _verdict(setup, "git init out/r") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "found"), [
    (("git", "init", "--template=t"), ("./t",)),
    (("git", "-C", "a", "clone", "--template", "t", "u", "d"), ("a/t",)),
    (("git", "clone", "--unknown", "x", "u"), (None,)),
    (("git", "init"), ()),
    (("git", "status", "--template=t"), ()),
])
def test_the_template_folders_each_form_copies(line: tuple[str, ...], found: tuple[str | None, ...],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_TEMPLATE_DIR", raising=False)
    assert templates(line) == found
