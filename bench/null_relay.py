"""A relay that does nothing: starts the command it is given and copies bytes both ways between
its own stdin/stdout and the command's, unread. bench/gateway.py puts two of them between a client
and a server to show what the two extra process hops of the gateway cost by themselves.

Run: python bench/null_relay.py COMMAND [ARGS...]
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys


def main(command: list[str]) -> int:
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert child.stdin is not None and child.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, child.stdin.fileno())
    selector.register(child.stdout.fileno(), selectors.EVENT_READ, sys.stdout.fileno())
    while True:
        for key, _ in selector.select():
            data = os.read(key.fd, 1 << 16)
            if not data:  # either side closed: so does the relay (and the command with its stdin)
                child.stdin.close()
                return child.wait()
            view = memoryview(data)
            while view:
                view = view[os.write(key.data, view):]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
