"""The install folders of cmake's build folder (``install_records``): the prefix
``cmake_install.cmake`` sets and every folder its commands write below, there and in the
scripts it includes from the build folder.

The script is read command by command, and only the commands cmake writes there for the
project's ``install(FILES|TARGETS|DIRECTORY|PROGRAMS|EXPORT …)`` are understood (s300): the
project's own ``install(CODE …)`` and ``install(SCRIPT …)`` land in the same script as
``execute_process``, ``file(WRITE …)``, ``include(…)`` of a script anywhere, which ran under
``cmake --install`` (cmake 3.25, bash and dash: a ``touch`` ran, a file was written). Any
command not of those forms makes the record unread (``None``), so the line asks."""

from __future__ import annotations

import os
import re
from pathlib import Path

from echo_desk.agent.permissions.cmake_script import Command, commands
from echo_desk.agent.permissions.record_files import MOST_FILES, inside, read_record

__all__ = ["cmake_folders", "is_cmake"]

#: cmake_install.cmake's first line.
_CMAKE_MARK = "# Install script for directory:"
_PREFIX = "CMAKE_INSTALL_PREFIX"
_PREFIX_USE = "${CMAKE_INSTALL_PREFIX}"
_DESTDIR_USE = "$ENV{DESTDIR}"
#: The manifests of what was installed, which cmake writes into the build folder (the local one
#: for ``install/local``, as later cmakes write it: not installed here, so not proven).
_MANIFESTS = ("/${CMAKE_INSTALL_MANIFEST}", "/install_local_manifest.txt")
_MANIFEST_CONTENT = "${CMAKE_INSTALL_MANIFEST_CONTENT}"
#: The variables cmake's install scripts set (the prefix only where none was given: below).
_SET_NAMES = re.compile(r"CMAKE_INST\w*|CMAKE_CROSSCOMPILING|CMAKE_OBJDUMP|_cmake_\w+")
#: The variables no command but those cmake writes may change: where the install writes (the
#: prefix), the manifest's name (with the component, or its hash: later cmakes) and the files of
#: an export that ``file(REMOVE …)`` deletes, and the loop's ``file`` whose RPATH is checked (a
#: file of another RPATH is deleted). install(CODE) setting the export's files to ~/.bashrc, or
#: ``string(CONCAT file …)`` to it in a loop of the generator's form, made ``cmake --install``
#: delete it, and setting the component to ``/../../../../evil`` wrote the manifest as ~/evil.txt
#: (cmake 3.25, bash and dash, s330).
_OLD_EXPORT_FILES = "_cmake_old_config_files"
_COMPONENT_HASH = "CMAKE_INST_COMP_HASH"
_GUARDED = frozenset({_PREFIX, "CMAKE_INSTALL_MANIFEST", "CMAKE_INSTALL_COMPONENT", _COMPONENT_HASH,
                      _OLD_EXPORT_FILES, "file"})
#: The ``string`` commands cmake writes that set one of them: the prefix loses a trailing ``/``,
#: and a component name of other characters is hashed for the manifest's name.
_GUARDED_STRINGS = (["REGEX", "REPLACE", "/$", "", _PREFIX, _PREFIX_USE],
                    ["MD5", _COMPONENT_HASH, "${CMAKE_INSTALL_COMPONENT}"])
#: The guarded variables cmake unsets when done with them (set only by the forms read above).
_UNSET = frozenset({_OLD_EXPORT_FILES, _COMPONENT_HASH})
#: The commands that only test, tell or compute (and ``string`` only sets a variable).
_PLAIN = frozenset({"if", "elseif", "else", "endif", "message", "string"})
#: ``file`` subcommands that change the file they name (``FILE`` is where), and those that only read.
_FILE_CHANGES = frozenset({"RPATH_CHECK", "RPATH_CHANGE", "RPATH_SET", "RPATH_REMOVE"})
_FILE_READS = frozenset({"DIFFERENT"})
#: The strip program cmake runs for ``--strip`` (``install/strip``): the system's own.
_STRIP = re.compile(r"/(usr/)?bin/[\w.-]*strip")
#: The foreach variable cmake loops over the installed files of a versioned library with.
_LOOP = "${file}"


class _Unread(Exception):
    """A command of the install script not of a form cmake writes for the project's files."""


def is_cmake(build: Path) -> bool:
    """Whether ``build`` holds the install script cmake writes."""
    return (build / "cmake_install.cmake").is_file()


def cmake_folders(build: Path, *, prefix_named: bool = False) -> list[str] | None:
    """The prefix and the absolute folders ``build``'s install scripts write below (with
    ``prefix_named``, the absolute ones alone: those below the prefix are below the one named)."""
    reader = _Reader(build, prefix_named)
    queue = [build / "cmake_install.cmake"]
    seen: set[Path] = set()
    try:
        while queue:
            path = queue.pop(0)
            if path in seen:
                continue
            seen.add(path)
            if len(seen) > MOST_FILES or not inside(path, build):
                return None
            text = read_record(path)
            read = commands(text) if text.startswith(_CMAKE_MARK) else None
            if read is None:
                return None
            queue += reader.read(read)
    except _Unread:
        return None
    return list(dict.fromkeys(reader.found))


class _Reader:
    """Walks the commands of one build folder's install scripts, keeping the prefix they set."""

    def __init__(self, build: Path, prefix_named: bool) -> None:
        self.build = build
        self.prefix_named = prefix_named
        self.prefix: str | None = None
        self.found: list[str] = []

    def read(self, script: list[Command]) -> list[Path]:
        """The folders one script writes below go to ``found``; the scripts it includes are returned."""
        included: list[Path] = []
        previous: Command = ("", [])
        looping = False
        for name, words in script:
            if name == "include" and len(words) == 1 and words[0].endswith("/cmake_install.cmake") \
                    and os.path.isabs(words[0]):
                included.append(Path(words[0]))  # (outside the build folder: refused when read)
            elif name == "unset" and words in ([w] for w in _UNSET):
                pass
            elif name in ("set", "unset"):
                self._set(words, previous)
            elif name == "string":
                if _GUARDED & set(words) and words not in _GUARDED_STRINGS:
                    raise _Unread
            elif name in _PLAIN:
                pass
            elif name == "foreach" and words[:1] == ["file"] and not looping:
                looping = True
                for word in words[1:]:
                    self._changed(word, looping=False)
            elif name == "endforeach" and looping:
                looping = False
            elif name == "file":
                self._file(words, looping)
            elif name == "execute_process" and len(words) == 3 and words[0] == "COMMAND" \
                    and _STRIP.fullmatch(words[1]):
                self._changed(words[2], looping)
            else:
                raise _Unread
            previous = (name, words)
        if self.prefix is not None and not self.prefix_named:
            self.found.append(os.path.normpath(self.prefix))
        return included

    def _set(self, words: list[str], previous: Command) -> None:
        if not words or not _SET_NAMES.fullmatch(words[0]):
            raise _Unread
        if words[0] == _PREFIX:
            # (only where none was given: `cmake --install --prefix P` gives one)
            if previous != ("if", ["NOT", "DEFINED", _PREFIX]) or len(words) != 2 \
                    or not os.path.isabs(words[1]):
                raise _Unread
            self.prefix = self.prefix or words[1]  # (the top script's; those it includes keep it)
        elif words[0] in _GUARDED - {"CMAKE_INSTALL_MANIFEST"}:
            raise _Unread  # (set by no command cmake writes but those read above)
        elif words[0] == "CMAKE_INSTALL_MANIFEST" and not re.fullmatch(
                r"install_manifest(_\$\{CMAKE_INSTALL_COMPONENT\}|_\$\{CMAKE_INST_COMP_HASH\})?\.txt",
                words[1] if len(words) == 2 else ""):
            raise _Unread

    def _file(self, words: list[str], looping: bool) -> None:
        sub = words[0] if words else ""
        if sub == "INSTALL" and "DESTINATION" in words[:-1]:
            self._destination(words[words.index("DESTINATION") + 1])
        elif sub in _FILE_CHANGES and "FILE" in words[:-1]:
            self._changed(words[words.index("FILE") + 1], looping)
        elif sub == "GLOB" and len(words) == 3 and words[1] == "_cmake_old_config_files":
            self._changed(words[2], looping=False)  # (what it finds is removed next)
        elif (sub == "REMOVE" and words[1:] == ["${_cmake_old_config_files}"]) or sub in _FILE_READS:
            pass
        elif sub == "WRITE" and len(words) == 3 and words[1].endswith(_MANIFESTS) and words[2] == _MANIFEST_CONTENT:
            folder = words[1].rpartition("/")[0]
            if "$" in folder or not inside(Path(folder), self.build):
                raise _Unread
        else:
            raise _Unread

    def _changed(self, path: str, looping: bool) -> None:
        """A file below DESTDIR the script changes (``$ENV{DESTDIR}`` then a destination)."""
        if looping and path == _LOOP:
            return  # (one of the files the loop named, each counted there)
        if not path.startswith(_DESTDIR_USE):
            raise _Unread
        self._destination(os.path.dirname(path[len(_DESTDIR_USE):]))

    def _destination(self, destination: str) -> None:
        if destination.startswith(_PREFIX_USE) and self.prefix_named:
            return
        if destination.startswith(_PREFIX_USE) and self.prefix is not None:
            destination = self.prefix + destination[len(_PREFIX_USE):]
        if "$" in destination or "\\" in destination or not os.path.isabs(destination):
            raise _Unread  # (a variable not read here: where it leads is only known when it runs)
        self.found.append(os.path.normpath(destination))
