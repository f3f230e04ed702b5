"""Configured connections: finding them, their passwords, a redacted DSN for display, and a
cached readiness check that never blocks the caller for long.

Connections live in ``Settings.databases``; the password of ``<name>`` is the secret
``database.<name>.password`` (never in the settings file, never in a DSN we show).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from echo_desk.i18n import N_
from echo_desk.store.settings import DatabaseConnection
from echo_desk.tools import get_secret

# Readiness details: catalog text, translated where the catalog shows them.
NO_DATABASE = N_("no database configured")
NO_WRITE_CONNECTION = N_("no connection in write mode")
PASSWORD_MISSING = N_("password missing")
CONNECTION_REFUSED = N_("connection refused")
HOST_NOT_FOUND = N_("host not found")
FILE_NOT_FOUND = N_("database file not found")

#: How long a readiness answer is reused, and how long a caller waits for a fresh one.
READINESS_TTL_SECONDS = 15.0
READINESS_WAIT_SECONDS = 0.2
PROBE_TIMEOUT_SECONDS = 2.0


def password_key(name: str) -> str:
    return f"database.{name}.password"


def password_for(conn: DatabaseConnection) -> str | None:
    return get_secret(password_key(conn.name)) or None


def redact_dsn(dsn: str) -> str:
    """The DSN without any password: ``postgresql://me@db:5432/sales``."""
    if "://" not in dsn:
        return re.sub(r"(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S*)", "password=***", dsn)
    parts = urlsplit(dsn)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        netloc = f"{userinfo.split(':', 1)[0]}@{hosts}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if k.lower() != "password"])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


@dataclass(frozen=True)
class Endpoint:
    """Where a PostgreSQL DSN points: a TCP host/port or a unix socket file."""

    host: str
    port: int

    @property
    def is_socket(self) -> bool:
        return self.host.startswith("/")


def postgres_endpoint(dsn: str) -> Endpoint:
    """The first host of a ``postgresql://`` DSN (``?host=/dir`` for a socket folder)."""
    parts = urlsplit(dsn)
    query = dict(parse_qsl(parts.query))
    hostport = parts.netloc.rpartition("@")[2].split(",")[0]
    host, port_text = hostport, ""
    if hostport.startswith("["):  # [::1]:5432
        host, _, rest = hostport[1:].partition("]")
        port_text = rest.lstrip(":")
    elif ":" in hostport:
        host, _, port_text = hostport.rpartition(":")
    host = unquote(query.get("host", host)) or "localhost"
    try:
        port = int(query.get("port", port_text) or 5432)
    except ValueError:
        port = 5432
    return Endpoint(host, port)


def needs_password(conn: DatabaseConnection) -> bool:
    """TCP PostgreSQL needs one from the keyring; unix sockets may use peer auth, SQLite none."""
    if conn.kind != "postgres" or ":" in _userinfo(conn.dsn):
        return False
    return not postgres_endpoint(conn.dsn).is_socket


def _userinfo(dsn: str) -> str:
    netloc = urlsplit(dsn).netloc if "://" in dsn else ""
    return netloc.rpartition("@")[0]


def sqlite_path(dsn: str) -> str:
    """The file a SQLite DSN names: a plain path, ``file:path`` or SQLAlchemy's ``sqlite:///path``."""
    if dsn.startswith("sqlite:///"):  # sqlite:///rel.db, sqlite:////abs/path.db
        return unquote(dsn[len("sqlite:///"):].split("?", 1)[0])
    if dsn.startswith("file:"):
        return unquote(dsn[len("file:"):].split("?", 1)[0])
    return dsn


def probe(conn: DatabaseConnection) -> str:
    """A cheap check: '' when the server answers (or cannot be judged), else a detail string."""
    if conn.kind == "sqlite":
        path = os.path.expanduser(sqlite_path(conn.dsn))
        # A relative path is anchored in the workspace, unknown here: judge it at call time.
        return FILE_NOT_FOUND if os.path.isabs(path) and not os.path.isfile(path) else ""
    if needs_password(conn) and password_for(conn) is None:
        return PASSWORD_MISSING
    endpoint = postgres_endpoint(conn.dsn)
    if endpoint.is_socket:
        sock_file = Path(endpoint.host) / f".s.PGSQL.{endpoint.port}"
        return "" if sock_file.exists() else CONNECTION_REFUSED
    try:
        with socket.create_connection((endpoint.host, endpoint.port), timeout=PROBE_TIMEOUT_SECONDS):
            return ""
    except socket.gaierror:
        return HOST_NOT_FOUND
    except ConnectionRefusedError:
        return CONNECTION_REFUSED
    except OSError:
        return ""  # slow or filtered: let the call itself report it, do not hide the tool


class ReadinessCache:
    """Per-connection probe results, refreshed in the background.

    ``detail()`` is called by the schema factory and the catalog on the UI thread, so it never
    waits for a refresh: a stale answer is returned at once while a new probe runs. Only the
    very first question about a connection waits, at most ``READINESS_WAIT_SECONDS``, and is
    otherwise answered optimistically ("ready").
    """

    def __init__(self, probe_fn: Callable[[DatabaseConnection], str] = probe,
                 ttl: float = READINESS_TTL_SECONDS, wait: float = READINESS_WAIT_SECONDS) -> None:
        self._probe = probe_fn
        self._ttl = ttl
        self._wait = wait
        self._lock = threading.Lock()
        self._results: dict[tuple[str, str, str], tuple[float, str]] = {}
        self._running: dict[tuple[str, str, str], threading.Event] = {}

    def detail(self, conn: DatabaseConnection) -> str:
        if conn.kind == "postgres" and needs_password(conn) and password_for(conn) is None:
            return PASSWORD_MISSING  # instant, and must show as soon as the secret is removed
        key = (conn.name, conn.kind, conn.dsn)
        with self._lock:
            cached = self._results.get(key)
            if cached and time.monotonic() - cached[0] < self._ttl:
                return cached[1]
            done = self._running.get(key)
            if done is None:
                done = threading.Event()
                self._running[key] = done
                threading.Thread(target=self._run, args=(key, conn, done), daemon=True,
                                 name=f"db-probe-{conn.name}").start()
            if cached is not None:
                return cached[1]
        done.wait(self._wait)
        with self._lock:
            cached = self._results.get(key)
        return cached[1] if cached else ""

    def invalidate(self) -> None:
        """Forget every result (e.g. after a call failed to connect or settings changed)."""
        with self._lock:
            self._results.clear()

    def _run(self, key: tuple[str, str, str], conn: DatabaseConnection, done: threading.Event) -> None:
        try:
            result = self._probe(conn)
        except Exception:  # a broken probe must not hide a tool  # noqa: BLE001
            result = ""
        with self._lock:
            self._results[key] = (time.monotonic(), result)
            self._running.pop(key, None)
        done.set()
