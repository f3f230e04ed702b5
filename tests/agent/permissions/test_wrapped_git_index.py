"""s288: a git command that writes the index (``git add``, ``git stash``), run by a wrapper that
runs it once (``env``, ``nice``, ``timeout``…), is judged as the bare command: the submodules git
may run git in are read from the index before the line runs (``git_index``), as for ``git add
-A`` alone. It asked before wherever the agent may write below the worktree: every command a
wrapper runs counted as one that may run twice, so its first run might stage a repository the
agent planted (out/r) that its second run then runs git in.

Proven with strace, bash and dash, in a scratch repository with out/r/.git/config naming
``core.fsmonitor = touch PWNED``: ``git add -A`` and ``env``/``nice``/``timeout``/``nohup``/
``stdbuf``/``time``/``ionice`` before it each ran git once and never ran touch; ``git add -A;
git add -A``, ``printf '1\\n2\\n' | xargs -I{} git add -A`` and ``env git add -A && git status``
ran it (hostile corpus, s288). s298: ``setsid`` (with ``-f``, ``-w``, and leading its process
group, where it forks first), ``taskset`` and ``chrt`` also ran git once each; unbuffer and
chronic were not installed, and still count as running it again."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, programs

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed
from .git_setup import git_in

RULES = rule_text("git [status|diff|log|add|stash] **",
                  "[env|nice|timeout|nohup|stdbuf|time|ionice|setsid|taskset|chrt|xargs|printf] **") \
    + writes_allowed("@workspace/out/**")


@pytest.fixture
def repository(setup: Setup) -> Setup:
    (setup.workspace / "src" / "a.py").write_text("x = 1\n", encoding="utf-8")
    git_in(setup.workspace, "init", "-q")
    git_in(setup.workspace, "add", "-A")
    git_in(setup.workspace, "commit", "-qm", "init")
    return setup


@pytest.mark.parametrize("line", [
    "git add -A",
    "env git add -A",
    "env LANG=C git add -A",
    "nice git add -A",
    "nice -n 5 git add src/a.py",
    "timeout 5 git add -A",
    "nohup git add -A",
    "stdbuf -oL git add -A",
    "time git add -A",
    "ionice -c3 git add -A",
    "env LANG=C nice -n5 timeout 9 git add -A",
    "env git stash",
    "timeout 9 git status",
    # s298: one execve of git each, strace, bash and dash (setsid forks first when it leads its
    # process group, and with -f; chrt and taskset set a policy or a CPU mask, then exec)
    "setsid git add -A",
    "setsid -f git add -A",
    "setsid -w git add -A",
    "taskset 1 git add -A",
    "taskset -c 0 git add -A",
    "chrt -o 0 git add -A",
    "chrt -b 0 git add -A",
    "nice setsid taskset -c 0 git add -A",
])
def test_a_git_command_a_wrapper_runs_once_is_judged_as_the_bare_one(repository: Setup, line: str) -> None:
    assert effect_under(repository, RULES, line) is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git add -A; git add -A",
    "env git add out/r && nice git status",
    "timeout 9 git add out/r && timeout 9 git diff",
    "nice git add -A && env git add -A",
    "printf '1\\n2\\n' | xargs -I{} git add -A",
    "setsid git add out/r && taskset 1 git status",
    "chrt -o 0 git add -A && setsid -w git diff",
])
def test_a_git_add_that_may_run_before_another_git_command_still_asks(repository: Setup, line: str) -> None:
    assert effect_under(repository, RULES, line) is not Effect.ALLOW


@pytest.mark.parametrize("argv", [
    ("env", "git", "add"), ("env", "-u", "X", "A=1", "git", "add"), ("nice", "-n", "5", "git", "add"),
    ("timeout", "5", "git", "add"), ("nohup", "git", "add"), ("stdbuf", "-oL", "git", "add"),
    ("time", "git", "add"), ("ionice", "-c3", "git", "add"), ("setsid", "git", "add"), ("setsid", "-f", "git", "add"),
    ("taskset", "-c", "0", "git", "add"), ("chrt", "-o", "0", "git", "add"),
])
def test_the_wrappers_that_run_their_command_once_say_so(argv: tuple[str, ...]) -> None:
    assert [inner.once for inner in programs.read(argv).inners] == [True]


@pytest.mark.parametrize("argv", [
    ("xargs", "git", "add"), ("xargs", "-I{}", "git", "add", "-A"), ("find", ".", "-exec", "git", "add", "{}", ";"),
    ("watch", "git", "add", "-A"), ("entr", "git", "add", "-A"), ("bash", "-c", "git add -A"),
    ("git", "submodule", "foreach", "git add -A"), ("sudo", "git", "add"), ("valgrind", "git", "add"),
    ("unbuffer", "git", "add"), ("chronic", "git", "add"),  # (not proven: not installed, s298)
])
def test_any_other_program_may_run_its_command_again(argv: tuple[str, ...]) -> None:
    assert all(not inner.once for inner in programs.read(argv).inners)
