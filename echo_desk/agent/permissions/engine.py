"""``PermissionEngine``: loads the rule layers, keeps the grants, and answers for one call.

One instance per app (``Runtime`` owns it); thread-safe for reads. Every consumer — the
dispatcher's policy step, ``echo-desk rules check``, the Permissions page's tester — calls
``evaluate`` (or the ``check_*`` helpers, which build the same ``Subject`` and call it), so
what the tester shows is what ``execute_tool`` does.

Layer files are re-read when their size or mtime changes (a stat per file per call); grants are
read from SQLite on every call, so a revoke or an expiry applies to the very next call.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from echo_desk.agent.permissions.model import (
    Effect,
    Family,
    Grant,
    GrantScope,
    Layer,
    LoadReport,
    Rule,
    Suggestion,
    Verdict,
)
from echo_desk.agent.permissions.subjects import Subject
from echo_desk.store.grants import GrantStore

USER_FILE = "permissions.toml"
WORKSPACE_DIR = ".echo-desk"
WORKSPACE_FILE = "permissions.toml"
WORKSPACE_LOCAL_FILE = "permissions.local.toml"


def workspace_files(workspace: Path) -> tuple[Path, Path]:
    """The committed and the personal rule file of ``workspace``."""
    base = workspace / WORKSPACE_DIR
    return base / WORKSPACE_FILE, base / WORKSPACE_LOCAL_FILE


def file_sha256(path: Path) -> str | None:
    """The sha256 of a rule file's bytes (``None`` when it does not exist)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


class PermissionEngine:
    """Rules from every layer + grants → a ``Verdict`` per call.

    ``config_dir`` holds the user's ``permissions.toml`` (and Echo Desk's settings, which the
    floor protects); ``grants`` stores grants and workspace trust; ``clock`` (seconds since the
    epoch) is injectable for tests and must be the same clock the ``GrantStore`` uses.
    """

    def __init__(
        self,
        *,
        config_dir: Path,
        grants: GrantStore,
        clock: Callable[[], float] | None = None,
        protected_dirs: tuple[Path, ...] = (),
    ) -> None:
        self.config_dir = Path(config_dir)
        self.grants = grants
        self.clock = clock or grants.clock or time.time
        #: Folders no rule may let anything write to (Echo Desk's own settings and data).
        self.protected_dirs = (self.config_dir, *protected_dirs)
        self._lock = threading.Lock()
        self._cache: dict[Path, Any] = {}

    @property
    def user_file(self) -> Path:
        """``<config dir>/permissions.toml``."""
        return self.config_dir / USER_FILE

    def load(self, workspaces: tuple[Path, ...] = ()) -> LoadReport:
        """Every rule of every layer for these workspaces (floor, user, workspace, local), with
        inactive ones marked and every load error/warning. Cheap when nothing changed."""
        raise NotImplementedError

    def evaluate(
        self,
        subject: Subject,
        *,
        workspaces: tuple[Path, ...] = (),
        conversation_id: str = "",
        cwd: Path | None = None,
        record_use: bool = True,
    ) -> Verdict:
        """The rules' and grants' verdict for one call. ``effect None`` = nothing spoke (the
        tool's policy and risk defaults decide). Never raises on odd input: what it cannot
        understand is never allowed."""
        raise NotImplementedError

    # -- the tester and the CLI ------------------------------------------------------------
    def check_command(self, command: str, *, workspace: Path | None = None, conversation_id: str = "") -> Verdict:
        """``run_command``'s verdict for ``command`` run in ``workspace``."""
        raise NotImplementedError

    def check_path(self, path: str, *, write: bool, workspace: Path | None = None) -> Verdict:
        """A file tool's verdict for reading (``write=False``) or writing ``path``."""
        raise NotImplementedError

    def check_url(self, url: str, *, method: str = "GET", workspace: Path | None = None) -> Verdict:
        """``fetch_url``'s verdict for ``url``."""
        raise NotImplementedError

    def check_mcp(self, server: str, tool: str, arguments: Mapping[str, Any], *,
                  workspace: Path | None = None) -> Verdict:
        """An MCP tool call's verdict (server, the server's own tool name, arguments)."""
        raise NotImplementedError

    # -- grants and trust ------------------------------------------------------------------
    def grant(self, suggestion: Suggestion, scope: GrantScope, *, call_id: str, conversation_id: str = "",
              workspace: Path | None = None) -> Grant | Rule | None:
        """Turn an approval choice into data: ``ONCE`` → nothing stored (``None``); ``ALWAYS`` →
        a rule appended to the user's ``permissions.toml`` (returned); the rest → a stored
        ``Grant`` (returned)."""
        raise NotImplementedError

    def active_grants(self) -> list[Grant]:
        """Grants in force now (expired ones are gone)."""
        return self.grants.active()

    def revoke(self, grant_id: str) -> bool:
        """Remove one grant; the very next call no longer sees it."""
        return self.grants.revoke(grant_id)

    def revoke_all(self) -> int:
        return self.grants.revoke_all()

    def is_trusted(self, workspace: Path) -> bool:
        """Whether the person trusted ``workspace``'s rule file *as it is now* (hash-bound)."""
        raise NotImplementedError

    def trust(self, workspace: Path) -> tuple[Rule, ...]:
        """Trust the workspace's ``permissions.toml`` as it is now; returns the allow rules that
        become active (show them before calling this: "Trust" must say what it allows)."""
        raise NotImplementedError

    def effect_order(self) -> tuple[Effect, ...]:
        """Precedence, for documentation and UI: floor rules, then deny, ask, allow."""
        return (Effect.DENY, Effect.ASK, Effect.ALLOW)

    @staticmethod
    def layers() -> tuple[Layer, ...]:
        return (Layer.FLOOR, Layer.USER, Layer.WORKSPACE, Layer.WORKSPACE_LOCAL, Layer.GRANT)

    @staticmethod
    def families() -> tuple[Family, ...]:
        return tuple(Family)
