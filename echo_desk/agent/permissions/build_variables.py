"""Variables by which a build tool reads code that no build file names (s172, each proven with
make 4.3 and cmake 3.25 under bash and dash):

- make reads every makefile ``MAKEFILES`` names before its own, as ``-include`` would (looked
  for in the folder it runs in, then its include folders), and takes options from
  ``MAKEFLAGS`` (``GNUMAKEFLAGS``): ``-I out`` makes ``include x.mk`` read out/x.mk,
  ``--eval=…`` runs make code, ``VAR=value`` sets any variable (``SHELL``). ``cmake --build``
  runs make on the build folder's Makefile, so these count for cmake too.
- cmake's ``-D NAME=VALUE`` sets a cache variable, and many of them name code it runs:
  ``CMAKE_TOOLCHAIN_FILE``, ``CMAKE_PROJECT_INCLUDE`` (``_BEFORE``, ``<name>_INCLUDE``),
  ``CMAKE_PROJECT_TOP_LEVEL_INCLUDES``, ``CMAKE_MODULE_PATH``, and the folders
  ``find_package`` looks for a package's Config.cmake in (``<Pkg>_DIR``, ``<Pkg>_ROOT``,
  ``CMAKE_PREFIX_PATH``…). Which names do is cmake's to grow, so every value counts: the file
  it names and any file below it (a value that names no file on disk counts for nothing).
- cmake reads from its environment ``CMAKE_TOOLCHAIN_FILE``, the search paths
  ``CMAKE_PREFIX_PATH``, ``CMAKE_FRAMEWORK_PATH``, ``CMAKE_APPBUNDLE_PATH``, and each package's
  ``<Pkg>_DIR`` and ``<Pkg>_ROOT`` (its manual, find_package).
- cmake runs the compilers its environment names while it configures (``CC``, ``CXX``… and
  their flags, which may name a plugin or a folder of tools: cmake-env-variables(7)), and the
  launchers ``CMAKE_<LANG>_COMPILER_LAUNCHER``/``_LINKER_LAUNCHER`` (s195, proven with cmake
  3.25: ``CC`` and ``CMAKE_C_COMPILER_LAUNCHER`` naming out/x ran it under ``cmake -S . -B b``).
  Every word of their values holding a ``/`` counts as a path; a bare name is found on the PATH.
- ``find_package`` looks in the folders the user package registry names: each file of
  ``$HOME/.cmake/packages/<Pkg>/`` holds one (s195, proven: the Config.cmake of the folder an
  entry named ran). Those folders count, and the registry itself, where new entries may be put.

The environment read is the one Echo Desk runs in, which its commands inherit, with what a
wrapper on the line gives the command (``env MAKEFILES=… make``: ``line_environment``). A plain
assignment before the command (``MAKEFILES=out/x.mk make``, ``export …; make``) is not read
here: the engine already asks for any assignment that is not one of the few inert ones.

- ``find_package`` looks for a package's Config.cmake below the prefix of every folder of the
  ``PATH`` (the folder, or its parent for one ending in ``bin`` or ``sbin``): in its ``lib*/``,
  ``share/`` and any ``<name>*/`` folder (cmake's manual, the search procedure). Proven (s207,
  cmake 3.25, bash and dash): with ``~/.local/bin`` on the PATH, a
  ``~/.local/lib/cmake/Foo/FooConfig.cmake`` ran under ``cmake -S . -B b`` for a
  ``find_package(Foo CONFIG)``; with ``~/bin``, a ``~/foo-x/share/foo/foo-config.cmake`` did.
  The package's name is the CMakeLists' to choose, so every folder of those shapes counts
  (``package_folders``), whatever its name.
- make takes every variable of its environment as a make variable, and its built-in rules run
  the programs ``CC``, ``CXX``, ``AS``… name with the flags ``CFLAGS``, ``LDFLAGS``… hold, with no
  makefile at all (s207, proven with make 4.3 under bash and dash: Echo Desk's environment
  holding ``CC=out/x``, ``make foo`` beside a foo.c ran out/x; a makefile's ``$(CC)`` does the
  same). Every word holding a ``/`` of those variables counts as a program, as cmake's compilers.

What this is not: a build runs the programs its build files and these variables name by a bare
name (``CC=gcc``, a launcher); those are found on the PATH, which the engine judges elsewhere.
A makefile's own variables other than those of the built-in rules (a recipe's ``$(TOOL)``,
taken from the environment too) are not read here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.agent.permissions import line_environment
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import Does, read_options

__all__ = ["Named", "cmake_settings", "named"]

#: make's variables holding the options it takes from its environment.
_MAKE_FLAG_VARIABLES = ("MAKEFLAGS", "GNUMAKEFLAGS")
#: Options make itself writes into MAKEFLAGS for the makes a recipe starts (the jobserver's
#: pipe): they read no file.
_MAKE_OWN_OPTIONS = frozenset({"--jobserver-auth", "--jobserver-fds"})
#: cmake's environment variables naming a code file or folders it searches for packages'
#: Config.cmake files (a list, split as the PATH is).
_CMAKE_PATH_VARIABLES = ("CMAKE_TOOLCHAIN_FILE", "CMAKE_PREFIX_PATH", "CMAKE_FRAMEWORK_PATH", "CMAKE_APPBUNDLE_PATH")
#: The endings of a package's own variables: ``<Pkg>_DIR``, ``<Pkg>_ROOT``.
_CMAKE_PACKAGE_SUFFIXES = ("_DIR", "_ROOT")
#: cmake's environment variables naming a language's compiler, or its flags
#: (cmake-env-variables(7), "Environment Variables for Languages"; ``ASM<DIALECT>``:
#: ``ASM``, ``ASM_NASM``, ``ASM-ATT``…), and the launchers it runs them with.
_CMAKE_COMPILER_VARIABLES = re.compile(
    r"(CC|CXX|CUDACXX|CUDAHOSTCXX|FC|HIPCXX|ISPC|OBJC|OBJCXX|RC|SWIFTC|ASM[-_A-Z]*)(FLAGS)?|CFLAGS|CSFLAGS|LDFLAGS"
    r"|CMAKE_[A-Z_]+_(COMPILER|LINKER)_LAUNCHER")
#: What separates the paths in a compiler variable's value (``-fplugin=out/p.so``, ``-Wl,-rpath,out``).
_WORD = re.compile(r"[^\s=,:;\"']+")
#: The variables of make's built-in rules (GNU make 4.3, ``make -p``): the programs they run,
#: their flags, and the commands made of them (``COMPILE.c``, ``LINK.o``…).
_MAKE_RULE_VARIABLES = re.compile(
    r"(AR|AS|CC|CXX|CPP|FC|F77|M2C|PC|CO|GET|LEX|YACC|LINT|MAKEINFO|TEX|TEXI2DVI|WEAVE|CWEAVE|TANGLE|CTANGLE|RM"
    r"|OBJC|LD)(FLAGS)?|CFLAGS|CPPFLAGS|FFLAGS|GFLAGS|LDLIBS|LFLAGS|YFLAGS|PFLAGS|RFLAGS|TARGET_ARCH|TARGET_MACH"
    r"|OUTPUT_OPTION|(COMPILE|LINK|PREPROCESS|LINT)\.[A-Za-z0-9]+")
#: The user package registry, below the home folder cmake reads from ``$HOME``.
_CMAKE_REGISTRY = (".cmake", "packages")
#: More registry entries than this are not read one by one.
_MOST_ENTRIES = 1000


@dataclass
class Named:
    """What a build tool's variables name: ``makefiles``, names make reads as ``-include`` does;
    ``include_folders``, folders make looks in for a relative included file; ``paths``, files and
    folders whose files may be code (relative: to the folder the tool runs in); ``programs``,
    the same for programs it runs (and folders of them), which are not build files; ``unknown``:
    a value not read here, so any file may be one."""

    makefiles: list[str] = field(default_factory=list)
    include_folders: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    #: Folders below which cmake's ``find_package`` looks for a package's files (``package_folders``).
    prefixes: list[str] = field(default_factory=list)
    unknown: bool = False


def named(program: str, words: Sequence[str | None], environ: Mapping[str, str] | None = None,
          home: Path | None = None) -> Named:
    """What ``program``, run with ``words`` in the environment ``environ`` (when not given: the
    one the command runs with, ``line_environment``: Echo Desk's own with what the line gives
    it, ``env MAKEFILES=… make``), reads by its variables, and cmake by its user package
    registry (below ``home`` and ``$HOME``)."""
    def get(name: str) -> str:
        return line_environment.get(name) if environ is None else environ.get(name, "")

    names = line_environment.names() if environ is None else list(environ)
    result = Named()
    if program in ("make", "cmake"):
        _make_environment(get, result)
    if program == "make":
        result.programs += [p for name in dict.fromkeys(names) if _MAKE_RULE_VARIABLES.fullmatch(name)
                            for p in _compiler_paths(get(name))]
    if program == "cmake":
        for _, value in cmake_settings(words):
            if value is None:
                result.unknown = True
            else:
                result.paths += [v for v in value.split(";") if v]
        for name in dict.fromkeys(names):
            if name in _CMAKE_PATH_VARIABLES or name.endswith(_CMAKE_PACKAGE_SUFFIXES):
                result.paths += [v for v in get(name).split(os.pathsep) if v]
            elif _CMAKE_COMPILER_VARIABLES.fullmatch(name):
                result.programs += _compiler_paths(get(name))
        for folder in dict.fromkeys((*((str(home),) if home is not None else ()), get("HOME"))):
            _cmake_registry(folder, result)
        result.prefixes += _path_prefixes(get("PATH"))
    return result


#: Where below a prefix ``find_package`` finds a package's Config.cmake (any file there: it
#: includes its neighbours), ``*`` standing for any name (``<name>*``, the ``<arch>`` of
#: ``lib/<arch>``): ``L/cmake/<name>*/``, ``L/<name>*/``, ``L/<name>*/(cmake|CMake)/``, each also
#: below a ``<name>*/``, with ``L`` a library folder (cmake's manual, the search procedure).
PACKAGE_FOLDERS = tuple(f"{top}{library}/{middle}/*" for top in ("", "*/")
                        for library in ("lib", "lib32", "lib64", "libx32", "share", "lib/*")
                        for middle in ("cmake/*", "*", "*/cmake", "*/CMake"))


def _path_prefixes(value: str) -> list[str]:
    """The prefixes cmake derives from a ``PATH``: each folder, its parent for one ending in
    ``bin`` or ``sbin`` (an empty part is the folder cmake runs in)."""
    prefixes = []
    for part in value.split(os.pathsep):
        folder = part.rstrip("/") or ("/" if part else ".")
        if os.path.basename(folder) in ("bin", "sbin"):
            folder = os.path.dirname(folder) or "."
        prefixes.append(folder)
    return list(dict.fromkeys(prefixes))


def _compiler_paths(value: str) -> list[str]:
    """The paths in a compiler variable's value: each word holding a ``/``, an option's
    letter before it dropped (``-B/opt/tools``, ``-Iout``)."""
    words = (w[2:] if w.startswith("-") and "/" in w[2:] else w for w in _WORD.findall(value))
    return [w for w in words if "/" in w]


def _cmake_registry(home: str, result: Named) -> None:
    """The user package registry (``$HOME/.cmake/packages``): the folder itself, and the folder
    each entry names (its first line); too many entries, or one that cannot be read: any file."""
    if not os.path.isabs(home):
        return
    registry = os.path.join(home, *_CMAKE_REGISTRY)
    result.paths.append(registry)
    try:
        entries = [e.path for p in os.scandir(registry) if p.is_dir() for e in os.scandir(p.path)]
    except FileNotFoundError:
        return
    except OSError:
        result.unknown = True
        return
    if len(entries) > _MOST_ENTRIES:
        result.unknown = True
        return
    for entry in entries:
        try:
            with open(entry, encoding="utf-8") as handle:
                folder = handle.readline(4096).strip()
        except (OSError, UnicodeDecodeError):
            result.unknown = True
            continue
        if folder:
            result.paths.append(folder)


def cmake_settings(words: Sequence[str | None]) -> list[tuple[str | None, str | None]]:
    """cmake's ``-D NAME[:TYPE]=VALUE`` settings among ``words`` (glued or the next word): the
    name and value of each (``None``: a word only known when the line runs)."""
    found: list[tuple[str | None, str | None]] = []
    for i, word in enumerate(words):
        if word is None:
            found.append((None, None))  # (it may be one: `-D"$X"`)
            continue
        if not word.startswith("-D"):
            continue
        setting = word[2:] if word != "-D" else (words[i + 1] if i + 1 < len(words) else "")
        if setting is None:
            found.append((None, None))
            continue
        name, equals, value = setting.partition("=")
        # (cmake refuses a setting without "=": nothing is set)
        found += [(name.partition(":")[0], value)] if equals else []
    return found


def _make_environment(get: Callable[[str], str], result: Named) -> None:
    """The makefiles ``MAKEFILES`` names and what ``MAKEFLAGS`` adds (its ``-I`` folders)."""
    result.makefiles += get("MAKEFILES").split()
    for variable in _MAKE_FLAG_VARIABLES:
        value = get(variable)
        if "\\" in value:
            result.unknown = True  # (make escapes a space inside a word so: not split here)
            continue
        words = value.split()
        if words and not words[0].startswith("-") and "=" not in words[0]:
            words[0] = f"-{words[0]}"  # make writes its one-letter options first, without a dash
        parsed = read_options(words, table.MAKE)
        if parsed.operands:
            result.unknown = True  # `SHELL=…`, `MAKEFILES=…`: a variable for every makefile
        for seen in parsed.seen:
            if seen.option is None:
                result.unknown |= seen.token.partition("=")[0] not in _MAKE_OWN_OPTIONS
            elif "-I" in seen.option.names:
                result.include_folders.append(seen.value or "")
                result.unknown |= not seen.value
            elif seen.option.does is not Does.NOTHING:
                result.unknown = True  # --eval runs make code; -f, -C are not taken from there
