"""The environment a command runs with, as the engine reads it: the one the commands inherit
from Echo Desk, with what the line itself gives the command on top (``env NAME=value CMD``,
``env -u NAME``, ``env -i``). Every reader that finds a program's settings or code from a
variable (``$HGRCPATH``, ``$PIP_CONFIG_FILE``, ``$GEMRC``, ``$XDG_CONFIG_HOME``…) asks here,
so ``env HGRCPATH=out/h hg version`` is judged as ``hg version`` run by an Echo Desk started
with ``HGRCPATH=out/h``: the file it names counts as hg's settings (proven: a ``[hooks]`` line
there ran under ``hg version``). A rule that names the assignment (``env HGRCPATH=* hg **``)
trusts the variable, not every file it may name, as a rule naming a program trusts the
program, not every settings file it reads.

A variable the line gives that no reader looked at, while the engine judged where the command
reads its settings, is one the engine does not know the meaning of for that program
(``RUBYOPT=-rout/x`` loads out/x.rb into ``gem``, ``PYTHONPATH=out`` runs out/sitecustomize.py
under ``pytest``, ``npm_config_script_shell``…): ``unread`` gives them, and for a program the
engine judges by its settings files they count as naming any file (see ``shell_verdict``).
The inert names (``LANG``, ``COLUMNS``… ``shell.INERT_ASSIGNMENTS``) are not counted.

The line's variables are held for the judging of the command they are given to (a context
variable), also through the wrappers and shells it runs (``env A=x nice gem``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Given:
    """What a line gives a command: ``values`` (``None``: unset by ``env -u``), ``cleared``:
    the rest of the environment is dropped (``env -i``)."""

    values: Mapping[str, str | None] = field(default_factory=dict)
    cleared: bool = False

    def then(self, inner: Given) -> Given:
        """This environment with ``inner`` given on top (``env A=1 env B=2 CMD``)."""
        if inner.cleared:
            return inner
        return Given({**self.values, **inner.values}, self.cleared)


_GIVEN: ContextVar[Given | None] = ContextVar("echo_desk_line_environment", default=None)
#: The names read while ``reading()`` records (``None``: not recording).
_READ: ContextVar[set[str] | None] = ContextVar("echo_desk_line_environment_read", default=None)


def get(name: str, default: str = "") -> str:
    """The value of ``name`` in the environment the command being judged runs with (as
    ``os.environ.get``; ``default`` when it has none)."""
    read = _READ.get()
    if read is not None:
        read.add(name)
    given = _GIVEN.get()
    if given is not None:
        if name in given.values:
            value = given.values[name]
            return default if value is None else value
        if given.cleared:
            return default
    return os.environ.get(name, default)


def names() -> list[str]:
    """The names set in the environment the command being judged runs with."""
    current = _GIVEN.get()
    if current is None:
        return list(os.environ)
    inherited = [] if current.cleared else [n for n in os.environ if n not in current.values]
    return [*inherited, *(n for n, v in current.values.items() if v is not None)]


def given() -> Given | None:
    """What the line gives the command being judged, if anything."""
    return _GIVEN.get()


@contextmanager
def giving(assignments: Sequence[tuple[str, str | None]], cleared: bool = False) -> Iterator[None]:
    """Judge what runs inside with ``assignments`` (``NAME``, value or ``None`` to unset) on
    top of the environment already given (``cleared``: with nothing else)."""
    outer = _GIVEN.get()
    mine = Given(dict(assignments), cleared)
    token = _GIVEN.set(outer.then(mine) if outer is not None else mine)
    try:
        yield
    finally:
        _GIVEN.reset(token)


@contextmanager
def reading() -> Iterator[set[str]]:
    """Record the names the readers look up inside (the set is filled as they do); a record
    already under way gets them too."""
    names: set[str] = set()
    outer = _READ.get()
    token = _READ.set(names)
    try:
        yield names
    finally:
        _READ.reset(token)
        if outer is not None:
            outer |= names


def values(names: Iterable[str]) -> tuple[tuple[str, str | None], ...]:
    """The values ``names`` have now in Echo Desk's own environment (``None``: not set), in
    one order: what a reading kept from before is good for (``programs.read``). Looking
    them up so records them, as ``get`` does."""
    read = _READ.get()
    found = tuple(sorted((name, os.environ.get(name)) for name in names))
    if read is not None:
        read.update(name for name, _ in found)
    return found


def unread(read: set[str], inert: frozenset[str]) -> list[str]:
    """The names the line gives (not ``inert`` ones) that are not in ``read``."""
    current = _GIVEN.get()
    if current is None:
        return []
    return [name for name in current.values if name not in read and name not in inert]
