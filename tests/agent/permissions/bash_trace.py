"""Running a line under bash (or dash) with every exec and every write traced, and what the
engine saw in it: the two sides of the check against the shell itself (``test_against_bash.py``,
and its random exploration, ``scripts/explore_against_bash.py``)."""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions import programs
from echo_desk.agent.permissions.decide import Rules
from echo_desk.agent.permissions.floor import Where
from echo_desk.agent.permissions.shell import analyse
from echo_desk.agent.permissions.shell_verdict import _Judge
from echo_desk.sandbox.shell import Grammar

from .written_files import FOLDER_CALLS, WRITE_CALLS, files_written

#: Programs the rules allow, each by its own rule; and ``bash -c``/``sh -c``, whose line is judged.
ALLOWED = ["echo", "true", "ls", "cat", "printf", "sed", "sort", "tar", "env", "timeout", "nice", "xargs", "find", "test", "let", "read", "set",
           "tee", "cp", "touch", "mkdir", "ln", "history", "mapfile", "cd", "pushd",
           "command", "time", "head", "wc", "grep", "mv", "install", "dd", "truncate", "split", "rm", "popd",
           "cmake"]
RULES = (f'[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[{"|".join(ALLOWED)}] **"\n\n'
         '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "[bash|sh] -c *"\n\n'
         '[[rule]]\neffect = "allow"\ntool = "write"\npattern = "@workspace/**"\n')
#: What an allowed line may run: the allowed programs and the shells of ``bash -c``.
MAY_RUN = frozenset({*ALLOWED, "bash", "sh"})
_EXECVE = re.compile(r'^(\d+)\s+execve\("([^"]*)", .*\) = 0$')
#: With processes running at once, strace splits a call in two lines: ``execve("/usr/bin/ls", …
#: <unfinished ...>`` and, later, ``<... execve resumed>) = 0`` (a pipeline's programs).
_UNFINISHED = re.compile(r'^(\d+)\s+execve\("([^"]*)", .*<unfinished \.\.\.>$')
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. execve resumed>.*\)\s+= 0$")
#: The shells a line can run under, and the grammar the engine reads it with for each: bash as
#: run_command starts it; dash as ``/bin/sh``, what run_command runs where bash is missing.
SHELLS = {"bash": Grammar.BASH, "dash": Grammar.POSIX}


def strace_problem(tmp: Path) -> str | None:
    """Why strace cannot trace here, or ``None`` when it can."""
    strace = shutil.which("strace")
    if strace is None:
        return "strace is not installed (scripts/install-system-deps.sh installs it)"
    log = tmp / "probe.log"
    done = subprocess.run([strace, "-f", "-qq", "-e", "trace=execve", "-o", str(log), "true"], capture_output=True,
                          text=True, timeout=30)
    if done.returncode != 0 or not log.exists() or "execve" not in log.read_text():
        return f"strace cannot trace here: {done.stderr.strip()[:200]}"
    return None


@dataclass(frozen=True)
class Trace:
    """What a line really did: the programs it executed (the shell itself left out), in order, and
    every file it opened for writing, created, renamed, linked or deleted (absolute paths);
    ``executed``: the programs as the paths they were executed by (relative ones as given)."""

    programs: list[str]
    written: list[str]
    executed: tuple[str, ...] = ()


#: The account random lines run as when the tests run as root (``run_traced(user=…)``).
NOBODY = 65534


def run_traced(line: str, scratch: Path, *, home: Path, timeout: float = 30, shell: str = "bash",
               user: int | None = None, world: dict[str, str] | None = None) -> Trace:
    """Run ``line`` under ``shell`` (bash or dash) in ``scratch`` (emptied first, then given
    ``a.txt`` and ``a.tar``, and ``world``'s files: path in ``scratch`` to text) with ``$HOME`` at
    ``home``, and trace what it executed and wrote (a folder renamed moves ``world``'s files).
    ``user``: the account (and group of the same number) to run it as, when run as root, so a
    line the engine got wrong cannot change the machine's own files (`rm -f /dev/null`, s303);
    ``scratch`` and ``home`` are then that account's."""
    found, strace = shutil.which(shell), shutil.which("strace")
    assert shell in SHELLS and found is not None and strace is not None
    options = ["--noprofile", "--norc"] if shell == "bash" else []
    for child in scratch.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
    (scratch / "a.txt").write_text("a\n")
    subprocess.run(["tar", "-cf", "a.tar", "a.txt"], cwd=scratch, check=True)
    planted = []
    for name, text in (world or {}).items():
        path = scratch / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        planted.append(path)
    as_user = user if user is not None and os.geteuid() == 0 else None
    # The log lies outside the folder above the scratch folder, where a line may write.
    handle, log_name = tempfile.mkstemp(prefix="bash-trace-", suffix=".log")
    os.close(handle)
    log = Path(log_name)
    if as_user is not None:
        for owned in (log, scratch / "a.txt", scratch / "a.tar", *planted):
            for each in (owned, *[p for p in owned.parents if scratch in p.parents]):
                os.chown(each, as_user, as_user)
    # -y names each descriptor's file, the folder of AT_FDCWD included: relative paths resolve;
    # processes made and folders entered are traced for the calls that name no descriptor.
    calls = ",".join(("execve", *WRITE_CALLS, *FOLDER_CALLS))
    try:
        # Its own process group, ended whole on time-out (strace killed leaves what it traced
        # running), and files no bigger than a few megabytes (`tee -a a.txt < a.txt` never ends).
        with subprocess.Popen([strace, "-f", "-qq", "-y", "-e", f"trace={calls}", "-o", str(log), found, *options,
                               "-c", line], cwd=scratch, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=_small_files,
                              user=as_user, group=as_user, extra_groups=[] if as_user is not None else None,
                              env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C"}) as run:
            try:
                run.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(run.pid, signal.SIGKILL)
                run.wait()
        text = log.read_text(errors="replace")
    finally:
        log.unlink()
    executed = executions(text)
    known = [os.path.realpath(path) for path in planted]
    return Trace([os.path.basename(p) for p in executed[1:]], files_written(text, scratch, known),
                 tuple(executed[1:]))


def _small_files() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (_FILE_SIZE_LIMIT, _FILE_SIZE_LIMIT))


#: The largest file a traced line may write, in bytes.
_FILE_SIZE_LIMIT = 4 << 20


def executions(log: str) -> list[str]:
    """The paths a strace log of ``execve`` calls shows executed, in the order they succeeded,
    calls split by another process's output included."""
    executed: list[str] = []
    pending: dict[str, str] = {}
    for line in log.splitlines():
        if m := _EXECVE.match(line):
            executed.append(m.group(2))
        elif m := _UNFINISHED.match(line):
            pending[m.group(1)] = m.group(2)
        elif (m := _RESUMED.match(line)) and m.group(1) in pending:
            executed.append(pending.pop(m.group(1)))
        elif "execve resumed" in line:
            pending.pop(line.split()[0], None)  # the call failed
    return executed


def programs_seen(line: str, where: Where, grammar: Grammar = Grammar.BASH) -> set[str]:
    """Every program the engine sees in ``line`` read with ``grammar``, wrappers unwrapped."""
    analysis = analyse(line, grammar=grammar)
    judge = _Judge(Rules(deny=(), ask=(), allow=(), grants=()), where, analysis)
    found: set[str] = set()
    for command in analysis.commands:
        for argv in judge.forms(command.argv).argvs:
            program = programs.base(argv[0]) if argv else None
            if program:
                found.add(program)
    return found


def unexpected(line: str, ran: list[str], where: Where, grammar: Grammar = Grammar.BASH) -> list[str]:
    """What an allowed ``line`` ran that the engine did not see, or that no rule allows."""
    seen = programs_seen(line, where, grammar)
    return [p for p in ran if p not in seen or p not in MAY_RUN]
