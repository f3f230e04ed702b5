"""A small classic-BPF seccomp program for ``bwrap --seccomp FD``.

It allows new sockets of three families only, internet (IPv4, IPv6) and netlink (which sees the
sandbox's own network namespace), and refuses every other ``socket(...)``: ``AF_UNIX`` (so a
command cannot reach D-Bus, ``docker.sock`` or an ssh-agent through the read-only root),
``AF_VSOCK`` (the host's virtual-machine sockets, which no network namespace separates) and
whatever family a kernel adds later (an allow-list fails closed); ``io_uring_setup`` (io_uring can open sockets without the
``socket`` system call), the kernel's key system calls (``add_key``, ``request_key``,
``keyctl``: the session keyring is inherited, not namespaced — a command would read the secrets
the login session keeps there, Kerberos tickets or network passwords, and add keys Echo Desk's
later commands inherit), a set-user-ID or set-group-ID bit on a file (``chmod``, or creating
it with that mode: outside the sandbox it runs as its owner for whoever starts it — the
person's account for another local user, root for everyone when Echo Desk runs as root;
``openat2``, whose mode the filter cannot read, is refused as unknown), and, on x86-64, the x32
system-call numbers (another way to reach
``socket``). A process of another architecture (a 32-bit binary) is killed: its system-call
numbers mean other things. ``socketpair`` stays allowed for streams and sequenced packets
(asyncio and multiprocessing need it; a connected pair cannot be connected elsewhere), not for
datagrams: a datagram Unix socket can ``sendto`` or be ``connect``-ed to any datagram socket the
read-only root shows (the journal, syslog, systemd's notify socket, an application's own).
The terminal ioctls ``TIOCSTI`` (push characters into a terminal's input, which its shell then
runs) and ``TIOCLINUX`` (a console's selection: copy and paste) are refused too. ``--new-session``
already leaves a command no controlling terminal, and no spawner hands it one; this holds should
either change (tested: without ``--new-session``, ``/dev/tty`` reached the terminal Echo Desk was
started from, and a ``TIOCSTI`` there typed into it).
"""

from __future__ import annotations

import errno
import os
import platform
import struct
import sys
from dataclasses import dataclass

# linux/filter.h and linux/seccomp.h
BPF_LD_W_ABS = 0x20
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45
BPF_RET_K = 0x06
BPF_ALU_AND_K = 0x54
#: The socket type's own bits (the rest are SOCK_NONBLOCK, SOCK_CLOEXEC), and SOCK_DGRAM.
SOCK_TYPE_MASK = 0xF
SOCK_DGRAM = 2
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
#: The socket families a command may open (linux/socket.h): AF_INET, AF_INET6, AF_NETLINK.
ALLOWED_FAMILIES = (2, 10, 16)
X32_SYSCALL_BIT = 0x40000000
#: The terminal ioctls refused (asm-generic/ioctls.h, the same on x86-64 and arm64): TIOCSTI,
#: TIOCLINUX. The kernel reads the request as a 32-bit number, so only the low word is compared.
TERMINAL_IOCTLS = (0x5412, 0x541C)
#: S_ISUID | S_ISGID.
SET_ID_BITS = 0o6000
#: O_CREAT | __O_TMPFILE (the same on x86-64 and arm64): only then does open read its mode.
CREATES = 0o100 | 0o20000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0_LOW = 16 if sys.byteorder == "little" else 20


@dataclass(frozen=True)
class Arch:
    audit: int
    socket: int
    socketpair: int
    io_uring_setup: int
    ioctl: int
    x32: bool
    #: add_key, request_key, keyctl.
    keys: tuple[int, ...] = ()
    #: Calls that give a file its mode: (number, index of the mode argument, index of the open
    #: flags argument or -1 when the mode always applies).
    modes: tuple[tuple[int, int, int], ...] = ()
    openat2: int = 437


#: AUDIT_ARCH_* values and system-call numbers (asm/unistd_64.h, asm-generic/unistd.h).
ARCHES = {
    # open, creat, chmod, fchmod, mknod, openat, mknodat, fchmodat, fchmodat2.
    "x86_64": Arch(audit=0xC000003E, socket=41, socketpair=53, io_uring_setup=425, ioctl=16, x32=True, keys=(248, 249, 250),
                   modes=((2, 2, 1), (85, 1, -1), (90, 1, -1), (91, 1, -1), (133, 1, -1), (257, 3, 2),
                          (259, 2, -1), (268, 2, -1), (452, 2, -1))),
    # openat, mknodat, fchmod, fchmodat, fchmodat2 (no open, creat, chmod or mknod there).
    "aarch64": Arch(audit=0xC00000B7, socket=198, socketpair=199, io_uring_setup=425, ioctl=29, x32=False, keys=(217, 218, 219),
                    modes=((56, 3, 2), (33, 2, -1), (52, 1, -1), (53, 2, -1), (452, 2, -1))),
}


class UnsupportedArchitecture(RuntimeError):
    pass


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes:
    """The filter for ``machine`` (default: this one), as bytes of ``struct sock_filter``."""
    arch = ARCHES.get(machine or platform.machine())
    if arch is None:
        raise UnsupportedArchitecture(f"no seccomp filter for {machine or platform.machine()}")
    deny_socket = RET_ERRNO | errno.EACCES
    deny_uring = RET_ERRNO | errno.ENOSYS
    # Labels are resolved by hand: jt/jf count instructions after the jump.
    code = [
        _insn(BPF_LD_W_ABS, OFFSET_ARCH),
        _insn(BPF_JEQ_K, arch.audit, jt=1, jf=0),
        _insn(BPF_RET_K, RET_KILL_PROCESS),
        _insn(BPF_LD_W_ABS, OFFSET_NR),
    ]
    if arch.x32:
        code += [_insn(BPF_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1), _insn(BPF_RET_K, RET_ERRNO | errno.ENOSYS)]
    for number in arch.keys:
        code += [_insn(BPF_JEQ_K, number, jt=0, jf=1), _insn(BPF_RET_K, RET_ERRNO | errno.EPERM)]
    code += [_insn(BPF_JEQ_K, arch.openat2, jt=0, jf=1), _insn(BPF_RET_K, RET_ERRNO | errno.ENOSYS)]
    for number, mode_arg, flags_arg in arch.modes:
        code += _refuse_set_id(number, mode_arg, flags_arg)
    code += _refuse_terminal_ioctls(arch.ioctl)
    code += [
        # socketpair(): its type (the low word of the second argument, less its flags) must not be
        # SOCK_DGRAM, else EACCES.
        _insn(BPF_JEQ_K, arch.socketpair, jt=0, jf=5),
        _insn(BPF_LD_W_ABS, OFFSET_ARG0_LOW + 8),
        _insn(BPF_ALU_AND_K, SOCK_TYPE_MASK),
        _insn(BPF_JEQ_K, SOCK_DGRAM, jt=0, jf=1),
        _insn(BPF_RET_K, deny_socket),
        _insn(BPF_RET_K, RET_ALLOW),
        _insn(BPF_JEQ_K, arch.io_uring_setup, jt=0, jf=1),
        _insn(BPF_RET_K, deny_uring),
        # socket(): its family (the low word of the first argument) must be one allowed, else EACCES.
        _insn(BPF_JEQ_K, arch.socket, jt=0, jf=len(ALLOWED_FAMILIES) + 2),
        _insn(BPF_LD_W_ABS, OFFSET_ARG0_LOW),
    ]
    for index, family in enumerate(ALLOWED_FAMILIES):
        code.append(_insn(BPF_JEQ_K, family, jt=len(ALLOWED_FAMILIES) - index, jf=0))
    code += [
        _insn(BPF_RET_K, deny_socket),
        _insn(BPF_RET_K, RET_ALLOW),
    ]
    return b"".join(code)


def _refuse_set_id(number: int, mode_arg: int, flags_arg: int) -> list[bytes]:
    """For system call ``number``: EPERM when its mode argument has a set-ID bit (and, for an open,
    only when it creates: otherwise its mode argument is whatever was in the register), else
    allowed (no later rule is about it)."""
    check_mode = [
        _insn(BPF_LD_W_ABS, OFFSET_ARG0_LOW + 8 * mode_arg),
        _insn(BPF_JSET_K, SET_ID_BITS, jt=0, jf=1),
        _insn(BPF_RET_K, RET_ERRNO | errno.EPERM),
        _insn(BPF_RET_K, RET_ALLOW),
    ]
    if flags_arg >= 0:
        check_mode = [_insn(BPF_LD_W_ABS, OFFSET_ARG0_LOW + 8 * flags_arg),
                      _insn(BPF_JSET_K, CREATES, jt=0, jf=len(check_mode) - 1), *check_mode]
    return [_insn(BPF_JEQ_K, number, jt=0, jf=len(check_mode)), *check_mode]


def _refuse_terminal_ioctls(number: int) -> list[bytes]:
    """For ``ioctl``: EPERM when its request (the second argument's low word) is one of
    ``TERMINAL_IOCTLS``, else allowed (no later rule is about it)."""
    checks = [_insn(BPF_LD_W_ABS, OFFSET_ARG0_LOW + 8)]
    for index, request in enumerate(TERMINAL_IOCTLS):
        checks.append(_insn(BPF_JEQ_K, request, jt=len(TERMINAL_IOCTLS) - index, jf=0))
    checks += [_insn(BPF_RET_K, RET_ALLOW), _insn(BPF_RET_K, RET_ERRNO | errno.EPERM)]
    return [_insn(BPF_JEQ_K, number, jt=0, jf=len(checks)), *checks]


def program_fd(machine: str | None = None) -> int:
    """A file descriptor holding the program, positioned at its start (the caller closes it)."""
    data = program(machine)
    fd = os.memfd_create("echo-desk-seccomp", os.MFD_CLOEXEC) if hasattr(os, "memfd_create") else _tmp_fd()
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _tmp_fd() -> int:
    import tempfile

    fd, name = tempfile.mkstemp(prefix="echo-desk-seccomp-")
    os.unlink(name)
    return fd
