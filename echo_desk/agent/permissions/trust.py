"""Trusting a workspace's rule files binds to the bytes the person was shown.

``TrustSnapshot`` holds each workspace rule file as read once — its bytes' sha256, its text for
display and the allow rules parsed from those same bytes. The dialog and the CLI show the
snapshot, and ``PermissionEngine.trust(snapshot)`` records exactly those hashes after checking
that every file still has them: a file swapped, added or removed between showing and confirming
is refused with ``TrustChanged`` and nothing is trusted. (A swap after that check cannot slip
in either: only the shown hash is recorded, and the swapped file does not have it.)
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions.model import Layer, LoadProblem, Rule


class TrustChanged(ValueError):
    """A rule file is no longer what was shown: nothing was trusted."""


@dataclass(frozen=True, kw_only=True)
class TrustFile:
    """One workspace rule file as it was shown (``sha256`` ``None``: it did not exist)."""

    path: Path
    layer: Layer
    sha256: str | None
    text: str  # the bytes as shown (undecodable bytes replaced; such a file is refused anyway)
    allows: tuple[Rule, ...]  # the allow rules these bytes hold
    error: LoadProblem | None = None  # the file's first error: then it cannot be trusted


@dataclass(frozen=True, kw_only=True)
class TrustSnapshot:
    """Both rule files of a workspace as shown to the person."""

    workspace: Path
    files: tuple[TrustFile, ...]

    @property
    def present(self) -> tuple[TrustFile, ...]:
        return tuple(f for f in self.files if f.sha256 is not None)

    @property
    def allows(self) -> tuple[Rule, ...]:
        """The allow rules that trusting these files would make active."""
        return tuple(rule for f in self.present for rule in f.allows)


def sha256_of(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def check_unchanged(snapshot: TrustSnapshot) -> None:
    """``TrustChanged`` unless every file still holds exactly the bytes shown (or is still absent)."""
    for shown in snapshot.files:
        now = sha256_of(shown.path)
        if now == shown.sha256:
            continue
        if shown.sha256 is None:
            why = f"{shown.path} appeared after the rules were shown"
        elif now is None:
            why = f"{shown.path} was removed after it was shown"
        else:
            why = f"{shown.path} changed after it was shown (sha256 {shown.sha256[:12]}… is now {now[:12]}…)"
        raise TrustChanged(f"{why}; nothing was trusted: look at it again")
