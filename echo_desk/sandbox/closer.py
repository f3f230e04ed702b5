"""Runs INSIDE the sandbox, first (``python -I -S closer.py KEEP -- command...``): closes every
descriptor but the standard streams and those in ``KEEP`` (comma-separated, may be empty), then
becomes the command. Standard library only; it must not import Echo Desk.

bwrap hands its child every descriptor it was given. Echo Desk's spawners close the rest today
(``create_subprocess_exec``, the MCP SDK's spawn); this is the second wall, should a spawner ever
leak one (a log file, the database, a socket of the session).
"""

import os
import sys

STANDARD_STREAMS = (0, 1, 2)


def main() -> int:
    keep = {*STANDARD_STREAMS, *(int(fd) for fd in sys.argv[1].split(",") if fd)}
    command = sys.argv[sys.argv.index("--") + 1:]
    # Listed, not closed by range: the soft limit may have been lowered below an open descriptor.
    # (The listing's own descriptor is among them, closed by then: that close fails, harmlessly.)
    for name in os.listdir("/proc/self/fd"):
        if int(name) not in keep:
            try:
                os.close(int(name))
            except OSError:
                pass
    os.execvp(command[0], command)
    return 127


if __name__ == "__main__":
    sys.exit(main())
