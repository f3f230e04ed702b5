"""meson's commands that run a program the line names, read so a rule naming meson (``meson
**``) trusts meson to configure, build and test the project, not the programs these run (s164;
meson is not installed here: read from its documentation, meson 1.x):

- ``meson devenv [-C DIR] [--workdir DIR] [--dump [FILE]] [COMMAND…]`` runs COMMAND (with none:
  an interactive shell, reading commands from its input) in the project's developer
  environment, whose ``PATH`` leads first to the build folders holding programs: the command
  is judged in its own right, and a rule covers the changed environment only by naming
  ``devenv``; ``--dump FILE`` writes the environment to FILE;
- ``meson test --wrapper W`` (``--wrap``) runs every test under the program W, ``--gdb`` under
  gdb (which runs ./.gdbinit), ``--gdb-path P`` under the program P: a rule covers them only
  by naming them (argparse takes any unique prefix: ``--wra``);
- ``meson subprojects foreach [options] COMMAND…`` runs COMMAND in each subproject's folder, a
  ``cd`` the line does not show: judged in its own right, and covered only by naming
  ``foreach``;
- ``meson install --destdir D`` installs below D, taken from the folder ``-C`` names (meson
  changes into it first: ``meson install -C b --destdir dd`` wrote b/dd/…; strace, meson 1.12,
  bash and dash, s240): judged as a write below that folder, as cmake's ``--install --prefix``
  is (a plain install writes below the folders the build folder recorded: ``install_records``
  reads them, s280);
- ``meson setup``/``meson configure`` record the install folders (``--prefix P``, ``-Dprefix=P``,
  ``--bindir D``…) in the build folder, where a later plain ``meson install`` writes without
  naming them (``meson setup --prefix ~ b mproj && meson install -C b`` wrote ~/share/d.txt:
  strace, meson 1.12, bash and dash, s273): judged as writes below them, as cmake's
  ``-DCMAKE_INSTALL_PREFIX`` is; a relative folder lies below the prefix, one only known when
  it runs (``configure --libdir lib``: below the prefix recorded before) asks;
- ``meson runpython [-c] SCRIPT|CODE`` runs Python (a script, or the code ``-c`` gives) with
  meson's own interpreter, and ``meson --internal …`` meson's internal commands (``exe`` runs
  a program): a rule covers them only by naming them.

Any other meson line reads as before: a program whose words the engine does not know, with
its build files (``settings_files``) and the machine files ``--native-file``/``--cross-file``
name (they name the compilers and tools it runs) counting as its code, and the pickles of
its build folder (``meson-private/*.dat``, loaded by every command on it: ``program_options``).
"""

from __future__ import annotations

import os

from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading

__all__ = ["meson_reading"]

_UNKNOWN_WORD = Flag(frozenset(), "", None)  # a word only known when the line runs
#: meson's own options before its command (``-v``/``--version``, ``-h``/``--help``).
_GLOBAL_FLAGS = frozenset({"-v", "--version", "-h", "--help"})
#: devenv's options that take a value (``-C DIR``, ``--workdir=DIR``; ``-w`` is --workdir).
_DEVENV_VALUES = ("-C", "-w", "--workdir", "--dump-format")
_DEVENV_FLAGS = ("-h", "--help")
#: meson test's options that run a program around each test.
_TEST_RUNS = ("--wrapper", "--gdb", "--gdb-path")
#: meson subprojects foreach's options (``--types T``, ``--num-processes N``, ``--sourcedir D``).
_FOREACH_VALUES = ("--sourcedir", "--types", "--num-processes")
_FOREACH_FLAGS = ("--allow-insecure", "-h", "--help")
#: meson's commands (1.12; any other first word is setup's build folder).
_COMMANDS = frozenset({"setup", "configure", "dist", "install", "introspect", "init", "test", "wrap", "subprojects",
                       "rewrite", "compile", "devenv", "env2mfile", "reprotest", "format", "fmt", "help", "runpython"})
#: The install folders setup and configure record in the build folder (``--NAME V`` or ``-D
#: NAME=V``), where a later ``meson install`` writes without naming them; the others are
#: below the prefix when relative (meson 1.12's built-in options).
_RECORDED_FOLDERS = frozenset({
    "prefix", "bindir", "datadir", "includedir", "infodir", "libdir", "licensedir", "libexecdir", "localedir",
    "localstatedir", "mandir", "sbindir", "sharedstatedir", "sysconfdir", "python.platlibdir", "python.purelibdir",
})


def meson_reading(argv: Argv, program: str) -> Reading:
    """``meson COMMAND …`` read by its command (see the module doc)."""
    at = 1
    while at < len(argv):
        word = argv[at]
        if word is None:
            return Reading(program, flags=(_UNKNOWN_WORD,), known=False)
        if word in _GLOBAL_FLAGS:
            at += 1
            continue
        if word.startswith("-"):
            # (`--internal exe …` runs a program; any other option meson may add is not known)
            return Reading(program, flags=(Flag(frozenset({word}), word, None),), known=False)
        break
    command = argv[at] if at < len(argv) else None
    if command == "devenv":
        return _devenv(argv, program, at + 1)
    if command == "test":
        return _test(argv, program, at + 1)
    if command == "install":
        return Reading(program, known=False, written_below=_install_folders(argv[at + 1:]))
    if command == "subprojects" and at + 1 < len(argv) and argv[at + 1] in ("foreach", None):
        return _foreach(argv, program, at + 2)
    if command == "runpython":
        return Reading(program, flags=(Flag(frozenset({command}), command, None),), known=False)
    if command in ("setup", "configure") or command not in _COMMANDS:
        # (`meson BUILD` without a command is setup, as it was once spelled)
        start = at + 1 if command in ("setup", "configure") else at
        return Reading(program, known=False, written_below=recorded_install_folders(argv[start:]))
    return Reading(program, known=False)


def _devenv(argv: Argv, program: str, start: int) -> Reading:
    found = [Flag(frozenset({"devenv"}), "devenv", Does.CONFIG)]
    written: list[str | None] = []
    at = start
    while at < len(argv):
        word = argv[at]
        if word is None:
            return Reading(program, flags=(*found, _UNKNOWN_WORD), unreadable=True)
        if not word.startswith("-"):
            break
        if word == "--":
            at += 1
            break
        name, equals, value = word.partition("=")
        if name == "--dump":
            # An optional value: glued, or the next word when it is no option.
            following = argv[at + 1] if at + 1 < len(argv) and not equals else "-"
            if equals or following is None or not following.startswith("-"):
                written.append(value if equals else following)
                at += not equals
            at += 1
            continue
        if word in _DEVENV_FLAGS:
            at += 1
            continue
        if word in _DEVENV_VALUES or (word[:2] in ("-C", "-w") and len(word) > 2) or (equals and name in _DEVENV_VALUES):
            at += 1 + (word in _DEVENV_VALUES)
            continue
        # argparse takes a prefix of a long option, and later versions add options: not known here.
        return Reading(program, flags=(*found, Flag(frozenset({word}), word, None)), unreadable=True)
    inners = (Inner(start=at),) if at < len(argv) else ()
    # With no command it starts an interactive shell, which reads its commands from its input.
    return Reading(program, flags=tuple(found), inners=inners, known=False, written=tuple(written),
                   commands_from_input=not inners)


def _test(argv: Argv, program: str, start: int) -> Reading:
    found: list[Flag] = []
    for word in argv[start:]:
        if word is None:
            found.append(_UNKNOWN_WORD)
            continue
        if word == "--":
            break
        name = word.partition("=")[0]
        if name.startswith("--") and len(name) > 2 and any(o.startswith(name) for o in _TEST_RUNS):
            found.append(Flag(frozenset({name}), word, Does.RUNS))
    return Reading(program, flags=tuple(found), known=False)


def recorded_install_folders(words: Argv) -> tuple[str | None, ...]:
    """The folders a configure records for later installs among ``words`` (see
    ``_RECORDED_FOLDERS``): the prefix, and each other install folder, below the prefix when
    relative (``None``: a folder only known when it runs, a relative one with no prefix on the
    line, the build's own recorded prefix then, or a word only known when it runs, which may
    be any option)."""
    given: list[tuple[str, str | None]] = []
    k = 0
    while k < len(words):
        word = words[k]
        following = words[k + 1] if k + 1 < len(words) else None
        k += 1
        if word is None:
            given.append(("prefix", None))
            continue
        if word == "--":
            break
        if word == "-D" or (word.startswith("-D") and len(word) > 2):
            setting = word[2:] if len(word) > 2 else following
            k += word == "-D"
            if setting is None:
                given.append(("prefix", None))
                continue
            key, equals, value = setting.partition("=")
            # (`sub:prefix` for a subproject, `build.prefix` for the build machine's)
            key = key.rpartition(":")[2].removeprefix("build.")
            if equals and key in _RECORDED_FOLDERS:
                given.append((key, _glued(value)))
            continue
        name, equals, value = word.partition("=")
        if name.startswith("--") and name[2:] in _RECORDED_FOLDERS:
            given.append((name[2:], _glued(value) if equals else following))
            k += not equals
    prefixes = [v for n, v in given if n == "prefix"]
    folders: list[str | None] = list(prefixes)
    for option, folder in given:
        if option == "prefix":
            continue
        if folder is None:
            folders.append(None)
        elif os.path.isabs(folder):
            folders.append(folder)
        else:
            folders += [None if p is None else os.path.join(p, folder) for p in prefixes] or [None]
    return tuple(dict.fromkeys(folders))


def _glued(value: str) -> str | None:
    """A folder glued to its option by ``=``: a leading ``~`` there is expanded by bash in some
    words and by dash in none, so where it leads is only known when it runs."""
    return None if value.startswith("~") else value


def _install_folders(words: Argv) -> tuple[str | None, ...]:
    """The folders ``meson install``'s ``--destdir`` values name, from the folder its ``-C``
    leads to (the last ``-C``, argparse's). ``None``: a word only known when it runs, or a group
    of short options, any of which may be either."""
    moved: str | None = ""
    named: list[str | None] = []
    k = 0
    while k < len(words):
        word = words[k]
        following = words[k + 1] if k + 1 < len(words) else None
        if word is None:
            named.append(None)
        elif word == "--":
            break
        elif word in ("-C", "--destdir", "--tags"):
            if word == "-C":
                moved = following
            elif word == "--destdir":
                named.append(following)
            k += 1
        elif word.startswith("--destdir="):
            named.append(word.partition("=")[2])
        elif word.startswith("-C"):
            moved = word[2:]
        elif word.startswith("-") and not word.startswith("--") and "C" in word:
            moved = None  # (`-qC b`: a group of short options, not read here)
        k += 1
    if moved is None:
        return (None,) if named else ()
    return tuple(None if d is None else os.path.join(moved, d) for d in named)


def _foreach(argv: Argv, program: str, start: int) -> Reading:
    found = [Flag(frozenset({"foreach"}), "foreach", Does.CONFIG)]
    at = start
    while at < len(argv):
        word = argv[at]
        if word is None:
            return Reading(program, flags=(*found, _UNKNOWN_WORD), unreadable=True)
        if not word.startswith("-"):
            break
        if word in _FOREACH_FLAGS:
            at += 1
        elif word in _FOREACH_VALUES:
            at += 2
        elif word.partition("=")[0] in _FOREACH_VALUES:
            at += 1
        else:
            return Reading(program, flags=(*found, Flag(frozenset({word}), word, None)), unreadable=True)
    inners = (Inner(start=at),) if at < len(argv) else ()
    return Reading(program, flags=tuple(found), inners=inners, known=False)
