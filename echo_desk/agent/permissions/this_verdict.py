"""What the disk says, looked at once a verdict: a line is looked at many times while it is
judged (each command's forms, its part, its rule, its writes, the rule-suggestion trials), and
each time its readers looked at the same files again (git's settings files; the package.json of
every folder above the one the line runs in, 48 times a verdict for a dozen commands).

Nothing on disk changes while a line is judged: a line that writes a file is judged against the
file as it is (what it writes is the write rules' business, and a settings file the agent may
write makes the command reading it ask), so the answer kept is the one looked up again. Never
kept across verdicts: the files may change between them. Outside a verdict every look-up looks."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TypeVar, cast

_T = TypeVar("_T")

#: What was looked up in the verdict being worked out (``looking_once``), by key: the answer,
#: or the error looking raised.
_THIS_VERDICT: ContextVar[dict[Hashable, object] | None] = ContextVar("echo_desk_this_verdict", default=None)


@contextmanager
def looking_once() -> Iterator[None]:
    """Keep what is looked up inside (one verdict) for the rest of it."""
    if _THIS_VERDICT.get() is not None:
        yield  # (a verdict worked out inside another: the same files)
        return
    token = _THIS_VERDICT.set({})
    try:
        yield
    finally:
        _THIS_VERDICT.reset(token)


def remembered(key: Hashable, look: Callable[[], _T]) -> _T:
    """``look()``, once a verdict for ``key`` (which names both what is looked at and how);
    an ``OSError`` it raises is kept too, and raised again (a new one of the same type) each
    time it is asked for."""
    memo = _THIS_VERDICT.get()
    if memo is None:
        return look()
    if key not in memo:
        try:
            memo[key] = look()
        except OSError as error:
            memo[key] = error
    found = memo[key]
    if isinstance(found, OSError):
        raise type(found)(*found.args)  # (a new one: the one kept is not raised again)
    return cast("_T", found)


def exists(path: Path) -> bool:
    """``path.exists()``, once a verdict (its errors too: ``Path.exists`` raises on some)."""
    return remembered(("exists", path), path.exists)
