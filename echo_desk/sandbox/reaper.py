"""A tiny supervisor that outlives nothing it started (run as a script: no Echo Desk imports).

``python reaper.py [--control-fd N] -- PROGRAM ARGS...`` becomes a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``, Linux): every process PROGRAM starts, even one that calls
``setsid`` or daemonizes, is re-parented to this supervisor instead of to init when its parent
exits, so it can always be found (a walk of ``/proc``) and ended.

With ``--control-fd`` (``run_command``): when PROGRAM itself exits, ``exit CODE`` is written to
the control socket at once (the command is done, whatever its background children do); the
descendants are ended when Echo Desk writes ``end`` or closes the socket (it died), and
``ended COUNT`` is written back.
Without it (an MCP stdio server): PROGRAM keeps this process's stdin and stdout; when it exits,
or this process gets SIGTERM/SIGINT/SIGHUP (a disconnect), or Echo Desk dies (parent-death
signal), every descendant is ended and the supervisor exits with PROGRAM's status.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_GRACE_SECONDS = 1.0


def _prctl(option: int, value: int) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def descendants(root: int) -> set[int]:
    """Every process below ``root``, from the parent links in ``/proc/*/stat``."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _reap() -> dict[int, int]:
    """Collect every exited child; ``{pid: wait status}``."""
    done: dict[int, int] = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done[pid] = status


def end_all(me: int) -> int:
    """SIGKILL everything below ``me`` until nothing is left; how many were ended."""
    ended: set[int] = set()
    while True:
        _reap()
        alive = descendants(me)
        if not alive:
            return len(ended)
        for pid in alive:
            try:
                os.kill(pid, signal.SIGKILL)
                ended.add(pid)
            except ProcessLookupError:
                pass
        try:  # wait for one to go, so the loop does not spin
            os.waitpid(-1, 0)
        except ChildProcessError:
            pass


def _wait_for(pid: int) -> int:
    """Wait until ``pid`` exits (reaping any orphan meanwhile); its wait status."""
    while True:
        try:
            got, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 0
        except InterruptedError:
            continue
        if got == pid:
            return status


def _let_go_of_stdio() -> None:
    """The supervisor's copies of stdin/stdout/stderr would keep the program's pipes open after
    it exits (no end of output seen): only the program keeps them."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)


def _exit_code(status: int) -> int:
    return os.waitstatus_to_exitcode(status)


def _send(control: int, line: str) -> None:
    try:
        os.write(control, line.encode())
    except OSError:
        pass


def run_controlled(control: int, argv: list[str]) -> int:
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda s, f: None)  # wakes the select below
    child = os.fork()
    if child == 0:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in (control, wake_r, wake_w):
            os.close(fd)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    _let_go_of_stdio()
    code: int | None = None
    while True:  # report the command's own exit at once; reap orphans; wait to be told to end
        reaped = _reap()
        if code is None and child in reaped:
            code = _exit_code(reaped[child])
            _send(control, f"exit {code}\n")
        ready, _, _ = select.select([control, wake_r], [], [], 1.0)
        if wake_r in ready:
            os.read(wake_r, 512)
        if control in ready:
            try:
                data = os.read(control, 64)
            except OSError:
                data = b""
            if not data or b"end" in data:
                break
    count = end_all(os.getpid())
    _send(control, f"ended {count}\n")
    return code if code is not None else 128 + signal.SIGKILL


class _Stop(Exception):
    """A stop signal arrived (raised from the handler, so a blocking wait is interrupted)."""


def _raise_stop(signum: int, frame: object) -> None:
    raise _Stop(signum)


def run_server(argv: list[str]) -> int:
    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    child = os.fork()
    if child == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    _let_go_of_stdio()
    for signum in stops:
        signal.signal(signum, _raise_stop)
    code = 0
    try:
        code = _exit_code(_wait_for(child))
    except _Stop as stop:
        for signum in stops:
            signal.signal(signum, signal.SIG_IGN)
        code = 128 + int(stop.args[0])
        # The server gets the same signal and a moment to finish; then nothing is spared.
        try:
            os.kill(child, int(stop.args[0]))
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + _GRACE_SECONDS
        while time.monotonic() < deadline:
            if child in _reap():
                break
            time.sleep(0.02)
    end_all(os.getpid())
    return code


def main(args: list[str]) -> int:
    control = None
    if args[:1] == ["--control-fd"]:
        control, args = int(args[1]), args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        os.write(2, b"usage: reaper.py [--control-fd N] -- PROGRAM ARGS...\n")
        return 2
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    if control is None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)  # Echo Desk gone: clean up like a disconnect
        return run_server(args)
    return run_controlled(control, args)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except OSError as exc:
        if exc.errno != errno.EINTR:
            raise
