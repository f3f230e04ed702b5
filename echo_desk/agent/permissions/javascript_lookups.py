"""Code JavaScript tools load from folders no word of the line names, found from the files they
are given (s287; each proven with node 20 and bun 1.4.5 under bash and dash):

- node finds a package a script requires by a bare name (``require('greeting')``) in the
  node_modules of the script's folder and of every folder above it, then in the folders of
  ``NODE_PATH`` and in ~/.node_modules and ~/.node_libraries: under a rule naming the person's
  script (``node tools/greet.js **``), a node_modules/greeting/index.js the agent wrote ran.
- ``bun fmt`` runs the Prettier settings written as code (prettier.config.js, .prettierrc.ts…,
  and a module package.json's ``prettier`` names) found beside each file it formats and in every
  folder above, and beside every file below a folder it formats: a .prettierrc.js in the
  folder above ran under ``bun fmt a.js``.
- ``bun create NAME`` takes the template NAME from $BUN_CREATE_DIR, ./.bun-create and
  ~/.bun-create, and runs the commands its package.json lists under ``bun-create``
  (``postinstall``): a template the agent wrote in out/.bun-create ran ``touch ../../PWNED``.

Each function gives folders as places: ``Found.here`` holds the code files of those folders,
``Found.below`` any file below them (``Found.unknown``: a place only known when the line runs).
A module the person's script loads by a path, or one a package requires from inside
node_modules, is not followed: what the script itself does is its business.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from echo_desk.agent.permissions import bun_commands, line_environment
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

__all__ = ["DENO_SETTINGS", "PRETTIER_CODE", "TEST_CODE", "Found", "bun_create_templates", "bun_module_folders",
           "deno_places", "node_module_folders", "node_test_files", "prettier_folders"]

#: The Prettier settings files that are modules (Prettier 3's names), and package.json, whose
#: ``prettier`` may name one (``"prettier": "./cfg.js"`` ran cfg.js under bun fmt).
PRETTIER_CODE = (*(f"{stem}.{suffix}" for stem in ("prettier.config", ".prettierrc")
                   for suffix in ("js", "cjs", "mjs", "ts", "mts", "cts")), "package.json")
#: The files node's test runner may run from a folder it searches (node 20 runs ``.js``, ``.cjs``
#: and ``.mjs`` files of its test patterns; later nodes TypeScript too): every one counts.
TEST_CODE = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")
#: The folders node searches after the node_modules above the script (node's GLOBAL_FOLDERS).
_NODE_USER_FOLDERS = (".node_modules", ".node_libraries")
_TEMPLATES = ".bun-create"
#: The files deno finds from the folder it runs in and those above: its settings (which map
#: imports to any file and hold its tasks) and package.json (which makes it load node_modules).
DENO_SETTINGS = ("deno.json", "deno.jsonc", "package.json")
#: deno's options naming a settings file or an import map (``-c cfg.json``, ``--import-map=m.json``).
_DENO_FILE_OPTIONS = ("-c", "--config", "--import-map")


@dataclass
class Found:
    """Folders whose code files count (``here``), and folders whose every file below counts."""

    here: list[Path] = field(default_factory=list)
    below: list[Path] = field(default_factory=list)
    unknown: bool = False
    #: Files that count themselves (the settings file an option names).
    files: list[Path] = field(default_factory=list)


def node_module_folders(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> Found:
    """For ``node [options] SCRIPT …``: every node_modules folder node may load a package from,
    and the folders of ``NODE_PATH`` and the home folder's (``below``: the modules there).
    The folder the line runs in counts as the script's does (``-e``, ``--test``, the REPL)."""
    found = Found()
    parsed = read_options(argv[1:], table.NODE)
    script = argv[1 + parsed.rest] if parsed.rest is not None else ""
    if script is None or parsed.dynamic:
        return Found(unknown=True)
    starts = [p.parent for c in cwds for p in _both(c / script)] if script else []
    starts += cwds
    found.below += [f / table.NODE_MODULES for start in dict.fromkeys(starts) for f in (start, *start.parents)]
    found.below += [home / name for name in _NODE_USER_FOLDERS] if home is not None else []
    found.below += [p for c in cwds for entry in line_environment.get("NODE_PATH").split(os.pathsep) if entry
                    for p in _both(c / entry)]
    return found


def node_test_files(argv: Sequence[str | None], cwds: Sequence[Path]) -> Found:
    """For ``node --test [PATH…]``: where it finds the test files it runs (s295, node 20): with no
    path, below the folder the line runs in; below each folder named (``below``: every file of
    node's test patterns there, ``*.test.js``, ``test-*.mjs``, ``test/**/*.cjs``…, each run as
    code); a file named is run as it is (its folder in ``here``, the file by name)."""
    parsed = read_options(argv[1:], table.NODE)
    if not any(s.option is not None and "--test" in s.option.names for s in parsed.seen):
        return Found()
    words = list(argv[1 + parsed.rest:]) if parsed.rest is not None else []
    if parsed.dynamic or None in words:
        return Found(unknown=True)
    found = Found()
    for path in (p for c in cwds for word in (words or ["."]) if word for p in _both(c / word)):
        if path.is_dir() or not path.exists():
            found.below.append(path)
        if not path.is_dir():
            found.here.append(path)
    return found


def bun_module_folders(argv: Sequence[str | None], cwds: Sequence[Path]) -> Found:
    """For ``bun [run] FILE``: the node_modules folders above the file it runs (s295: bun, as
    node does, finds a package the script requires by a bare name from the script's own folder
    up, not only from the folder the line runs in), and those of ``NODE_PATH`` (``below``)."""
    name = bun_commands.run_name(tuple(argv))
    if name is None:
        return Found(unknown=True)
    if not name:
        return Found()
    starts = dict.fromkeys(p.parent for c in cwds for p in _both(c / name))
    found = Found(below=[f / table.NODE_MODULES for start in starts for f in (start, *start.parents)])
    found.below += [p for c in cwds for entry in line_environment.get("NODE_PATH").split(os.pathsep) if entry
                    for p in _both(c / entry)]
    return found


def deno_places(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> Found:
    """For any deno command (s295, deno 2.9): the folders whose deno.json, deno.jsonc and
    package.json it may read (``here``: the folder the line runs in, each folder a word of the
    line names and those above them), the node_modules above them and the module cache
    (``below``), and the files its ``--config`` and ``--import-map`` name (``files``). deno's
    options are not read here: every word counts as a path, more folders, never fewer."""
    if any(word is None for word in argv[1:]):
        return Found(unknown=True)
    words = [w for w in argv[1:] if w]
    paths = [w.partition("=")[2] for w in words if w.startswith(("--config=", "--import-map="))]
    # (-cFILE, -c=FILE; a group of short options ending in c counts as a file too: more, never fewer)
    paths += [w[2:].lstrip("=") for w in words if w.startswith("-c") and len(w) > 2]
    paths += [after for before, after in itertools.pairwise(words) if before in _DENO_FILE_OPTIONS]
    starts = list(cwds) + [p.parent for c in cwds for w in words if not w.startswith("-") for p in _both(c / w)]
    folders = list(dict.fromkeys(f for start in starts for f in (start, *start.parents)))
    found = Found(here=folders, below=[f / table.NODE_MODULES for f in folders])
    found.files = [p for c in cwds for w in paths if w for p in _both(c / w)]
    cache = line_environment.get("DENO_DIR")
    found.below += [p for c in cwds for p in _both(c / cache)] if cache else []
    found.below += [home / ".cache" / "deno"] if home is not None else []
    return found


def prettier_folders(argv: Sequence[str | None], cwds: Sequence[Path]) -> Found:
    """For ``bun fmt``: the folders whose Prettier settings it may run (``here``: each formatted
    file's folder and those above it, the folder it runs in and those above; ``below``: each
    formatted folder, whose every folder below may hold settings too)."""
    named = bun_commands.formatted(tuple(argv))
    if not named:
        return Found()
    if None in named:
        return Found(unknown=True)
    found = Found()
    for c in cwds:
        for path in (p for word in named if word is not None for p in _both(c / word)):
            folder = path if path.is_dir() or not path.exists() else path.parent
            if folder == path:
                found.below.append(folder)
            found.here += [folder, *folder.parents]
        found.here += [c, *c.parents]
    found.here = list(dict.fromkeys(found.here))
    return found


def bun_create_templates(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> Found:
    """For ``bun create``: the folders it takes templates from (``below``: every file of them)."""
    if not bun_commands.scaffolds(tuple(argv)):
        return Found()
    folders = [c / _TEMPLATES for c in cwds] + ([home / _TEMPLATES] if home is not None else [])
    chosen = line_environment.get("BUN_CREATE_DIR")
    folders += [p for c in cwds for p in _both(c / chosen)] if chosen else []
    return Found(below=folders)


def _both(path: Path) -> list[Path]:
    """``path`` as written and with its links followed."""
    return list(dict.fromkeys((Path(os.path.normpath(path)), Path(os.path.realpath(path)))))
