"""Records a store could not write (a full disk, a read-only folder), held in memory until a
later write fits: one bound for every store that holds them (the audit log, the change log)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")

#: Beyond this many waiting records the oldest are given up (each is a few hundred bytes).
MOST_HELD_BACK = 10_000


def hold(waiting: list[T], most: int = MOST_HELD_BACK) -> tuple[list[T], int]:
    """The records to keep waiting, in order (the newest ``most``), and how many are given up."""
    return waiting[-most:], max(0, len(waiting) - most)
