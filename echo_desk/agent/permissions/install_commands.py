"""Which commands are the install step of a build folder (``install_records``), and what each
gives it: the build folder as written, the variables it sets for the record (make's on the line,
``--prefix`` for ``cmake --install --prefix``), and a ``DESTDIR`` of its own.

- ``meson install [-C B] [--destdir D]`` (the folder ``--destdir`` names is judged by
  ``meson_modes`` too; meson then leaves the environment's ``DESTDIR`` aside);
- ``ninja [-C B] install`` and ``make [-C B] install`` (or another install target: cmake's
  ``install/strip``, automake's ``install-data``…, or ``uninstall``, which deletes below the same
  folders), with no ``-f`` naming another build file;
- ``cmake --install B``, ``cmake --build B --target install`` and ``cmake --build B -- install``
  (the words after ``--`` go to make or ninja, ``DESTDIR=…`` among them); ``cmake --install B
  --component C`` with a ``/`` in C is only known when it runs (its manifest is written there).
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

__all__ = ["PREFIX_NAMED", "Step", "install_step"]

#: Targets that install (cmake's ``install/local``, ``install/strip``; automake's
#: ``install-exec``, ``install-data``, ``install-strip``, ``installdirs``…), or uninstall: they
#: delete below the same folders (``make uninstall`` on a folder configured for ~/.local deleted
#: the person's ~/.local/share/d.txt: automake 1.16.5, make 4.3, bash and dash, s330).
_INSTALL_TARGET = re.compile(r"(?:un)?install[\w/-]*")
#: ninja's options that take a value (glued, or the next word).
_NINJA_VALUES = frozenset("Cfjkldtw")
#: Set (to P) for ``cmake --install --prefix P``: the destinations below the prefix are below P.
PREFIX_NAMED = "--prefix"


class Step(NamedTuple):
    """An install step: its build folder as written (``None``: only known when it runs), the
    variables it sets for the record, and a ``DESTDIR`` it gives (``None``: none given here)."""

    build: str | None
    overrides: dict[str, str]
    destdir: str | None


def install_step(program: str, words: list[str | None]) -> Step | None:
    """Whether ``program words…`` is an install step: its build folder as written (``None``:
    only known when it runs), the variables it sets for the record (``prefix``, make's on the
    line), and a ``DESTDIR`` it gives (``None``: none given here)."""
    if None in words and _may_install(program, words):
        return Step(None, {}, None)  # (a word only known when it runs may be `install`, or `-C x`)
    plain = [w for w in words if w is not None]
    if program == "meson":
        return _meson_step(plain)
    if program == "ninja":
        return _ninja_step(plain)
    if program == "make":
        return _make_step(plain)
    if program == "cmake":
        return _cmake_step(plain)
    return None


def _may_install(program: str, words: list[str | None]) -> bool:
    """Whether a command holding a word only known when it runs may be an install step."""
    if program in ("ninja", "make"):
        return True
    first = words[0] if words else ""
    if program == "cmake":
        return first in ("--install", "--build", None)
    command = next((w for w in words if w is None or not w.startswith("-")), "")
    return program == "meson" and command in ("install", None)


def _meson_step(words: list[str]) -> Step | None:
    command = next((w for w in words if not w.startswith("-")), None)
    if command != "install":
        return None
    build = "."
    destdir: str | None = None
    rest = words[words.index(command) + 1:]
    for k, word in enumerate(rest):
        if word == "--":
            break
        following = rest[k + 1] if k + 1 < len(rest) else None
        if word == "--destdir":
            destdir = following or ""  # (the last one, argparse's)
        elif word.startswith("--destdir="):
            destdir = word.partition("=")[2]
        elif word == "-C":
            build = following or ""
        elif word.startswith("-C"):
            build = word[2:]
        elif word.startswith("-") and not word.startswith("--") and "C" in word:
            return Step(None, {}, None)  # (`-qC b`: a group of short options, not read here)
    return Step(build, {}, destdir)


def _ninja_step(words: list[str]) -> Step | None:
    build = "."
    targets: list[str] = []
    named_file = False
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "--":
            targets += words[k:]
            break
        if word.startswith("-") and len(word) > 1 and word[1] in _NINJA_VALUES:
            value = word[2:] or (words[k] if k < len(words) else "")
            k += not word[2:]
            if word[1] == "t":
                return None  # a tool (`-t clean`), not a build
            named_file = named_file or word[1] == "f"
            if word[1] == "C":
                build = os.path.join(build, value)  # (each -C from the folder the last one led to)
        elif not word.startswith("-"):
            targets.append(word)
    if not any(_INSTALL_TARGET.fullmatch(t) for t in targets):
        return None
    # (another build file -f names: its install target is its own)
    return Step(None, {}, None) if named_file else Step(build, {}, None)


def _make_step(words: list[str]) -> Step | None:
    from echo_desk.agent.permissions import program_options as table
    from echo_desk.agent.permissions.options import read_options

    parsed = read_options(words, table.MAKE)
    build = "."
    for seen in parsed.seen:
        if seen.option is not None and "-C" in seen.option.names:
            build = os.path.join(build, seen.value or "")
    makefile = any(seen.option is not None and "-f" in seen.option.names for seen in parsed.seen)
    variables: dict[str, str] = {}
    targets: list[str] = []
    for _, word in parsed.operands:
        name, equals, value = (word or "").partition("=")
        if equals and re.fullmatch(r"[A-Za-z_][\w.]*", name.rstrip(":+?")):
            variables[name.rstrip(":+?")] = value
        else:
            targets.append(word or "")
    if not any(_INSTALL_TARGET.fullmatch(t) for t in targets):
        return None
    if makefile:
        return Step(None, {}, None)  # (another makefile: its install target is its own)
    return Step(build, variables, variables.pop("DESTDIR", None))


def _cmake_step(words: list[str]) -> Step | None:
    if not words or words[0] not in ("--install", "--build") or len(words) < 2:
        return None
    build, rest = words[1], words[2:]
    if words[0] == "--install":
        component = _value_of(rest, "--component")
        if component is not None and "/" in component:
            # (cmake 3.25 writes the manifest as install_manifest_<C>.txt in the build folder, so
            # a `/` leads it elsewhere: `--component /../../../../evil` wrote ~/evil.txt, s330)
            return Step(None, {}, None)
        # (below a prefix it names: judged by cmake_modes; the absolute destinations still count)
        prefix = _value_of(rest, "--prefix")
        return Step(build, {} if prefix is None else {PREFIX_NAMED: prefix}, None)
    targets: list[str] = []
    native: dict[str, str] = {}
    for k, word in enumerate(rest):
        if word == "--":
            # (the words after it go to make or ninja: `cmake --build b -- install` installs, and
            # make takes `DESTDIR=…` there)
            for given in rest[k + 1:]:
                name, equals, value = given.partition("=")
                if equals:
                    native[name] = value
                elif not given.startswith("-"):
                    targets.append(given)
            break
        if word in ("--target", "-t"):
            targets += [w for w in rest[k + 1:] if not w.startswith("-")][:64]
        elif word.startswith(("--target=", "-t")) and word != "-t":
            targets.append(word.partition("=")[2] if word.startswith("--target=") else word[2:])
    if not any(_INSTALL_TARGET.fullmatch(t) for t in targets):
        return None
    return Step(build, {}, native.get("DESTDIR"))


def _value_of(words: list[str], option: str) -> str | None:
    for k, word in enumerate(words):
        if word == option:
            return words[k + 1] if k + 1 < len(words) else ""
        if word.startswith(option + "="):
            return word.partition("=")[2]
    return None
