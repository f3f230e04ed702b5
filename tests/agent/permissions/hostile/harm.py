"""The harm a hostile line claims, as something a test can check on disk.

A claim is ``KIND:PATH``: ``creates`` (nothing was there before, something is after; a ``*``
in the last part of PATH matches any name there), ``deletes`` (something was there, nothing is
after), ``changes`` (a file whose bytes differ after) or ``reads`` (a file was opened and read:
its access time, set to the epoch before the run, moved — which needs a file system that
records access times, as ``relatime`` does when the access time is older than the change time). PATH is relative to the workspace; ``~`` and ``~/…`` are the scratch home, ``..`` climbs
to the world's root (``../remote.git/…``). A claim that could name a place outside the world is
refused.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from enum import Enum
from pathlib import Path


class HarmKind(Enum):
    CREATES = "creates"
    DELETES = "deletes"
    CHANGES = "changes"
    READS = "reads"


@dataclass(frozen=True)
class Harm:
    kind: HarmKind
    path: str

    @classmethod
    def parse(cls, text: str) -> Harm:
        kind, sep, path = text.partition(":")
        if not sep or not path:
            raise ValueError(f"a harm is KIND:PATH, not {text!r}")
        harm = cls(HarmKind(kind), path)
        harm.locate(Path("/scratch/root"))  # refuses a path outside the world
        return harm

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.path}"

    def locate(self, root: Path) -> Path:
        """The claimed path inside the world at ``root``."""
        if self.path == "~" or self.path.startswith("~/"):
            base, rest = root / "home", self.path[2:]
        else:
            base, rest = root / "ws", self.path
        where = Path(os.path.normpath(base / rest)) if rest else base
        if where != root and root not in where.parents:
            raise ValueError(f"{self} is outside the scratch world")
        return where


@dataclass(frozen=True)
class Before:
    """What the claimed path held before the line ran."""

    existed: bool
    content: bytes | None


def observe(harm: Harm, root: Path) -> Before:
    """Note what the claim will be compared with (and, for ``reads``, reset the access time)."""
    path = harm.locate(root)
    if harm.kind is HarmKind.CREATES and "*" in path.name:
        return Before(any(path.parent.glob(path.name)), None)
    existed = os.path.lexists(path)
    content = None
    if harm.kind is HarmKind.CHANGES and path.is_file():
        content = path.read_bytes()
    if harm.kind is HarmKind.READS and path.is_file():
        os.utime(path, (0, path.stat().st_mtime))
        content = b""
    return Before(existed, content)


def precondition(harm: Harm, before: Before) -> str | None:
    """Why the claim cannot even start from this world (None: it can)."""
    if harm.kind is HarmKind.CREATES and before.existed:
        return f"{harm.path} already exists"
    if harm.kind is HarmKind.DELETES and not before.existed:
        return f"{harm.path} does not exist to be deleted"
    if harm.kind in (HarmKind.CHANGES, HarmKind.READS) and before.content is None:
        return f"{harm.path} is not a file to {harm.kind.value[:-1]}"
    return None


def happened(harm: Harm, root: Path, before: Before) -> bool:
    path = harm.locate(root)
    if harm.kind is HarmKind.CREATES and "*" in path.name:
        return any(path.parent.glob(path.name))
    if harm.kind is HarmKind.CREATES:
        return os.path.lexists(path)
    if harm.kind is HarmKind.DELETES:
        return not os.path.lexists(path)
    try:
        if harm.kind is HarmKind.READS:
            return path.stat().st_atime > 0
        return path.read_bytes() != before.content
    except OSError:
        return False


def access_times_recorded(folder: Path) -> bool:
    """Whether reading a file in ``folder`` moves its access time (``reads`` claims need it)."""
    probe = folder / "atime-probe"
    probe.write_bytes(b"x")
    os.utime(probe, (0, probe.stat().st_mtime))
    with probe.open("rb") as f:
        f.read()
    moved = probe.stat().st_atime > 0
    probe.unlink()
    return moved
