"""Content-addressed copies of file contents, kept so a tool's write can be undone.

Each blob is stored once under its SHA-256 (``ab/cdef…``), in folders created 0700 and files
created 0600: earlier versions of the person's files are as private as the files themselves.
Blobs older than the age limit are removed by ``prune``; the change log notes which of its
records lost their content.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import time
from pathlib import Path

_PRIVATE_DIR = 0o700
_PRIVATE_FILE = 0o600


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStore:
    """Blobs under ``root``. Writes are atomic (temp file, fsync, rename); reads verify the hash."""

    def __init__(self, root: Path) -> None:
        self.root = root
        _private_dir(root)

    def _path(self, digest: str) -> Path:
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"not a SHA-256 digest: {digest!r}")
        return self.root / digest[:2] / digest[2:]

    def put(self, data: bytes) -> str:
        """Store ``data`` (once per content) and return its SHA-256."""
        digest = sha256(data)
        path = self._path(digest)
        if path.exists():
            with contextlib.suppress(OSError):
                os.utime(path)  # a re-used blob is young again for the age limit
            return digest
        _private_dir(path.parent)
        tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, _PRIVATE_FILE)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view[: 1 << 20]):]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(tmp, path)
        finally:  # a write the disk refused half-way leaves no partial copy taking its room
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        return digest

    def get(self, digest: str) -> bytes | None:
        """The content stored under ``digest``, or ``None`` if it is gone or damaged."""
        try:
            data = self._path(digest).read_bytes()
        except FileNotFoundError:
            return None
        return data if sha256(data) == digest else None

    def has(self, digest: str) -> bool:
        return self._path(digest).is_file()

    def sizes(self) -> dict[str, tuple[int, float]]:
        """Every blob's size and last use (mtime), by digest."""
        found: dict[str, tuple[int, float]] = {}
        for folder in self.root.iterdir():
            if not folder.is_dir() or len(folder.name) != 2:
                continue
            for blob in folder.iterdir():
                if blob.name.startswith("."):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    st = blob.stat()
                    found[folder.name + blob.name] = (st.st_size, st.st_mtime)
        return found

    def remove(self, digest: str) -> bool:
        try:
            self._path(digest).unlink()
        except FileNotFoundError:
            return False
        return True

    def prune(self, max_age_seconds: float, *, keep: set[str] | frozenset[str] = frozenset()) -> int:
        """Remove blobs not used for ``max_age_seconds`` (except ``keep``). Returns how many."""
        cutoff = time.time() - max_age_seconds
        removed = 0
        for folder in self.root.iterdir():
            if not folder.is_dir() or len(folder.name) != 2:
                continue
            for blob in folder.iterdir():
                digest = folder.name + blob.name
                if digest in keep or blob.name.startswith("."):
                    continue
                with contextlib.suppress(FileNotFoundError):
                    if blob.stat().st_mtime < cutoff:
                        blob.unlink()
                        removed += 1
        return removed


def _private_dir(path: Path) -> None:
    path.mkdir(mode=_PRIVATE_DIR, parents=True, exist_ok=True)
    # mkdir's mode is masked by the umask, and an existing folder keeps its own: set it.
    os.chmod(path, _PRIVATE_DIR)
