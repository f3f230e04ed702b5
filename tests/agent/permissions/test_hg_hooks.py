"""s326: hg runs the hooks of every settings file it reads, the ones the agent cannot write too
(the system's, the person's ~/.hgrc): a hook's command reads files where it runs (the
repository's top folder) that the agent may write. With ``[hooks]`` in a scratch file
``$HGRCPATH`` names (and in the scratch home's ~/.hgrc), ``hg status`` ran ``sh check.sh``,
``make -s -C src lint`` and ``python:hookmod.run`` on a check.sh, src/Makefile and
site-packages/hookmod.py the agent put there (hg 6.3.2, bash and dash, strace), while the engine
judged only the hook's words holding a ``/``. Now each hook's command is judged where it runs
as a command of the line is (``hg_hooks``). The person's settings are needed: engine tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_hooks

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

#: The agent writes src/, the scripts at the top and the user's site-packages; hg's own folders
#: are kept from it, as they must be for any hg command to be allowed in a repository.
RULES: str = rule_text("hg **") + writes_allowed(
    "@workspace/src/**", "@workspace/*.sh", "~/.local/lib/**/hook*.py") + "".join(
    rule_text(p, effect="deny", tool="write") for p in ("@workspace/**/.hg", "@workspace/**/.hg/**",
                                                        "@workspace/**/.hgsub"))
#: Hooks whose command runs what the agent may write.
PLANTED = (
    "sh check.sh",  # (check.sh at the top: no '/' in the word)
    "make -s -C src lint",  # (src/Makefile, which make reads from where -C leads)
    "python:hookmod.run",  # (a module hg imports: site-packages/hookmod.py)
    "python:hookmod.sub.run",
    "cd src && sh x",  # (a hook not read here: any file below the folder it runs in)
    "$TOOL x",
    "bash -c 'sh check.sh'",
    "eval sh check.sh",
    "echo $(sh check.sh)",
    "for f in x; do sh x; done",
)
#: Hooks whose command runs nothing the agent may write.
HARMLESS = ("echo status", "true", "python:mercurial.hook.run", "hg -q summary", "grep -q x README.md", "",
            "python:nomodule", "echo $HG_NODE", "hg log -r $HG_NODE | mail -s x me@example.invalid",
            'test -z "$HG_PENDING" || exit 1')


@pytest.fixture
def repository(setup: Setup) -> Setup:
    (setup.workspace / ".hg").mkdir()
    return setup


def _hook(setup: Setup, value: str) -> None:
    """A hook in the person's ~/.hgrc, which no rule lets the agent write."""
    (setup.home / ".hgrc").write_text(f"[hooks]\npre-status.x = {value}\n", encoding="utf-8")


@pytest.mark.parametrize("hook", PLANTED)
def test_a_hook_running_what_the_agent_may_write_asks(repository: Setup, hook: str) -> None:
    _hook(repository, "true")
    assert effect_under(repository, RULES, "hg status") is Effect.ALLOW
    _hook(repository, hook)
    assert effect_under(repository, RULES, "hg status") is not Effect.ALLOW


@pytest.mark.parametrize("hook", HARMLESS)
def test_a_hook_running_nothing_the_agent_may_write_leaves_the_rule(repository: Setup, hook: str) -> None:
    _hook(repository, hook)
    assert effect_under(repository, RULES, "hg status") is Effect.ALLOW


def test_the_files_the_settings_include_count(repository: Setup) -> None:
    (repository.home / ".hgrc").write_text("%include hooks.rc\n", encoding="utf-8")
    (repository.home / "hooks.rc").write_text("[hooks]\nprecommit = make -s -C src lint\n", encoding="utf-8")
    assert effect_under(repository, RULES, "hg status") is not Effect.ALLOW


def test_what_the_hooks_run() -> None:
    assert hg_hooks._shell_commands("make -s && sh x.sh | cat") == [("make", "-s"), ("sh", "x.sh"), ("cat",)]
    assert hg_hooks._shell_commands("cd src && sh x") is None
    assert hg_hooks._shell_commands("$TOOL x") is None
    assert hg_hooks._shell_commands("echo $(sh a) $B") == [("echo", None, None), ("sh", "a")]
    assert hg_hooks._shell_commands("eval make") is None


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_hg_runs_its_hooks_from_the_repository_top(tmp_path: Path, shell: str) -> None:
    if shutil.which("hg") is None or shutil.which("make") is None or shutil.which(shell) is None:
        pytest.skip(f"hg, make or {shell} is not installed")
    home, repo = tmp_path / "home", tmp_path / "r"
    home.mkdir()
    (tmp_path / "system.rc").write_text("[hooks]\npre-status.a = sh check.sh\npre-status.b = make -s -C src lint\n"
                                        "pre-status.c = python:hookmod.run\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "HGRCPATH": str(tmp_path / "system.rc"), "LANG": "C"}
    subprocess.run(["hg", "init", str(repo)], check=True, capture_output=True, env=env)
    # What the agent writes: a script at the top, a Makefile in src/, a module in site-packages.
    (repo / "check.sh").write_text("touch PWNED-sh\n", encoding="utf-8")
    (repo / "src").mkdir()
    (repo / "src" / "Makefile").write_text("lint:\n\ttouch ../PWNED-make\n", encoding="utf-8")
    site = subprocess.run(["python3", "-m", "site", "--user-site"], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()
    Path(site).mkdir(parents=True)
    (Path(site) / "hookmod.py").write_text("def run(**kw):\n    open('PWNED-py', 'w').close()\n", encoding="utf-8")
    argv = [shell, "--noprofile", "--norc", "-c"] if shell == "bash" else [shell, "-c"]
    subprocess.run([*argv, "hg status"], cwd=repo, check=True, capture_output=True, env=env, timeout=60)
    assert sorted(p.name for p in repo.glob("PWNED*")) == ["PWNED-make", "PWNED-py", "PWNED-sh"]
