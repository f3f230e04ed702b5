"""A sandboxed command's check, kept so that it can be made after a restart.

The guard's snapshot (``guard``) lives in memory: if Echo Desk is killed while the command runs,
or quits before a late check (``run_command``) ended, nothing compares what the command left with
it. So the snapshot, with the placeholders the command had, is made into bytes before the
command starts (``owed``); the caller keeps them in its store, and the next start makes the
check from them (``check_owed``): the placeholders still empty are removed, what was planted is
put aside or back, as the check at the command's end would have done.

The bytes are a pickle of the guard's own values. They are Echo Desk's own, kept in its private
data folder; still, reading them back admits only the classes a snapshot is made of (an
allow-list, so a changed file cannot name any other callable), and a snapshot that does not read
back is an error for the caller to tell (the check could not be made).
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from echo_desk.sandbox import placeholders as placeholders_module
from echo_desk.sandbox.guard import Guard
from echo_desk.sandbox.owed_failure import OwedFailure
from echo_desk.tools.planted import Planted

#: Changed when what a snapshot holds changes: an older one is not read as a newer one.
FORMAT = 1

_ALLOWED = frozenset({
    ("echo_desk.sandbox.guard", "Guard"),
    ("echo_desk.sandbox.guard", "_State"),
    ("echo_desk.sandbox.guard", "_Print"),
    ("echo_desk.sandbox.inventory", "Inventory"),
    ("echo_desk.sandbox.inventory", "Watched"),
    ("echo_desk.sandbox.repositories", "Found"),
    ("echo_desk.sandbox.repositories", "GitEntry"),
    ("echo_desk.sandbox.placeholders", "Placeholder"),
    ("pathlib", "PosixPath"),
    ("pathlib", "Path"),
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("copyreg", "_reconstructor"),
    ("builtins", "object"),
})


class UnreadableSnapshot(ValueError):
    """A kept snapshot that does not read back as one (``kind``: refused, another version's, or damaged)."""

    def __init__(self, kind: OwedFailure, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


class _Refused(pickle.UnpicklingError):
    """A snapshot naming a class that is not one of a snapshot's."""


def owed(guards: Sequence[Guard], placeholders: Sequence[placeholders_module.Placeholder]) -> bytes:
    """A launch's snapshot and placeholders as bytes, for ``check_owed`` after a restart."""
    return pickle.dumps((FORMAT, tuple(guards), tuple(placeholders)), protocol=pickle.HIGHEST_PROTOCOL)


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise _Refused(f"{module}.{name} is not part of a sandbox snapshot")
        return super().find_class(module, name)


def _read(data: bytes) -> tuple[tuple[Guard, ...], tuple[placeholders_module.Placeholder, ...]]:
    try:
        value = _Unpickler(io.BytesIO(data)).load()
    except _Refused as exc:
        raise UnreadableSnapshot(OwedFailure.REFUSED, str(exc)) from exc
    except Exception as exc:  # any other failure to read it back: the row is damaged
        raise UnreadableSnapshot(OwedFailure.UNREADABLE, str(exc)) from exc
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[0], int) and value[0] != FORMAT:
        raise UnreadableSnapshot(OwedFailure.OTHER_VERSION, f"a snapshot of format {value[0]}, not {FORMAT}")
    if (not isinstance(value, tuple) or len(value) != 3 or value[0] != FORMAT
            or not isinstance(value[1], tuple) or not isinstance(value[2], tuple)
            or not all(isinstance(g, Guard) for g in value[1])
            or not all(isinstance(p, placeholders_module.Placeholder) for p in value[2])):
        raise UnreadableSnapshot(OwedFailure.UNREADABLE, "not a sandbox snapshot")
    return value[1], value[2]


def check_owed(data: bytes) -> tuple[Planted, ...]:
    """Make the check ``data`` (``owed``'s) was kept for, once nothing of its sandbox runs (after
    a restart: a killed Echo Desk's sandboxes died with it, ``--die-with-parent``). Its empty
    placeholders go first, then, as ``Launch.check`` does, what was planted is put aside or back;
    each entry names its workspace when there were several. ``UnreadableSnapshot``: no check."""
    guards, placed = _read(data)
    placeholders_module.remove_left(list(placed))
    # Left alone, as ``Launch.check`` does: what is in one of its placeholders (read-only for the
    # command), and a placeholder a command of this process has mounted.
    skip = frozenset(str(p.path) for p in placed) | frozenset(str(p) for p in placeholders_module.in_use())
    several = len(guards) > 1
    return tuple(replace(p, workspace=str(g.workspace)) if several else p
                 for g in guards for p in g.after(skip=skip))
