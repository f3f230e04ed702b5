"""The environment a command runs with, as the engine reads it: the one ``run_command`` gives
it (``sandbox.command_environment``, the allow-list of Echo Desk's own: the one definition the
runner spawns with too), with what the line itself gives the command on top (``env NAME=value CMD``,
``env -u NAME``, ``env -i``). Every reader that finds a program's settings or code from a
variable (``$HGRCPATH``, ``$PIP_CONFIG_FILE``, ``$GEMRC``, ``$XDG_CONFIG_HOME``…) asks here,
so ``env HGRCPATH=out/h hg version`` is judged as ``hg version`` run with ``HGRCPATH=out/h`` in its
environment: the file it names counts as hg's settings (proven: a ``[hooks]`` line
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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from echo_desk.sandbox.environment import command_environment


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

    def key(self) -> tuple[tuple[tuple[str, str | None], ...], bool]:
        """What this gives, as a key to keep what was worked out with it by."""
        return tuple(self.values.items()), self.cleared


_GIVEN: ContextVar[Given | None] = ContextVar("echo_desk_line_environment", default=None)
#: The names read while ``reading()`` records (``None``: not recording).
_READ: ContextVar[set[str] | None] = ContextVar("echo_desk_line_environment_read", default=None)
#: The inherited environment held while ``inheriting()`` (``None``: read it at each look-up).
_INHERITED: ContextVar[Mapping[str, str] | None] = ContextVar("echo_desk_inherited_environment", default=None)


def inherited() -> Mapping[str, str]:
    """The environment a command gets before the line gives it anything: what ``run_command``
    passes it (outside the sandbox; inside, ``TMPDIR`` is the sandbox's own ``/tmp``)."""
    held = _INHERITED.get()
    return command_environment() if held is None else held


@contextmanager
def inheriting() -> Iterator[None]:
    """Read the inherited environment once for what is judged inside (one verdict), not at
    every look-up."""
    token = _INHERITED.set(command_environment())
    try:
        yield
    finally:
        _INHERITED.reset(token)


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
    return inherited().get(name, default)


def names() -> list[str]:
    """The names set in the environment the command being judged runs with."""
    current = _GIVEN.get()
    if current is None:
        return list(inherited())
    kept = [] if current.cleared else [n for n in inherited() if n not in current.values]
    return [*kept, *(n for n, v in current.values.items() if v is not None)]


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


def recording() -> bool:
    """Whether the names looked up are being recorded (``reading``): what was worked out from
    them before is worked out again, so they are."""
    return _READ.get() is not None


def values(names: Iterable[str]) -> tuple[tuple[str, str | None], ...]:
    """The values ``names`` have now in the inherited environment (``None``: not set), in one
    order: what a reading kept from before is good for (``programs.read``). Looking them up so
    records them, as ``get`` does."""
    read = _READ.get()
    environment = inherited()
    found = tuple(sorted((name, environment.get(name)) for name in names))
    if read is not None:
        read.update(name for name, _ in found)
    return found


def unread(read: set[str], inert: frozenset[str]) -> list[str]:
    """The names the line gives (not ``inert`` ones) that are not in ``read``."""
    current = _GIVEN.get()
    if current is None:
        return []
    return [name for name in current.values if name not in read and name not in inert]
