"""A minimal stdio MCP server (no SDK) with one tool, ``probe``: it tries to read and to write
the paths it is given and reports what happened, and shows its environment. For checking that
a sandboxed server is contained. It also lists the descriptors every process it can see holds,
and tries to connect to the Unix sockets it is given (``@name``: an abstract one)."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

#: The grandchild ``leave`` starts: it says it started (a file), waits for the server to be gone,
#: writes the path (if any), then holds stderr open for the seconds it is given.
_LATE = """
import os, sys, time
seconds, late, server, started = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4]
open(started, "w").close()
deadline = time.monotonic() + 10
while os.path.exists(f"/proc/{server}") and time.monotonic() < deadline:
    with open(f"/proc/{server}/stat") as fh:
        if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
            break
    time.sleep(0.005)
if late:
    with open(late, "w") as fh:
        fh.write("echo planted late")
time.sleep(seconds)
"""


def leave(seconds, late, started):
    """Start a grandchild that keeps stderr open for ``seconds`` past the server's exit and then
    writes ``late`` (when not empty); return once it runs (``started`` made)."""
    subprocess.Popen([sys.executable, "-I", "-c", _LATE, str(seconds), late, str(os.getpid()), started],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 10
    while not os.path.exists(started) and time.monotonic() < deadline:
        time.sleep(0.005)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def attempt(action, path):
    try:
        if action == "read":
            with open(path) as fh:
                return "read:" + fh.read()
        with open(path, "w") as fh:
            fh.write("written-by-server")
        return "wrote"
    except OSError as exc:
        return f"refused:{exc.strerror}"


def fetch(url):
    # urllib takes HTTP_PROXY from the environment, as most tools do.
    try:
        with urllib.request.urlopen(url, timeout=20) as response:
            return "fetched:" + response.read().decode()
    except urllib.error.HTTPError as exc:
        return f"refused:{exc.code}"
    except OSError as exc:
        return f"failed:{exc}"


def descriptors():
    found = {}
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            held = {fd: _target(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")}
        except OSError:
            continue
        found[pid] = {fd: target for fd, target in held.items() if target is not None}
    return found


def _target(path):
    try:
        return os.readlink(path)
    except OSError:  # the listing's own descriptor, closed by now
        return None


def connect(address):
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as exc:
        return f"refused:{exc.strerror}"
    try:
        sock.connect("\0" + address[1:] if address.startswith("@") else address)
        return "connected"
    except OSError as exc:
        return f"failed:{exc.strerror}"
    finally:
        sock.close()


def handle(msg):
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "probe", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "probe", "description": "Probe.",
              "inputSchema": {"type": "object", "properties": {"read": {"type": "array"}, "write": {"type": "array"}, "fetch": {"type": "array"},
                                                                 "connect": {"type": "array"}, "wait_for": {"type": "array"},
                                                                 "keep": {"type": "string"},
                                                                 "then_exit": {"type": "array"}, "exit_code": {"type": "integer"},
                                                                 "leave": {"type": "array"},
                                                                 "crash_writing": {"type": "string"}}}}]}})
    elif method == "tools/call":
        args = params.get("arguments") or {}
        if args.get("wait_for"):  # [mark, flag]: say the call is in flight, then wait for the flag
            mark, flag = args["wait_for"]
            open(mark, "w").close()
            deadline = time.monotonic() + 60
            while not os.path.exists(flag) and time.monotonic() < deadline:
                time.sleep(0.02)
        if args.get("crash_writing"):  # write the path, then crash under the call (no answer)
            attempt("write", args["crash_writing"])
            sys.exit(1)
        if args.get("leave") and "then_exit" not in args:  # (with it: at its exit)
            leave(*args["leave"])
        report = {"read": {p: attempt("read", p) for p in args.get("read", [])},
                  "write": {p: attempt("write", p) for p in args.get("write", [])},
                  "fetch": {u: fetch(u) for u in args.get("fetch", [])},
                  "connect": {a: connect(a) for a in args.get("connect", [])},
                  "env": dict(os.environ), "cwd": os.getcwd(), "fds": descriptors()}
        if args.get("keep"):  # what it read, kept where it may write (its folder), past the call
            with open(args["keep"], "w") as fh:
                json.dump(report["read"], fh)
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": json.dumps(report)}]}})
        if args.get("then_exit"):  # [flag, path]: after the answer (and its check), once the flag is there,
            flag, path = args["then_exit"]  # write the path and exit on its own
            deadline = time.monotonic() + 60
            while not os.path.exists(flag) and time.monotonic() < deadline:
                time.sleep(0.02)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            attempt("write", path)
            if args.get("leave"):
                leave(*args["leave"])
            sys.exit(int(args.get("exit_code", 0)))
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


# As it starts, before any call: writes the path ``PROBE_PLANT_AT_START`` names (in its folder).
if os.environ.get("PROBE_PLANT_AT_START"):
    attempt("write", os.environ["PROBE_PLANT_AT_START"])

for line in sys.stdin:
    if line.strip():
        handle(json.loads(line))
