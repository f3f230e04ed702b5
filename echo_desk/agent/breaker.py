"""A circuit breaker per tool: stop calling a tool that keeps failing for infrastructure reasons."""

from __future__ import annotations

import enum
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from echo_desk.tools.results import ErrorKind


class BreakerState(enum.StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


@dataclass(frozen=True)
class BreakerStatus:
    state: BreakerState
    consecutive_failures: int
    retry_in_seconds: float
    last_error: str

    @property
    def blocks(self) -> bool:
        return self.state is BreakerState.OPEN


class _Breaker:
    def __init__(self) -> None:
        self.failures = 0
        self.opened_at: float | None = None
        self.probing = False
        self.last_error = ""


class BreakerBoard:
    """All breakers. Thresholds are read on every call so settings changes apply at once.

    Open after ``threshold`` consecutive timeout/dependency/internal failures; after
    ``cooldown`` seconds one probe call is let through (half-open); success closes it.
    """

    def __init__(
        self,
        *,
        threshold: Callable[[], int] = lambda: 3,
        cooldown: Callable[[], float] = lambda: 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._threshold = threshold
        self._cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._breakers: dict[str, _Breaker] = {}

    def status(self, name: str) -> BreakerStatus:
        with self._lock:
            b = self._breakers.get(name)
            if b is None or b.opened_at is None:
                return BreakerStatus(BreakerState.CLOSED, b.failures if b else 0, 0.0, b.last_error if b else "")
            remaining = b.opened_at + self._cooldown() - self._clock()
            if remaining > 0:
                return BreakerStatus(BreakerState.OPEN, b.failures, remaining, b.last_error)
            return BreakerStatus(BreakerState.HALF_OPEN, b.failures, 0.0, b.last_error)

    def try_acquire(self, name: str) -> bool:
        """Whether a call may go ahead now. In half-open, only one probe at a time."""
        with self._lock:
            b = self._breakers.get(name)
            if b is None or b.opened_at is None:
                return True  # closed: the usual case, without building a status
        status = self.status(name)
        if status.state is BreakerState.CLOSED:
            return True
        if status.state is BreakerState.OPEN:
            return False
        with self._lock:
            b = self._breakers[name]
            if b.probing:
                return False
            b.probing = True
            return True

    def record(self, name: str, error_kind: ErrorKind | None, error: str = "") -> None:
        """Book the outcome of a call that ran (``None`` = success)."""
        with self._lock:
            b = self._breakers.setdefault(name, _Breaker())
            was_probe = b.probing
            b.probing = False
            if error_kind is None:
                b.failures = 0
                b.opened_at = None
                b.last_error = ""
                return
            if not error_kind.counts_toward_breaker:
                if was_probe:
                    # The tool answered: the infrastructure is back.
                    b.failures = 0
                    b.opened_at = None
                return
            b.failures += 1
            b.last_error = error
            if was_probe or b.failures >= self._threshold():
                b.opened_at = self._clock()

    def release_probe(self, name: str) -> None:
        """A probe that never ran (e.g. the person denied it) frees the slot."""
        with self._lock:
            b = self._breakers.get(name)
            if b is not None:
                b.probing = False

    def reset(self, name: str) -> None:
        with self._lock:
            self._breakers.pop(name, None)
