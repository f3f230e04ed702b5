"""The install folders of cmake's build folder (``install_records``): the prefix
``cmake_install.cmake`` sets and every absolute ``DESTINATION`` there and in the scripts it
includes from the build folder."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from echo_desk.agent.permissions.record_files import MOST_FILES, inside, read_record

__all__ = ["cmake_folders", "is_cmake"]

#: cmake_install.cmake's first line, and what it holds that says where it writes.
_CMAKE_MARK = "# Install script for directory:"
_CMAKE_PREFIX = re.compile(r'set\(CMAKE_INSTALL_PREFIX "([^"]*)"\)')
_CMAKE_DESTINATION = re.compile(r'DESTINATION "([^"]*)"')
_CMAKE_INCLUDE = re.compile(r'include\("([^"]*cmake_install\.cmake)"\)')
_CMAKE_PREFIX_USE = "${CMAKE_INSTALL_PREFIX}"


def is_cmake(build: Path) -> bool:
    """Whether ``build`` holds the install script cmake writes."""
    return (build / "cmake_install.cmake").is_file()


def cmake_folders(build: Path, *, prefix_named: bool = False) -> list[str] | None:
    """The prefix and absolute destinations of ``build``'s install scripts (with
    ``prefix_named``, the absolute ones alone: those below the prefix are below the one named)."""
    found: list[str] = []
    prefix: str | None = None
    for text in _cmake_scripts(build):
        if text is None or not text.startswith(_CMAKE_MARK):
            return None
        # (the top script sets the prefix; those it includes keep it, as it is defined by then)
        prefix = prefix or next(iter(_CMAKE_PREFIX.findall(text)), None)
        if prefix is not None and not os.path.isabs(prefix):
            return None
        for destination in _CMAKE_DESTINATION.findall(text):
            if destination.startswith(_CMAKE_PREFIX_USE) and prefix_named:
                continue
            if destination.startswith(_CMAKE_PREFIX_USE) and prefix is not None:
                destination = prefix + destination[len(_CMAKE_PREFIX_USE):]
            if "$" in destination or not os.path.isabs(destination):
                return None  # (a variable not read here: where it leads is only known when it runs)
            found.append(os.path.normpath(destination))
        if prefix is not None and not prefix_named:
            found.append(os.path.normpath(prefix))
    return list(dict.fromkeys(found))


def _cmake_scripts(build: Path) -> Iterator[str | None]:
    """cmake_install.cmake of ``build`` and those it includes (subfolders'), each once;
    ``None`` for one outside the build folder, or past ``MOST_FILES``."""
    queue = [build / "cmake_install.cmake"]
    seen: set[Path] = set()
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        seen.add(path)
        if len(seen) > MOST_FILES or not inside(path, build):
            yield None
            return
        text = read_record(path)
        yield text
        queue += [Path(p) for p in _CMAKE_INCLUDE.findall(text)]
