"""The engine against the shell itself: every generated line runs under bash (as run_command
runs it; the random lines under dash too) in a scratch folder, traced with strace; each program
that really ran must be one the engine collected, and each file it wrote must lie where the write
rules allow — or the engine does not allow the line.

The lines are generated from fixed templates and payloads, and by a fixed seed of the random
exploration (``scripts/explore_against_bash.py``), the same in every run. Skipped, with the
reason, only where strace cannot trace here (ptrace not permitted).
"""

from __future__ import annotations

import importlib.util
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.floor import Where

from .bash_trace import NOBODY, RULES, executions, run_traced, strace_problem, unexpected
from .conftest import Setup
from .written_files import files_written, not_allowed

ROOT = Path(__file__).resolve().parents[3]

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
    # bash's time keyword times a cd in the shell itself: the folder changes for the rest (s294).
    "time -p cd ..; {p}", "time cd; {p} > w.txt", "{p} > ../w.txt", "{p} | tee ~/w.txt",
]
LINES = [t.format(p=p) for t, p in itertools.product(TEMPLATES, PAYLOADS)]


def test_what_bash_runs_is_what_the_engine_collected_or_the_line_is_not_allowed(setup: Setup,
                                                                                tmp_path: Path) -> None:
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    setup.write_user_rules(RULES)
    where = Where(cwd=setup.workspace, home=setup.home, workspaces=(setup.workspace,), protected=())
    scratch = setup.workspace
    allowed_lines = 0
    missed: list[tuple[str, list[str], list[str]]] = []
    for line in LINES:
        trace = run_traced(line, scratch, home=setup.home)
        verdict = setup.engine.check_command(line, workspace=setup.workspace).effect
        if verdict is not Effect.ALLOW:
            continue
        allowed_lines += 1
        if unexpected(line, trace.programs, where) or not_allowed(trace.written, setup.workspace):
            missed.append((line, trace.programs, trace.written))
    assert missed == []
    # The check means something only if many lines were allowed and really ran their programs.
    assert allowed_lines >= 40, allowed_lines


@pytest.mark.parametrize(("shell", "mode", "fewest_allowed", "fewest_writing"),
                         [("bash", (), 150, 35), ("dash", (), 100, 20), ("bash", ("--write-heavy",), 210, 50),
                          ("dash", ("--write-heavy",), 165, 44)])
def test_random_nested_lines_run_only_what_the_engine_saw_and_allowed(tmp_path: Path, shell: str, mode: tuple[str, ...],
                                                                      fewest_allowed: int, fewest_writing: int) -> None:
    """A fixed seed of the random exploration (constructs nested up to four deep, programs spelled
    in many ways, files written in and out of the workspace; in the write-heavy mode most of them
    write): every line the engine allows runs under strace and must run nothing else and write
    nowhere else. Under dash the engine judges as run_command does where bash is missing (it then
    runs ``/bin/sh``)."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "explore_against_bash.py"), "--seed", "1",
                           "--count", "1500", "--shell", shell, *mode], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = re.fullmatch(r"(\d+) of 1500 lines allowed and run \((\d+) wrote files\); 0 ran .*",
                           done.stdout.splitlines()[-1])
    assert summary is not None, done.stdout[-3000:]
    # The check means something only if many of the random lines were allowed and really ran,
    # and many of them wrote files. (Since s333 fewer write-heavy lines are allowed: many move
    # folders over a write-denied pattern or change PATH, which the engine asks for.)
    assert int(summary.group(1)) >= fewest_allowed, summary.group(0)
    assert int(summary.group(2)) >= fewest_writing, summary.group(0)


def test_the_trace_sees_a_call_strace_split_in_two() -> None:
    """strace writes a call another process interrupts as two lines; a pipeline's programs are
    often written so, and a trace that missed them would see less than bash ran."""
    log = ('7 execve("/usr/bin/bash", ["bash", "-c", "ls -- | wc a.txt"], 0x7f /* 35 vars */) = 0\n'
           '8 execve("/usr/bin/ls", ["ls", "--"], 0x56 /* 35 vars */ <unfinished ...>\n'
           '9 execve("/usr/bin/wc", ["wc", "a.txt"], 0x56 /* 35 vars */ <unfinished ...>\n'
           '10 execve("/usr/local/bin/id", ["id"], 0x56 /* 35 vars */ <unfinished ...>\n'
           '8 <... execve resumed>)             = 0\n'
           '10 <... execve resumed>)            = -1 ENOENT (No such file or directory)\n'
           '9 <... execve resumed>)             = 0\n')
    assert executions(log) == ["/usr/bin/bash", "/usr/bin/ls", "/usr/bin/wc"]


def test_the_trace_sees_every_kind_of_write_where_it_happened() -> None:
    """Writes as strace shows them with ``-y``: the file an open for writing reached (through a
    link too), both names of a rename, the new name of a link, a folder made or removed, each
    relative path in the folder of the process that wrote it. Reads, failures and the null
    device write nothing."""
    log = ('7 openat(AT_FDCWD</ws>, "a.txt", O_RDONLY) = 3</ws/a.txt>\n'
           '7 openat(AT_FDCWD</ws>, "l", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</top/w.txt>\n'
           '7 openat(AT_FDCWD</ws>, "/dev/null", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</dev/null>\n'
           '7 openat(AT_FDCWD</ws>, "/dev/tty", O_RDWR|O_NONBLOCK) = -1 ENXIO (No such device or address)\n'
           '8 renameat2(AT_FDCWD</ws>, "x", AT_FDCWD</ws>, "../y", RENAME_NOREPLACE) = 0\n'
           '8 symlinkat("../top", AT_FDCWD</ws>, "up") = 0\n'
           '9 openat(AT_FDCWD</top>, "/usr/lib/locale/C.utf8/LC_CTYPE", O_RDONLY|O_CLOEXEC <unfinished ...>\n'
           '10 unlinkat(3</ws/d>, "f", 0 <unfinished ...>\n'
           '9 <... openat resumed>) = 3</usr/lib/locale/C.utf8/LC_CTYPE>\n'
           '10 <... unlinkat resumed>) = 0\n'
           '10 mkdir("p", 0777) = 0\n'
           '9 mkdir("q", 0777) = 0\n'
           '11 mkdir("r", 0777) = 0\n')
    written = files_written(log, Path("/start"))
    assert written == ["/top/w.txt", "/dev/null", "/ws/x", "/y", "/ws/up", "/ws/d/f", "/start/p", "/top/q", "/start/r"]
    assert not_allowed(written, Path("/ws")) == ["/top/w.txt", "/y", "/start/p", "/top/q", "/start/r"]


def test_the_write_check_sees_a_line_write_outside_the_workspace(tmp_path: Path) -> None:
    """The check has teeth: a line the rules would allow if the engine lost track of the folder
    (``cd ..`` timed by bash's ``time`` keyword, s294) really writes above the workspace."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    trace = run_traced("echo x > in.txt; time -p cd ..; touch w.txt; echo x > ~/h.txt", workspace, home=home)
    assert trace.programs == ["touch"]
    assert not_allowed(trace.written, workspace) == [str(tmp_path / "w.txt"), str(home / "h.txt")]


def test_the_write_check_follows_each_process_into_the_folder_it_entered() -> None:
    """A call that names no descriptor (``mkdir("p")``) resolves in the folder its process is in:
    the one its ``chdir``/``fchdir`` entered, or, for a process that shows none, the folder its
    parent was in when it made it (``clone``, ``vfork``), even when the child writes before
    strace prints the parent's clone returning."""
    log = ('7 openat(AT_FDCWD</top/ws>, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3</etc/ld.so.cache>\n'
           '7 chdir("..") = 0\n'
           '7 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>\n'
           '8 mkdir("p", 0777) = 0\n'
           '7 <... clone resumed>, child_tidptr=0x7f) = 8\n'
           '8 vfork() = 9\n'
           '9 mkdir("q", 0777) = 0\n'
           '8 fchdir(3</top/ws/d>) = 0\n'
           '8 mkdir("r", 0777) = 0\n'
           '9 chdir("nowhere") = -1 ENOENT (No such file or directory)\n'
           '9 unlink("s") = 0\n'
           '7 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD, stack=0x7f, stack_size=0x9000}, 88) = 10\n'
           '10 mkdir("t", 0777) = 0\n')
    assert files_written(log, Path("/start")) == ["/top/p", "/top/q", "/top/ws/d/r", "/top/s", "/top/t"]


def test_the_write_check_sees_mkdir_make_folders_above_from_where_it_went(tmp_path: Path) -> None:
    """``mkdir -p ../n/x`` enters the folder above and makes each folder there with a bare
    ``mkdir("n")`` after a ``chdir``/``fchdir``: no descriptor in the call says where it is."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    trace = run_traced("mkdir -p ../n/x", workspace, home=home)
    assert (tmp_path / "n" / "x").is_dir()
    assert not_allowed(trace.written, workspace) == [str(tmp_path / "n"), str(tmp_path / "n" / "x")]


def test_random_lines_run_as_nobody_when_the_tests_run_as_root(tmp_path: Path) -> None:
    """Run as root, a random line the engine got wrong could change the machine's own files
    (`rm -f /dev/null` did, s303): the exploration runs its lines as nobody."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    if os.geteuid() != 0:
        pytest.skip("only root can run a line as another account")
    box = Path(tempfile.mkdtemp(prefix="s303-nobody-"))
    try:
        box.chmod(0o711)
        workspace, home = box / "ws", box / "home"
        for folder in (workspace, home):
            folder.mkdir()
            os.chown(folder, NOBODY, NOBODY)
        trace = run_traced("id -u > uid.txt; echo x > a.txt; touch /w.txt", workspace, home=home, user=NOBODY)
        assert (workspace / "uid.txt").read_text() == f"{NOBODY}\n"
        assert (workspace / "a.txt").read_text() == "x\n"  # the line's own files are its account's
        assert not Path("/w.txt").exists()
        assert trace.written == [str(workspace / "uid.txt"), str(workspace / "a.txt")]
    finally:
        shutil.rmtree(box)


def test_each_random_line_starts_in_a_fresh_box(tmp_path: Path) -> None:
    """What a line left in the workspace, the home or the folder above is gone before the next
    line runs (`touch ~/w.txt` then `cat ~/w.txt` would see it), and the files a line may change
    outside are there again."""
    explore: Any = _explorer()
    box = tmp_path / "box"
    workspace, home = explore._fresh_box(box)
    for left in (workspace / "w.txt", home / "w.txt", box / "w.txt", home / ".ssh" / "w"):
        left.write_text("left\n")
    (box / "keep.txt").unlink()
    workspace, home = explore._fresh_box(box)
    assert sorted(str(p.relative_to(box)) for p in box.rglob("*")) == [
        "home", "home/.bashrc", "home/.ssh", "keep.txt", "ws"]


def test_the_write_check_sees_the_files_a_folder_renamed_took_with_it() -> None:
    """strace shows a folder's rename as its two names only; the files known to be below it (there
    before the line, or made by it first) are written at their old and their new place: ``mv src
    prod`` put src/s.env at prod/s.env. A link renamed moves nothing."""
    log = ('7 openat(AT_FDCWD</ws>, "src/n.env", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</ws/src/n.env>\n'
           '7 rename("src", "prod") = 0\n'
           '7 renameat2(AT_FDCWD</ws>, "prod", AT_FDCWD</ws>, "out/p", RENAME_NOREPLACE) = 0\n'
           '7 unlink("out/p/s.env") = 0\n'
           '7 rename("link", "l2") = 0\n')
    written = files_written(log, Path("/ws"), known=["/ws/src/s.env", "/ws/cfg/x.env", "/ws/link"])
    assert written == ["/ws/src/n.env", "/ws/src", "/ws/prod", "/ws/src/n.env", "/ws/prod/n.env", "/ws/src/s.env",
                       "/ws/prod/s.env", "/ws/prod", "/ws/out/p", "/ws/prod/n.env", "/ws/out/p/n.env", "/ws/prod/s.env",
                       "/ws/out/p/s.env", "/ws/out/p/s.env", "/ws/link", "/ws/l2"]


def _explorer() -> object:
    spec = importlib.util.spec_from_file_location("explore_under_test", ROOT / "scripts" / "explore_against_bash.py")
    assert spec is not None and spec.loader is not None
    explore = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(explore)
    return explore


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_the_exploration_sees_writes_below_denied_patterns_and_programs_planted(tmp_path: Path, shell: str) -> None:
    """The exploration's checks have teeth for the newer classes: a folder moved or copied whole
    over a write-denied pattern (``mv src prod``, ``cp -r src new``, ``cmake -E rename``, ``rm -r``),
    a file written through a folder link made on the line, and a program copied into a folder put
    on PATH, which runs under an allowed program's name."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    explore: Any = _explorer()
    # Every folder above the box passable by nobody (dash's cd enters the whole path).
    top = Path(tempfile.mkdtemp(prefix="s333-explore-"))
    try:
        _see_moves_and_plants(explore, top / "box", shell)
    finally:
        shutil.rmtree(top)


def _see_moves_and_plants(explore: Any, box: Path, shell: str) -> None:
    cases = {"mv src prod": ["ws/src/s.env", "ws/prod/src/s.env"], "cp -r src new": ["ws/new/s.env"],
             "cmake -E rename cfg out": ["ws/cfg/x.env", "ws/out/x.env"], "rm -r prod": ["ws/prod/app.py"],
             "ln -s prod p; cd p; touch n.py": ["ws/prod/n.py"], "mv src n; mv n src": ["ws/src/s.env", "ws/n/s.env", "ws/n/s.env", "ws/src/s.env"],
             "ln -s ../w.txt null; cp a.txt null": []}
    for line, expected in cases.items():
        workspace, home = explore._fresh_box(box)
        trace = run_traced(line, workspace, home=home, shell=shell, user=NOBODY, world=explore.WORLD)
        assert [os.path.relpath(p, box) for p in explore.denied(trace.written, workspace)] == expected, line
    workspace, home = explore._fresh_box(box)
    trace = run_traced("cp /usr/bin/id ls; PATH=.:$PATH ls", workspace, home=home, shell=shell, user=NOBODY)
    assert trace.programs == ["cp", "ls"]
    assert explore.planted(trace.executed, box) == ["./ls"]
    assert explore.planted(run_traced("ls", workspace, home=home, shell=shell, user=NOBODY).executed, box) == []


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_the_write_check_sees_a_descriptor_name_open_a_file_read_onto_it_again(setup: Setup, tmp_path: Path,
                                                                                shell: str) -> None:
    """``tee /dev/stdout 1< ../keep.txt`` opens keep.txt again, for writing, through the name of
    descriptor 1 (found by the exploration, s333): the trace shows the file the open reached, and
    the engine does not allow the line."""
    why = strace_problem(tmp_path)
    if why is not None:
        pytest.skip(why)
    box = tmp_path / "box"
    workspace, home = box / "ws", box / "home"
    workspace.mkdir(parents=True)
    home.mkdir()
    (box / "keep.txt").write_text("keep\n")
    line = "echo x | tee /dev/stdout 1< ../keep.txt"
    trace = run_traced(line, workspace, home=home, shell=shell)
    assert (box / "keep.txt").read_text() == "x\n"
    assert not_allowed(trace.written, workspace) == [str(box / "keep.txt")]
    setup.write_user_rules(RULES)
    assert setup.engine.check_command(line, workspace=setup.workspace).effect is not Effect.ALLOW
