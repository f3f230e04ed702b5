"""The audit journal: a call's record, already redacted, appended as one line to a private file
beside the audit database on the caller's own thread (one ``os.write``, ``O_APPEND``), so that
its answer can go at once and still be safe from a crash of this process: what ``write`` returned
is in the kernel's page cache, which outlives the process (as SQLite's WAL commits do with
``synchronous=NORMAL``: neither survives a power cut it was not synced for). The audit writer
folds the records into SQLite in batches as before; the next start replays what it had not.

Each line holds a sequence number; the database keeps the last one folded in the same commit as
the rows, so a replay after a crash mid-fold inserts each record exactly once. A line torn by a
crash or a full disk is skipped (its call was never answered: its answer waited for the write),
and the next line starts on a fresh line. One process owns the journal (an ``flock``, held while
it is open): the app is single-instance, but another process opening the same audit log (a
script using the SDK, the CLI) neither replays nor writes it, and waits for SQLite instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from echo_desk.common.json_encoder import encoder
from echo_desk.store.private import FILE_MODE, private_dir

log = logging.getLogger(__name__)

_encode = encoder(ensure_ascii=False)


def row_text(row: tuple[Any, ...]) -> str:
    """A stored row as the JSON text of its journal line: one encoding of the whole row."""
    return _encode(row)


def journal_path(database: Path | str) -> Path:
    """The journal beside the database ``audit.sqlite3``: ``audit.sqlite3.calls`` (not SQLite's
    own ``-journal``)."""
    return Path(f"{database}.calls")


class Journal:
    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd
        #: Bytes in the file (written, less what was cleared), to skip clearing an empty one.
        self.size = os.fstat(fd).st_size
        #: The last write failed: part of its line may be in the file, so the next one starts
        #: with a newline of its own.
        self._torn = False

    @classmethod
    def open(cls, path: Path) -> Journal | None:
        """The journal at ``path`` (0600, in a 0700 folder), owned by this process; ``None`` when
        another process owns it or it cannot be opened (records then wait for SQLite)."""
        try:
            private_dir(path.parent)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)
        except OSError as exc:
            log.warning("the audit journal %s cannot be opened (%s): answers wait for the database", path, exc)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            log.info("the audit journal %s is another process's: answers wait for the database", path)
            return None
        with contextlib.suppress(OSError):  # an older or hand-made file readable by others
            os.fchmod(fd, stat.S_IMODE(os.fstat(fd).st_mode) & ~0o077)
        return cls(path, fd)

    def write(self, seq: int, row: tuple[Any, ...]) -> bool:
        """Append record ``seq`` (its stored row, redacted and storable: no lone surrogates);
        ``False`` when the disk refused it."""
        return self.write_text(seq, row_text(row))

    def write_text(self, seq: int, text: str) -> bool:
        """``write``, the row given as its ``row_text`` (made before a lock is taken)."""
        line = f'{{"seq": {seq}, "row": {text}}}\n'.encode()
        if self._torn:
            line = b"\n" + line
        error: OSError | None = None
        try:
            written = os.write(self._fd, line)
        except OSError as exc:
            written, error = 0, exc
        if written == len(line):
            self.size += written
            self._torn = False
            return True
        # A short write (a full disk) left part of the line: the next starts on a line of its own.
        self.size += written
        if not self._torn:
            log.warning("an audit record could not be put in the journal (%s): answers wait for the database",
                        error or f"{written} of {len(line)} bytes written")
        self._torn = True
        return False

    def read(self) -> Iterator[tuple[int, tuple[Any, ...]]]:
        """Each whole record in the file, in order: (sequence number, row). Torn lines are skipped."""
        with open(self._fd, "rb", closefd=False) as f:
            f.seek(0)
            data = f.read()
        torn = 0
        for line in data.split(b"\n"):
            if not line:
                continue
            try:
                entry = json.loads(line)
                seq, row = entry["seq"], entry["row"]
                if type(seq) is not int or type(row) is not list:
                    raise ValueError("not a record")
            except (ValueError, KeyError, TypeError):
                torn += 1
                continue
            yield seq, tuple(row)
        if torn:
            log.warning("%d torn line(s) in the audit journal %s were skipped (their calls were never answered)",
                        torn, self.path)

    def clear(self) -> None:
        """Empty the file (everything in it is in the database)."""
        if self.size == 0 and not self._torn:
            return
        try:
            os.ftruncate(self._fd, 0)
        except OSError as exc:  # it is replayed exactly once anyway: only its size grows
            log.warning("the audit journal %s could not be emptied: %s", self.path, exc)
            return
        self.size, self._torn = 0, False

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)  # releases the lock
