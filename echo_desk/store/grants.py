"""Grants the person gave in approvals, and the workspaces they trust: SQLite in the data folder.

A grant is an allow for one tool (or family) and pattern, limited in time, to a conversation or
to a workspace; "always" grants are not stored here (they become a rule in the user's
``permissions.toml``) and neither are "once" approvals. Workspace trust is bound to the hash of
the workspace's ``.echo-desk/permissions.toml``: a changed file is untrusted again.

Reads are answered from memory while nothing changed: a write through this store and an expiry
take effect on the very next call; a change made by another process (``echo-desk rules revoke``
while the app runs) within ``OTHER_PROCESS_CHECK_SECONDS``. ``clock`` (seconds since the epoch)
is injectable for tests.
"""

from __future__ import annotations

import enum
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from echo_desk.store.private import connect_private

if TYPE_CHECKING:
    import sqlite3

#: The grants database in the data folder (the runtime's and ``echo-desk rules``'s).
GRANTS_FILE = "grants.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS grants (
    id TEXT PRIMARY KEY,
    tool TEXT NOT NULL,
    pattern TEXT,
    scope TEXT NOT NULL,
    created_at REAL NOT NULL,
    created_by_call TEXT NOT NULL,
    expires_at REAL,
    conversation_id TEXT NOT NULL,
    workspace TEXT NOT NULL,
    uses INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    client TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS workspace_trust (
    workspace TEXT PRIMARY KEY,
    file_sha256 TEXT NOT NULL,
    trusted_at REAL NOT NULL
);
"""


class GrantScope(enum.StrEnum):
    """How long an approval's grant lasts. ``ONCE`` is never stored; ``ALWAYS`` becomes a rule
    appended to the user's ``permissions.toml``; the rest live here."""

    ONCE = "once"
    MINUTES_15 = "15min"
    CONVERSATION = "conversation"
    WORKSPACE = "workspace"
    ALWAYS = "always"


#: How often the database file is looked at (a stat) for changes made by another process (the
#: CLI revoking while the app runs). Changes made through this store apply to the very next call.
OTHER_PROCESS_CHECK_SECONDS = 0.25

#: How long a ``MINUTES_15`` grant lasts.
FIFTEEN_MINUTES = 15 * 60.0


@dataclass(frozen=True, kw_only=True)
class Grant:
    """An allow the person gave in an approval, stored with what created it.

    It matches like an allow rule for ``tool``/``pattern`` (the rule grammar), limited to
    ``conversation_id`` (CONVERSATION), ``workspace`` (WORKSPACE) or until ``expires_at``
    (MINUTES_15; seconds since the epoch). A grant never overrides a deny or a floor rule."""

    id: str
    tool: str
    pattern: str | None
    scope: GrantScope
    created_at: float
    created_by_call: str
    expires_at: float | None = None
    conversation_id: str = ""
    workspace: str = ""
    uses: int = 0
    reason: str = ""
    #: Who the person allowed it for: the MCP client whose dialog it was given in (the dialog
    #: was headed with its name), '' for Echo Desk's own chat. It covers that caller only.
    client: str = ""

    def applies(self, *, now: float, conversation_id: str, workspaces: tuple[str, ...], client: str = "") -> bool:
        """Whether this grant may be consulted for a call at ``now`` in that conversation/workspace,
        from ``client`` ('' = Echo Desk's own agent)."""
        if self.client != client:
            return False
        if self.expires_at is not None and now >= self.expires_at:
            return False
        if self.scope is GrantScope.CONVERSATION and self.conversation_id != conversation_id:
            return False
        if self.scope is GrantScope.WORKSPACE and self.workspace not in workspaces:
            return False
        return True


def _add_client_column(conn: sqlite3.Connection) -> None:
    """A database made before grants named their client gets the column; its grants read as
    Echo Desk's own chat's (narrower than the everyone they covered: a client is asked again)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(grants)")}
    if "client" not in columns:
        with conn:
            conn.execute("ALTER TABLE grants ADD COLUMN client TEXT NOT NULL DEFAULT ''")


class GrantStore:
    """Grants and workspace trust in one SQLite file (``data_dir()/grants.sqlite3``)."""

    def __init__(self, path: Path | str, *, clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        self._lock = threading.Lock()
        # 0600 in a 0700 folder: the grants and trusted workspaces are the person's alone.
        self._conn = connect_private(self.path, timeout=10, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.executescript(_SCHEMA)
        _add_client_column(self._conn)
        #: ``active()`` is asked on every tool call: it is answered from memory while nothing
        #: changed — no write here, no commit by another process (``_stamp``), no grant
        #: expired (``_next_expiry``).
        self._cached: list[Grant] | None = None
        self._data_version: tuple[int, ...] = ()
        self._looked_at = 0.0
        self._writes = 0
        self._next_expiry = float("inf")
        #: How many times the grants were read (``generation``).
        self._loads = 0
        self._trust: dict[str, str | None] = {}

    # -- grants -----------------------------------------------------------------------------
    def add(
        self,
        *,
        tool: str,
        pattern: str | None,
        scope: GrantScope,
        created_by_call: str,
        conversation_id: str = "",
        workspace: str = "",
        reason: str = "",
        client: str = "",
    ) -> Grant:
        """Store a grant and return it. ``ONCE`` and ``ALWAYS`` are refused (not stored here)."""
        if scope in (GrantScope.ONCE, GrantScope.ALWAYS):
            raise ValueError(f"a '{scope.value}' grant is not stored in the grant store")
        if scope is GrantScope.CONVERSATION and not conversation_id:
            raise ValueError("a conversation grant needs the conversation id")
        if scope is GrantScope.WORKSPACE and not workspace:
            raise ValueError("a workspace grant needs the workspace")
        now = self.clock()
        same = next((g for g in self.active()
                     if (g.tool, g.pattern, g.scope, g.conversation_id, g.workspace, g.client) ==
                     (tool, pattern, scope, conversation_id if scope is GrantScope.CONVERSATION else "",
                      workspace if scope is GrantScope.WORKSPACE else "", client)), None)
        if same is not None:  # the same grant again: one entry (a 15-minute one starts over)
            if same.expires_at is None:
                return same
            with self._lock, self._conn:
                self._changed()
                self._conn.execute("UPDATE grants SET expires_at = ? WHERE id = ?", (now + FIFTEEN_MINUTES, same.id))
            return replace(same, expires_at=now + FIFTEEN_MINUTES)
        grant = Grant(
            id="g_" + uuid.uuid4().hex[:12],
            tool=tool,
            pattern=pattern,
            scope=scope,
            created_at=now,
            created_by_call=created_by_call,
            expires_at=now + FIFTEEN_MINUTES if scope is GrantScope.MINUTES_15 else None,
            conversation_id=conversation_id if scope is GrantScope.CONVERSATION else "",
            workspace=workspace if scope is GrantScope.WORKSPACE else "",
            reason=reason,
            client=client,
        )
        with self._lock, self._conn:
            self._changed()
            self._conn.execute(
                "INSERT INTO grants (id, tool, pattern, scope, created_at, created_by_call, expires_at,"
                " conversation_id, workspace, uses, reason, client) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (grant.id, grant.tool, grant.pattern, grant.scope.value, grant.created_at,
                 grant.created_by_call, grant.expires_at, grant.conversation_id, grant.workspace,
                 0, grant.reason, grant.client),
            )
        return grant

    def active(self) -> list[Grant]:
        """Every grant not yet expired (oldest first). Expired ones are deleted on the way."""
        return list(self._fresh())

    def generation(self) -> int:
        """A number that changes whenever the active grants or the workspace trust may have
        changed (a write here or by another process, a grant expired), looked at as freshly as
        ``active`` looks: a verdict worked out under one number holds while it stays."""
        self._fresh()
        return self._loads

    def _fresh(self) -> list[Grant]:
        """``active``'s list itself (not to be changed), read again when it may be stale."""
        now = self.clock()
        with self._lock:
            if self._cached is not None and now < self._next_expiry:
                tick = time.monotonic()
                if tick - self._looked_at < OTHER_PROCESS_CHECK_SECONDS:
                    return self._cached  # our own writes cleared the cache already
                self._looked_at = tick
                if self._stamp() == self._data_version:
                    return self._cached
        with self._lock, self._conn:
            self._conn.execute("DELETE FROM grants WHERE expires_at IS NOT NULL AND expires_at <= ?", (now,))
            rows = self._conn.execute(
                "SELECT id, tool, pattern, scope, created_at, created_by_call, expires_at,"
                " conversation_id, workspace, uses, reason, client FROM grants ORDER BY created_at, id"
            ).fetchall()
        grants = [
            Grant(id=r[0], tool=r[1], pattern=r[2], scope=GrantScope(r[3]), created_at=r[4],
                  created_by_call=r[5], expires_at=r[6], conversation_id=r[7], workspace=r[8],
                  uses=r[9], reason=r[10], client=r[11])
            for r in rows
        ]
        with self._lock:
            self._cached = grants
            self._loads += 1
            self._data_version = self._stamp()
            self._next_expiry = min((g.expires_at for g in grants if g.expires_at is not None), default=float("inf"))
            self._trust.clear()
        return grants

    def _stamp(self) -> tuple[int, ...]:
        """Changes whenever anyone commits to the file (a ``stat`` of the database and its WAL
        costs a microsecond or two; a query costs several): other processes' revokes show."""
        if self.path == ":memory:":
            return (self._writes,)
        out: list[int] = [self._writes]
        for name in (self.path, self.path + "-wal"):
            try:
                st = os.stat(name)
            except OSError:
                out += [0, 0]
                continue
            out += [st.st_mtime_ns, st.st_size]
        return tuple(out)

    def _changed(self) -> None:
        """Our own write: forget what was read."""
        self._writes += 1
        self._cached = None
        self._trust.clear()

    def record_use(self, grant: Grant) -> Grant:
        """Count one use of ``grant`` (shown in the Permissions page)."""
        with self._lock, self._conn:
            self._changed()
            self._conn.execute("UPDATE grants SET uses = uses + 1 WHERE id = ?", (grant.id,))
        return replace(grant, uses=grant.uses + 1)

    def revoke(self, grant_id: str) -> bool:
        """Remove one grant; True when it existed. Effective for the very next call."""
        with self._lock, self._conn:
            self._changed()
            return self._conn.execute("DELETE FROM grants WHERE id = ?", (grant_id,)).rowcount > 0

    def revoke_all(self) -> int:
        """Remove every grant; returns how many there were."""
        with self._lock, self._conn:
            self._changed()
            return self._conn.execute("DELETE FROM grants").rowcount

    # -- workspace trust -------------------------------------------------------------------
    def trust(self, workspace: str, file_sha256: str) -> None:
        """Trust ``workspace``'s rule file as it is now (its sha256)."""
        with self._lock, self._conn:
            self._changed()
            self._conn.execute(
                "INSERT OR REPLACE INTO workspace_trust VALUES (?,?,?)", (workspace, file_sha256, self.clock())
            )

    def untrust(self, workspace: str) -> None:
        with self._lock, self._conn:
            self._changed()
            self._conn.execute("DELETE FROM workspace_trust WHERE workspace = ?", (workspace,))

    def trusted_hash(self, workspace: str) -> str | None:
        """The sha256 of the rule file the person trusted for ``workspace``, if any."""
        with self._lock:
            version = self._stamp()
            if version != self._data_version:
                self._cached = None
                self._trust.clear()
                self._data_version = version
            if workspace in self._trust:
                return self._trust[workspace]
            row = self._conn.execute(
                "SELECT file_sha256 FROM workspace_trust WHERE workspace = ?", (workspace,)
            ).fetchone()
            self._trust[workspace] = row[0] if row else None
        return row[0] if row else None

    def close(self) -> None:
        with self._lock:
            self._conn.close()
