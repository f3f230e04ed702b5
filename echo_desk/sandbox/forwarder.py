"""Runs INSIDE the sandbox (``python -I -S forwarder.py FD -- command...``), started by Echo Desk's
own interpreter: listens on the sandbox's own loopback, hands every accepted connection to Echo
Desk through the inherited socket FD (``SCM_RIGHTS``), and runs the command with the proxy
variables set. Standard library only; it must not import Echo Desk.

Passing the accepted socket out, rather than opening a Unix socket per connection, keeps the
seccomp rule simple: nothing inside may create an ``AF_UNIX`` socket, this included.
"""

import os
import socket
import sys
import threading


def main() -> int:
    relay = socket.socket(fileno=int(sys.argv[1]))
    command = sys.argv[sys.argv.index("--") + 1:]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"
    env = dict(os.environ)
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[name] = proxy
    env["NO_PROXY"] = env["no_proxy"] = "localhost,127.0.0.1,::1"

    def serve() -> None:
        while True:
            conn, _ = listener.accept()
            try:
                socket.send_fds(relay, [b"c"], [conn.fileno()])
            finally:
                conn.close()

    pid = os.fork()
    if pid == 0:
        listener.close()
        relay.close()
        try:
            os.execvpe(command[0], command, env)
        finally:
            os._exit(127)
    threading.Thread(target=serve, daemon=True).start()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
