"""What each "move behind Echo Desk" did, so one click can undo it, and where the backups are.

Kept in Echo Desk's private data folder (0600 files in a 0700 folder): a record holds the moved
entries' own text, and a client's entries may hold secrets in plain text.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from echo_desk.common.json_text import read_json
from echo_desk.store.paths import data_dir
from echo_desk.store.private import changing_alone, private_dir

_FILE = "records.json"


def connected_dir() -> Path:
    return private_dir(data_dir() / "connected-apps")


def backups_dir() -> Path:
    return private_dir(connected_dir() / "backups")


def write_private(path: Path, data: bytes) -> None:
    """Write ``path`` atomically, readable by its owner only."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@dataclass(frozen=True, kw_only=True)
class MovedEntry:
    """One server taken out of the client's file."""

    name: str
    #: Its name in Echo Desk's mcp.json.
    echo_name: str
    #: Its own text in the client's file, restored as it was.
    source: str
    #: Its value as parsed (to recognise it if it is already back).
    value: Any
    #: Echo Desk did not have it before (so undo takes it out of mcp.json again).
    added: bool
    fingerprint: str


@dataclass(frozen=True, kw_only=True)
class InstallRecord:
    location_id: str
    client: str
    path: str
    key_path: tuple[str, ...]
    when: str
    #: The file as it was (``""`` when Echo Desk created it) and as Echo Desk wrote it.
    backup: str
    written: str
    before_sha256: str
    after_sha256: str
    #: Echo Desk's entry as written, or ``None`` when the file had one already.
    entry: dict[str, Any] | None
    moved: tuple[MovedEntry, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["key_path"] = list(self.key_path)
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> InstallRecord:
        return cls(**{**raw, "key_path": tuple(raw["key_path"]),
                      "moved": tuple(MovedEntry(**m) for m in raw.get("moved", ()))})


class Records:
    """``location id -> InstallRecord``; each change is saved at once."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or connected_dir()
        self.path = self.folder / _FILE
        self._lock = threading.Lock()

    def _load(self) -> dict[str, InstallRecord]:
        try:
            raw = read_json(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            return {}
        if not isinstance(raw, dict):
            return {}
        out: dict[str, InstallRecord] = {}
        for key, value in raw.items():
            try:
                out[key] = InstallRecord.from_json(value)
            except (TypeError, KeyError):
                continue  # one unreadable record does not hide the others
        return out

    def all(self) -> dict[str, InstallRecord]:
        with self._lock:
            return self._load()

    def get(self, location_id: str) -> InstallRecord | None:
        return self.all().get(location_id)

    def _save(self, records: dict[str, InstallRecord]) -> None:
        data = json.dumps({k: v.to_json() for k, v in records.items()}, indent=1, ensure_ascii=False)
        write_private(self.path, data.encode("utf-8"))

    def put(self, record: InstallRecord) -> None:
        # Another process (the app, the CLI) may be recording too: take turns on the file, so
        # neither writes back what it read before the other's record.
        with self._lock, changing_alone(self.path):
            records = self._load()
            records[record.location_id] = record
            self._save(records)

    def drop(self, location_id: str) -> None:
        with self._lock, changing_alone(self.path):
            records = self._load()
            if records.pop(location_id, None) is not None:
                self._save(records)
