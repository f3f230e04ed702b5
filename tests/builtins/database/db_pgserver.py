"""A throw-away PostgreSQL server for the database tests.

``initdb`` in a temp folder, ``pg_ctl start`` on a free loopback port with the unix socket in
the same folder (no system service, nothing outside the folder), ``pg_ctl stop`` after.
PostgreSQL refuses to run as root, so under root the server runs as the ``postgres`` user the
Debian package creates (or ``nobody`` when that is missing) via ``subprocess``'s ``user=``.
"""

from __future__ import annotations

import glob
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

INSTALL_HINT = "apt-get install -y --no-install-recommends postgresql  (scripts/install-system-deps.sh does it)"
START_DEADLINE_SECONDS = 60


def find_bindir() -> Path | None:
    """The newest Debian ``/usr/lib/postgresql/<v>/bin``, else wherever ``pg_ctl`` is on PATH."""

    def version(path: str) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", path))

    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True):
        if os.access(os.path.join(candidate, "initdb"), os.X_OK):
            return Path(candidate)
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found and shutil.which("initdb") else None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    bindir: Path
    folder: Path
    port: int
    admin_user: str
    admin_password: str
    run_as: pwd.struct_passwd | None

    @property
    def datadir(self) -> Path:
        return self.folder / "data"

    @property
    def sockdir(self) -> Path:
        return self.folder / "sock"

    def dsn(self, user: str, database: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env["LC_ALL"] = "C"
        kwargs: dict[str, object] = {}
        if self.run_as is not None:
            kwargs = {"user": self.run_as.pw_uid, "group": self.run_as.pw_gid, "extra_groups": []}
        return subprocess.run(
            [str(self.bindir / args[0]), *args[1:]],
            cwd=self.folder, env=env, capture_output=True, text=True, check=check,
            timeout=START_DEADLINE_SECONDS + 15, **kwargs,  # type: ignore[call-overload]
        )

    def start(self) -> None:
        pwfile = self.folder / "pw"
        pwfile.write_text(self.admin_password + "\n")
        self.sockdir.mkdir()
        if self.run_as is not None:
            for p in (self.folder, pwfile, self.sockdir):
                os.chown(p, self.run_as.pw_uid, self.run_as.pw_gid)
        self._run("initdb", "-D", str(self.datadir), "-U", self.admin_user, f"--pwfile={pwfile}",
                  "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "-N")
        pwfile.unlink()
        options = (f"-p {self.port} -h 127.0.0.1 -k {self.sockdir} -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c shared_buffers=16MB -c max_connections=30")
        # -w -t: pg_ctl waits until the server accepts connections, with a deadline.
        result = self._run("pg_ctl", "-D", str(self.datadir), "-l", str(self.folder / "server.log"),
                           "-o", options, "-w", "-t", str(START_DEADLINE_SECONDS), "start", check=False)
        if result.returncode != 0:
            log = (self.folder / "server.log")
            raise RuntimeError(f"pg_ctl start failed: {result.stdout}{result.stderr}\n"
                               f"{log.read_text() if log.exists() else ''}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.datadir), "-m", "immediate", "-w", "stop", check=False)


def start_server() -> PgServer:
    """Start a fresh server; raise with the install line when PostgreSQL is not installed."""
    bindir = find_bindir()
    if bindir is None:
        raise RuntimeError(f"PostgreSQL server binaries not found; install them: {INSTALL_HINT}")
    run_as = None
    if os.geteuid() == 0:
        for name in ("postgres", "nobody"):
            try:
                run_as = pwd.getpwnam(name)
                break
            except KeyError:
                continue
        if run_as is None:
            raise RuntimeError("running as root and neither a 'postgres' nor a 'nobody' user exists")
    # mkdtemp under /tmp (not pytest's 0700 root-owned folders): the server user must reach it.
    folder = Path(tempfile.mkdtemp(prefix="echo-desk-pg-", dir="/tmp"))
    last_error: Exception | None = None
    for _ in range(3):  # the free port can be taken between probing and binding
        server = PgServer(bindir, folder, free_port(), "echo_admin", secrets.token_hex(12), run_as)
        try:
            server.start()
            return server
        except RuntimeError as exc:
            last_error = exc
            shutil.rmtree(folder, ignore_errors=True)
            folder = Path(tempfile.mkdtemp(prefix="echo-desk-pg-", dir="/tmp"))
    shutil.rmtree(folder, ignore_errors=True)
    raise RuntimeError(f"could not start PostgreSQL: {last_error}")


def wait_until(predicate, deadline_seconds: float = 10.0, interval: float = 0.02) -> bool:  # type: ignore[no-untyped-def]
    """Poll ``predicate`` until it is true or the deadline passes."""
    end = time.monotonic() + deadline_seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())
