"""The engine against the shell itself: every generated line runs under bash (as run_command
runs it) in a scratch folder, traced with strace; each program that really ran must be one the
engine collected — or the engine does not allow the line.

The lines are generated from fixed templates and payloads (the same in every run). Skipped, with
the reason, only where strace cannot trace here (ptrace not permitted).
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, programs
from echo_desk.agent.permissions.decide import Rules
from echo_desk.agent.permissions.shell import analyse
from echo_desk.agent.permissions.shell_verdict import _Judge

from .conftest import Setup

ALLOWED = ["echo", "true", "ls", "cat", "printf", "sed", "sort", "tar", "env", "timeout", "nice", "xargs", "find",
           "command", "time", "head", "wc", "grep"]
RULES = (f'[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[{"|".join(ALLOWED)}] **"\n\n'
         '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[bash|sh] -c *"\n\n'
         '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**"\n')
#: What the generated lines run: harmless programs, some the rules allow, some not (id, touch).
PAYLOADS = ["touch M", "id -u", "true", "echo hi", "ls", "cat a.txt", "sed -n 1p a.txt"]
TEMPLATES = [
    "{p}", "echo x && {p}", "echo x; {p}", "echo x | {p}", "echo x\n{p}", "echo x || {p}", "{p} > out.txt",
    "echo $({p})", "echo `{p}`", "echo ${{x:-`{p}`}}", "echo \"$({p})\"", "({p})", "{{ {p}; }}", "{p} &",
    "if true; then {p}; fi", "[[ -n $({p}) ]]", "[[ 'a[$({p})]' -eq 0 ]]", "cat <<EOF | sh\n{p}\nEOF",
    "cat <<EOF\n$({p})\nEOF", "cat <<'EOF' && {p}\nx\nEOF", "cat <(({p}))", "eval '{p}'", "bash -c '{p}'",
    "sh -c '{p}'", "env {p}", "timeout 5 {p}", "nice {p}", "command {p}", "time {p}", "echo a | xargs {p}",
    "find . -name a.txt -exec {p} \\;", "ls\n\\{p}", "echo \\\n{p}", "LANG=C {p}", "x=1; {p}",
    "echo $'\\' ; {p} #'", "sed -n '1e {p}' a.txt", "sed -n 's/.*/{p}/e' a.txt",
    "tar -tf a.tar --checkpoint=1 --checkpoint-a=exec='{p}'", "f() {{ {p}; }}; f", "for i in 1; do {p}; done",
    "case x in x) {p};; esac", "! {p}", "echo x | while read l; do {p}; done", "{p} 2>&1 | cat",
]
LINES = [t.format(p=p) for t, p in itertools.product(TEMPLATES, PAYLOADS)]
_EXECVE = re.compile(r'^\d+\s+execve\("([^"]*)", .*\) = 0$')


def _strace_works(tmp: Path) -> str | None:
    strace = shutil.which("strace")
    if strace is None:
        return "strace is not installed (scripts/install-system-deps.sh installs it)"
    log = tmp / "probe.log"
    done = subprocess.run([strace, "-f", "-qq", "-e", "trace=execve", "-o", str(log), "true"], capture_output=True,
                          text=True, timeout=30)
    if done.returncode != 0 or not log.exists() or "execve" not in log.read_text():
        return f"strace cannot trace here: {done.stderr.strip()[:200]}"
    return None


def _ran(line: str, scratch: Path, bash: str, strace: str) -> list[str]:
    """The programs bash really executed for ``line`` (bash itself left out), in order."""
    for child in scratch.iterdir():
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    (scratch / "a.txt").write_text("a\n")
    subprocess.run(["tar", "-cf", "a.tar", "a.txt"], cwd=scratch, check=True)
    log = scratch.parent / "trace.log"
    subprocess.run([strace, "-f", "-qq", "-e", "trace=execve", "-o", str(log), bash, "--noprofile", "--norc", "-c",
                    line], cwd=scratch, capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
                   env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(scratch), "LANG": "C"})
    executed = [m.group(1) for m in map(_EXECVE.match, log.read_text().splitlines()) if m]
    return [os.path.basename(p) for p in executed[1:]]


def _collected(setup: Setup, line: str) -> set[str]:
    """Every program the engine sees in ``line``, wrappers unwrapped."""
    analysis = analyse(line)
    judge = _Judge(Rules(deny=(), ask=(), allow=(), grants=()), _where(setup), analysis)
    found: set[str] = set()
    for command in analysis.commands:
        for argv in judge.forms(command.argv).argvs:
            program = programs.base(argv[0]) if argv else None
            if program:
                found.add(program)
    return found


def _where(setup: Setup):  # type: ignore[no-untyped-def]
    from echo_desk.agent.permissions.floor import Where

    return Where(cwd=setup.workspace, home=setup.home, workspaces=(setup.workspace,), protected=())


def test_what_bash_runs_is_what_the_engine_collected_or_the_line_is_not_allowed(setup: Setup,
                                                                                tmp_path: Path) -> None:
    why = _strace_works(tmp_path)
    if why is not None:
        pytest.skip(why)
    bash, strace = shutil.which("bash"), shutil.which("strace")
    assert bash is not None and strace is not None
    setup.write_user_rules(RULES)
    scratch = setup.workspace
    allowed_lines = 0
    missed: list[tuple[str, list[str]]] = []
    for line in LINES:
        ran = _ran(line, scratch, bash, strace)
        verdict = setup.engine.check_command(line, workspace=setup.workspace).effect
        if verdict is not Effect.ALLOW:
            continue
        allowed_lines += 1
        unseen = [p for p in ran if p not in _collected(setup, line)]
        if unseen or not set(ran) <= {*ALLOWED, "bash", "sh"}:
            missed.append((line, ran))
    assert missed == []
    # The check means something only if many lines were allowed and really ran their programs.
    assert allowed_lines >= 40, allowed_lines
