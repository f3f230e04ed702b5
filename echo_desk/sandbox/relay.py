"""Runs OUTSIDE the sandbox, just before it (``python -I -S relay.py SOCKET SECCOMP -- bwrap ...``),
for a spawner that cannot hand descriptors to its child (the MCP SDK's stdio client): connects to
the Unix socket Echo Desk's proxy listens on, opens the seccomp program, puts them on descriptors
4 and 3, and becomes bwrap. Inside, the forwarder hands connections through descriptor 4 exactly
as for ``run_command``. Standard library only; it must not import Echo Desk.
"""

import os
import socket
import sys

SECCOMP_FD, RELAY_FD = 3, 4


def main() -> int:
    path, seccomp_file = sys.argv[1], sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    relay = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    relay.connect(path)
    program = os.open(seccomp_file, os.O_RDONLY | os.O_NOFOLLOW)
    # Out of the way first: either may already sit on 3 or 4 and be overwritten by the other.
    originals = (program, relay.detach())
    sources = [os.dup(fd) for fd in originals]
    for fd in originals:
        os.close(fd)
    for source, target in zip(sources, (SECCOMP_FD, RELAY_FD), strict=True):
        if source != target:
            os.dup2(source, target, inheritable=True)
            os.close(source)
        else:
            os.set_inheritable(target, True)
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main())
