"""What a sandboxed command or server shares with the world outside, tried for real: Echo Desk's
open descriptors, the Unix sockets of the session (its gateway, an agent's, an abstract X11-style
one), the terminal Echo Desk was started from, and the environment. Both ways the app starts a
sandbox are tried: ``run_command`` (an inherited seccomp descriptor) and a stdio MCP server (the
seccomp program read from a file by a shell, descriptors kept by the MCP SDK's spawn).
"""

from __future__ import annotations

import json
import os
import pty
import re
import secrets
import select
import socket
import sqlite3
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sandbox_helpers import Jail, Listener, context, requires_bwrap, run, tool_with

from echo_desk.gateway.local_socket import listening_socket, socket_path
from echo_desk.mcp.config import ServerConfig
from echo_desk.mcp.connection import ServerConnection
from echo_desk.store.settings import WorkspaceSandbox

pytestmark = requires_bwrap

PROBE = Path(__file__).with_name("probe_server.py")
REAL_PYTHON = os.path.realpath(sys.executable)
#: What a descriptor of a process in the sandbox may be: its standard streams (``/dev/null``, the
#: pipe Echo Desk reads), bwrap's init's own eventfd, a listing's own ``/proc/N/fd``.
EXPECTED_TARGET = re.compile(r"^(/dev/null|pipe:\[\d+\]|anon_inode:\[eventfd\]|/proc/\d+/fd)$")

#: Run inside the sandbox: the descriptors of every process it sees, a connection to each address
#: given (``@name``: abstract) and, for ``pid:N``, a signal to and a trace of process N, as JSON.
_LOOK = """
import json, os, socket, sys
fds = {}
def target(path):
    try:
        return os.readlink(path)
    except OSError:  # the listing's own descriptor, closed by now
        return None
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        held = {fd: target(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
    except OSError:
        continue
    fds[pid] = {fd: t for fd, t in held.items() if t is not None}
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            fds[pid]["cmdline"] = fh.read().replace(b"\\0", b" ").decode(errors="replace")
    except OSError:
        pass
said = {}
for address in sys.argv[1:]:
    if address.startswith("pid:"):  # a process outside, by its id there: signalled, then traced
        import ctypes
        pid = int(address[4:])
        try:
            os.kill(pid, 0)
            said[address] = "signalled"
        except OSError as exc:
            said[address] = "signal:" + exc.strerror
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.ptrace(0x4206, pid, 0, 0) == 0:  # PTRACE_SEIZE: traced, not stopped
            said[address] += " traced"
        else:
            said[address] += " trace:" + os.strerror(ctypes.get_errno())
        continue
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as exc:
        said[address] = "refused:" + exc.strerror
        continue
    try:
        sock.connect("\\0" + address[1:] if address.startswith("@") else address)
        said[address] = "connected"
    except OSError as exc:
        said[address] = "failed:" + exc.strerror
print("REPORT " + json.dumps({"fds": fds, "connect": said, "env": dict(os.environ)}))
"""


@dataclass
class Session:
    """What Echo Desk holds open and what the person's session offers, while a sandbox runs."""

    listeners: dict[str, Listener]
    pipe_inode: int

    @property
    def addresses(self) -> list[str]:
        return list(self.listeners)

    def accepted(self) -> dict[str, int]:
        return {address: listener.accepted for address, listener in self.listeners.items() if listener.accepted}


@pytest.fixture
def session(jail: Jail) -> Iterator[Session]:
    """Echo Desk's gateway socket in the runtime folder, an agent's socket in a folder the sandbox
    shows (as ``ssh-agent -a`` makes one), an abstract socket (as X11's ``@/tmp/.X11-unix/X0``);
    and, open in this process and inheritable, a log file, the SQLite database and a pipe."""
    token = secrets.token_hex(6)
    gateway = listening_socket(socket_path())
    listeners = {str(socket_path()): Listener(gateway),
                 str(jail.outside / "agent.sock"): Listener.bound(socket.AF_UNIX, str(jail.outside / "agent.sock")),
                 f"@/tmp/.X11-unix/X-echo-desk-{token}": Listener.bound(socket.AF_UNIX, f"\0/tmp/.X11-unix/X-echo-desk-{token}")}
    log = open(jail.base / "echo-desk.log", "w")  # held open for the whole test
    database = sqlite3.connect(jail.base / "conversations.sqlite3")
    database.execute("create table t (x)")
    read_end, write_end = os.pipe()
    held = [int(fd) for fd in os.listdir("/proc/self/fd")
            if os.path.realpath(f"/proc/self/fd/{fd}") == str(jail.base / "conversations.sqlite3")]
    assert held, "the database's descriptor was not found"
    for fd in (log.fileno(), read_end, write_end, gateway.fileno(), *held):
        os.set_inheritable(fd, True)
    try:
        yield Session(listeners, os.fstat(read_end).st_ino)
    finally:
        for listener in listeners.values():
            listener.close()
        log.close()
        database.close()
        os.close(read_end)
        os.close(write_end)


def _unexpected(fds: dict[str, dict[str, str]], session: Session) -> dict[str, dict[str, str]]:
    """Every descriptor, of any process the sandbox shows, that is not one of its own. The proxy's
    forwarder (with allowed domains) holds sockets on purpose: its listener on the sandbox's own
    loopback and its end of the pair to Echo Desk's proxy."""
    odd = {}
    for pid, held in fds.items():
        cmdline = held.pop("cmdline", "")
        expected = (EXPECTED_TARGET if "forwarder" not in cmdline else
                    re.compile(f"{EXPECTED_TARGET.pattern}|^socket:\\[\\d+\\]$"))
        odd[pid] = {fd: target for fd, target in held.items()
                    if not expected.match(target) or target == f"pipe:[{session.pipe_inode}]"}
    return {pid: held for pid, held in odd.items() if held}


def _report(output: str) -> dict:
    line = next(line for line in output.splitlines() if line.startswith("REPORT "))
    return json.loads(line[len("REPORT "):])


@pytest.mark.parametrize(("shell", "domains"), [("bash", ()), ("dash", ()), ("bash", ("*.example.test",))],
                         ids=["bash", "dash", "bash-with-allowed-domains"])
async def test_a_command_gets_no_descriptor_and_no_socket_of_echo_desk_or_the_session(
        jail: Jail, session: Session, shell: str, domains: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "canary-env-key")
    monkeypatch.setenv("SSH_AUTH_SOCK", str(jail.outside / "agent.sock"))
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={jail.base / 'run' / 'bus'}")
    (jail.workspace / "look.py").write_text(_LOOK)
    addresses = " ".join(f"'{a}'" for a in [*session.addresses, f"pid:{os.getpid()}"])
    command = f"python3 look.py {addresses}" if shell == "bash" else f"dash -c \"python3 look.py {addresses}\""
    tool = tool_with(default=WorkspaceSandbox(allowed_domains=list(domains)))
    result = await run(tool, {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    report = _report(result.output)
    assert any("forwarder" in held.get("cmdline", "") for held in report["fds"].values()) == bool(domains)
    assert _unexpected(report["fds"], session) == {}, report["fds"]
    # Echo Desk's own process, by its id: another PID namespace, so there is no such process.
    assert report["connect"].pop(f"pid:{os.getpid()}") == "signal:No such process trace:No such process"
    assert set(report["connect"].values()) == {"refused:Permission denied"}, report["connect"]
    assert session.accepted() == {}
    assert not {"ANTHROPIC_API_KEY", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"} & set(report["env"])


async def test_a_server_gets_no_descriptor_and_no_socket_of_echo_desk_or_the_session(
        jail: Jail, session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "canary-env-key")
    monkeypatch.setenv("SSH_AUTH_SOCK", str(jail.outside / "agent.sock"))
    own = jail.base / "server-folder"
    own.mkdir()
    cfg = ServerConfig(name="probe", command=REAL_PYTHON, args=("-I", str(PROBE)), cwd=str(own), sandbox=True)

    async def nothing(*_args: object) -> None:
        return None

    conn = ServerConnection(cfg, elicitation=nothing, on_tools_changed=nothing,  # type: ignore[arg-type]
                            on_lost=lambda _reason: None)
    await conn.start()
    try:
        result = await conn.call_tool("probe", {"connect": session.addresses})
    finally:
        await conn.close()
    report = json.loads(result.content[0].text)  # type: ignore[union-attr]
    assert _unexpected(report["fds"], session) == {}, report["fds"]
    assert set(report["connect"].values()) == {"refused:Permission denied"}, report["connect"]
    assert session.accepted() == {}
    assert not {"ANTHROPIC_API_KEY", "SSH_AUTH_SOCK"} & set(report["env"])


#: Run with a controlling terminal (``pty.fork``), as Echo Desk started from a terminal: starts a
#: sandboxed command that pushes characters into its terminal (``/dev/tty``), then says what the
#: command said and how many characters wait in the terminal's input.
_ON_A_TERMINAL = """
import fcntl, struct, subprocess, sys, termios
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from echo_desk import sandbox
ws = Path(sys.argv[2])
push = ("import fcntl, os, termios\\n"
        "try:\\n"
        "    tty = os.open('/dev/tty', os.O_RDWR)\\n"
        "except OSError as exc:\\n"
        "    print('no terminal', exc.errno); raise SystemExit\\n"
        "try:\\n"
        "    [fcntl.ioctl(tty, termios.TIOCSTI, bytes([c])) for c in b'pwned\\\\n']; print('pushed')\\n"
        "except OSError as exc:\\n"
        "    print('refused', exc.errno)\\n")
launch = sandbox.prepare(sandbox.SandboxSpec(writable=(ws,), cwd=ws), ["python3", "-c", push],
                         sandbox.availability().bwrap)
argv = launch.argv if sys.argv[3] == "as-started" else [a for a in launch.argv if a != "--new-session"]
done = subprocess.run(argv, pass_fds=launch.pass_fds, env=launch.env, stdin=subprocess.DEVNULL,
                      capture_output=True, text=True, timeout=60)
launch.close()
launch.release()
waiting = struct.unpack("i", fcntl.ioctl(0, termios.FIONREAD, b"\\0" * 4))[0]
print("SAID", done.stdout.strip() or done.stderr.strip()[-300:], "| WAITING", waiting, flush=True)
"""


def _on_a_terminal(workspace: Path, how: str) -> str:
    pid, master = pty.fork()
    if pid == 0:
        root = str(Path(__file__).resolve().parents[2])
        os.execv(REAL_PYTHON, [REAL_PYTHON, "-I", "-c", _ON_A_TERMINAL, root, str(workspace), how])
    output = b""
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
            try:
                chunk = os.read(master, 4096) if ready else b""
            except OSError:  # the terminal closed: the runner ended
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(master)
        os.waitpid(pid, 0)
    return output.decode(errors="replace")


def test_a_command_cannot_type_into_the_terminal_echo_desk_was_started_from(jail: Jail) -> None:
    """bwrap's ``--new-session`` leaves the command no controlling terminal: ``/dev/tty`` is no
    device (ENXIO)."""
    said = _on_a_terminal(jail.workspace, "as-started")
    assert "SAID no terminal 6 | WAITING 0" in said, said


def test_without_a_new_session_the_terminal_is_reached_but_typing_into_it_is_refused(jail: Jail) -> None:
    """Should the command ever keep the terminal (``--new-session`` lost), ``/dev/tty`` is Echo
    Desk's terminal; the seccomp filter still refuses ``TIOCSTI`` there (before it, ``pwned``
    and a newline were typed into that terminal, for its shell to run once Echo Desk exits)."""
    said = _on_a_terminal(jail.workspace, "without-new-session")
    assert "SAID refused 1 | WAITING 0" in said, said
