"""Keep the undo copies and Echo Desk's trash within the age limit and the size cap of settings.

Past the age limit a change is no longer restorable and its copies go; over the size cap the
trash goes first (Revert never needs it), then the oldest changes give up their copies. Each
change that loses its copy is marked with why (``NotRestorable``), so Revert says "no longer
restorable" instead of failing. A copy written in the last minutes may belong to a call still
running and is never removed for being unreferenced.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from echo_desk.store.blobs import BlobStore
from echo_desk.store.changes import ChangeStore, NotRestorable

#: A blob this young may be a call's "before" copy not yet in the change log.
IN_FLIGHT_SECONDS = 600.0


@dataclass(frozen=True)
class PruneReport:
    forgotten_for_age: int = 0
    forgotten_for_space: int = 0
    blobs_removed: int = 0
    trash_removed: int = 0
    bytes_freed: int = 0


def _tree_bytes(folder: Path) -> int:
    total = 0
    for dirpath, _dirs, files in os.walk(folder, followlinks=False):
        for name in files:
            with contextlib.suppress(OSError):
                st = os.lstat(os.path.join(dirpath, name))
                if stat.S_ISREG(st.st_mode):
                    total += st.st_size
    return total


def _trash_items(trash_root: Path | None) -> list[tuple[float, Path, int]]:
    """Each deletion's folder in the trash, oldest first, with its size."""
    if trash_root is None or not trash_root.is_dir():
        return []
    items = []
    for entry in trash_root.iterdir():
        with contextlib.suppress(OSError):
            st = entry.lstat()
            if stat.S_ISDIR(st.st_mode):
                items.append((st.st_mtime, entry, _tree_bytes(entry)))
    return sorted(items)


def _remove_tree(folder: Path) -> bool:
    try:
        shutil.rmtree(folder)
    except OSError:
        return False
    return True


def prune(changes: ChangeStore, blobs: BlobStore, trash_root: Path | None, *, keep_seconds: float,
          max_total_bytes: int, now: float | None = None) -> PruneReport:
    """Apply the age limit and the size cap once (safe to run on any thread)."""
    now = time.time() if now is None else now
    cutoff = now - keep_seconds
    aged = changes.forget_older_than(cutoff)
    freed = 0
    trash_removed = 0
    trash = _trash_items(trash_root)
    for mtime, folder, size in list(trash):
        if mtime < cutoff and _remove_tree(folder):
            trash.remove((mtime, folder, size))
            trash_removed += 1
            freed += size

    sizes = blobs.sizes()
    live = changes.live_blobs()
    live_bytes = sum(sizes[d][0] for d in live if d in sizes)
    trash_bytes = sum(size for _m, _f, size in trash)
    # Over the cap: the trash first, oldest deletion first.
    while trash and live_bytes + trash_bytes > max_total_bytes:
        _mtime, folder, size = trash.pop(0)
        if _remove_tree(folder):
            trash_removed += 1
            trash_bytes -= size
            freed += size
    # Then the oldest changes, until what the rest needs fits.
    forgotten: list[int] = []
    if live_bytes + trash_bytes > max_total_bytes:
        records = changes.restorable_oldest_first()
        users = Counter(d for r in records for d in {r.before_sha256, r.after_sha256} if d)
        for record in records:
            if live_bytes + trash_bytes <= max_total_bytes:
                break
            forgotten.append(record.id)
            for digest in {record.before_sha256, record.after_sha256} - {None}:
                assert digest is not None
                users[digest] -= 1
                if users[digest] == 0 and digest in sizes:
                    live_bytes -= sizes[digest][0]
        changes.forget(forgotten, NotRestorable.OVER_SPACE_LIMIT)
        live = changes.live_blobs()
    removed = 0
    for digest, (size, mtime) in sizes.items():
        if digest in live or mtime > now - IN_FLIGHT_SECONDS:
            continue
        if blobs.remove(digest):
            removed += 1
            freed += size
    return PruneReport(aged, len(forgotten), removed, trash_removed, freed)
