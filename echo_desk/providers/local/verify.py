"""Checking model files: GGUF magic, size and sha256, with a marker so we hash only once."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from echo_desk.common.json_text import read_json
from echo_desk.store.private import write_private

GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 20


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def is_gguf(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4) == GGUF_MAGIC
    except OSError:
        return False


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def mark_verified(path: Path, sha256: str) -> None:
    """Remember that ``path`` (as it is now: size and mtime) hashed to ``sha256``."""
    write_private(_marker(path), json.dumps({"sha256": sha256, **_stamp(path)}))


def is_verified(path: Path, sha256: str, *, rehash: bool = False) -> bool:
    """True when ``path`` is known (or, if the marker is stale or ``rehash``, computed) to hash to ``sha256``."""
    if not path.is_file():
        return False
    if not rehash:
        try:
            marker = read_json(_marker(path).read_text(encoding="utf-8"))
            if marker == {"sha256": sha256, **_stamp(path)}:
                return True
        except (OSError, ValueError):
            pass
    if sha256_of(path) == sha256:
        mark_verified(path, sha256)
        return True
    return False


def recorded_sha256(path: Path) -> str | None:
    """The sha256 a still-valid marker records for ``path`` (no hashing), else None."""
    try:
        marker = read_json(_marker(path).read_text(encoding="utf-8"))
        if isinstance(marker, dict) and marker == {"sha256": marker.get("sha256"), **_stamp(path)}:
            return str(marker["sha256"])
    except (OSError, ValueError):
        pass
    return None
