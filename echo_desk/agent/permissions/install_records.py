"""Where the install step of a build folder writes: below the install folders the build folder
records, which the line does not name (s280). The folder may have been configured earlier, by
the person or by a line judged before, so a rule naming the build tool (``meson **``) covers the
step only where the write rules let the agent write below every one of them (each proven with
strace under bash and dash, meson 1.12, cmake 3.25, ninja 1.11, make 4.3: with a build folder
configured for ``~/.local``, each step below created ~/.local/share/d.txt):

- ``meson install [-C B]`` and ``ninja [-C B] install`` on meson's build folder: the files
  ``meson-info/intro-installed.json`` lists (where each goes), the prefix and install folders
  of ``meson-info/intro-buildoptions.json`` (empty folders and links are installed from there);
- ``cmake --install B``, ``cmake --build B --target install`` (``-- install``), ``ninja``/``make`` with an
  ``install`` target on cmake's build folder: the prefix ``cmake_install.cmake`` sets (what
  ``--install --prefix P`` replaces) and every absolute ``DESTINATION`` there and in the scripts
  it includes from the build folder;
- ``make install`` on a Makefile automake generated and configure wrote (autotools): its
  ``prefix``, ``exec_prefix`` and the ``…dir`` variables its rules and recipes refer to (s335:
  configure writes ``oldincludedir = /usr/include`` into every one), as make's own variables on
  the line (``prefix=~/x``) set them, in it and in the Makefiles of its ``SUBDIRS``.

``DESTDIR`` (the line's environment; for make a variable on the line too) puts every one of
them below it, as each of these programs does: ``env DESTDIR=~/x ninja -C b install`` wrote
~/x/<prefix>/share/d.txt; so it does the prefix ``cmake --install b --prefix P`` names (D/P and
D/<absolute destination> alone were written, s300). ``meson install --destdir D`` takes D for
its own and leaves the environment's DESTDIR aside (nothing below it was touched, s300).
Setting ``CMAKE_INSTALL_PREFIX`` in the environment changes nothing (cmake --install wrote
below the recorded prefix). The install read no file below DESTDIR (a
CMakeLists.txt, cmake_install.cmake, build.ninja and Makefile planted there were not opened:
s293), so the DESTDIR the environment gives an install step (``destination_variables``) names
only where it writes, which the write rules judge.

A build folder whose record the engine cannot read (missing, not a form known here, too big, a
folder or destination named by a variable it does not resolve) makes the line ask (``None``), as
does a build file ninja or make would read that no generator wrote (``-f``, a GNUmakefile).

``install_commands`` says which commands are install steps; each generator's record is read by a
module of its own (``meson_records``, ``cmake_records``, ``autotools_records``).

A project's own install code (cmake's ``install(CODE …)`` and ``install(SCRIPT …)``, meson's
``add_install_script``) runs what it says and writes where no record tells: the readers
understand only what the generators write for the project's files, and anything else makes
the record unread, so the line asks (s300). So do automake's install hooks and the project's
other install rules, which automake copies from Makefile.am into the Makefile, and the programs
its recipes run set to others there (``automake_install``, s330); a Makefile configure wrote from
a Makefile.in of the project's own, or cmake's install code setting a variable the generator's
commands take a path from, asks too (s330). A Makefile not written by automake or cmake is
such code: its install target asks. An ``uninstall`` target deletes below the same folders and
is judged as the install step (s330).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from echo_desk.agent.permissions import line_environment, programs
from echo_desk.agent.permissions.autotools_records import autotools_folders, is_makefile
from echo_desk.agent.permissions.cmake_records import cmake_folders, is_cmake
from echo_desk.agent.permissions.install_commands import PREFIX_NAMED, install_step
from echo_desk.agent.permissions.meson_records import is_meson, meson_folders

__all__ = ["DESTDIR", "destination_variables", "recorded", "written"]

#: The variable of the environment an install step puts every install folder below.
DESTDIR = "DESTDIR"


def destination_variables(argv: Sequence[str | None]) -> frozenset[str]:
    """The variables of the environment the install step ``argv`` takes only as the folder it
    writes below (``DESTDIR``: it read no file there, s293), which ``written`` joins to the
    recorded folders (and to the prefix ``cmake --install --prefix P`` names) for the write
    rules to judge, or leaves aside (``meson install --destdir D``: meson then does, s300).
    None for a command that is no install step of a build folder, or make's giving its own
    (``DESTDIR=…``)."""
    if not argv or argv[0] is None:
        return frozenset()
    program = programs.name_of(argv[0]) or ""
    step = install_step(program, list(argv[1:]))
    if step is None or step.build is None or (step.destdir is not None and program != "meson"):
        return frozenset()
    return frozenset({DESTDIR})


def written(argv: Sequence[str | None], cwds: Sequence[Path]) -> list[str | None]:
    """The folders the install step ``argv`` (run from each of ``cwds``) writes below, where its
    build folder records them; ``[None]`` where that is not known here, ``[]`` for a command
    that is no install step of one."""
    if not argv or argv[0] is None:
        return []
    step = install_step(programs.name_of(argv[0]) or "", list(argv[1:]))
    if step is None:
        return []
    build, overrides, destdir = step
    if build is None or build.startswith("~") or not cwds:
        return [None]
    if destdir is None:
        destdir = line_environment.get(DESTDIR)
    if destdir.startswith("~"):
        return [None]  # (bash expands a leading ~ after `=` in some words, dash in none)
    found: list[str | None] = []
    for cwd in cwds:
        folder = Path(os.path.normpath(cwd / build))
        folders = recorded(folder, overrides)
        if folders is None or not _generated(programs.name_of(argv[0]) or "", folder):
            return [None]
        if not destdir:
            found += folders
            continue
        if PREFIX_NAMED in overrides:
            # (below DESTDIR, the prefix the line names: cmake_modes judges it alone without one)
            prefix = overrides[PREFIX_NAMED]
            if not prefix or prefix.startswith("~"):
                return [None]
            folders = [*folders, os.path.normpath(cwd / prefix)]
        # (a relative DESTDIR is taken from where the program works: the line's folder, or the
        # build folder it changes into first)
        for base in dict.fromkeys((cwd, folder)):
            found += [os.path.join(base, destdir, f.lstrip("/")) for f in folders]
    return list(dict.fromkeys(found))


def recorded(build: Path, overrides: Mapping[str, str] | None = None) -> list[str] | None:
    """The absolute folders the build folder ``build`` records for its install step, with the
    variables ``overrides`` sets in an autotools Makefile (make's on the line: cmake's Makefile
    takes its prefix from cmake_install.cmake alone), or ``None``: no record read here."""
    given = dict(overrides or {})
    try:
        if is_meson(build):
            return meson_folders(build)
        if is_cmake(build):
            return cmake_folders(build, prefix_named=PREFIX_NAMED in given)
        if is_makefile(build):
            return autotools_folders(build, given)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return None


#: The first line of the build file a generator writes for ninja or make: what runs the install
#: step is then the generator's, which runs the install the record says. A build file of
#: another hand runs its own recipes (and make reads GNUmakefile or makefile before Makefile).
_GENERATED = {"ninja": ("build.ninja", ("# CMAKE generated file:", "# This is the build file for project")),
              "make": ("Makefile", ("# CMAKE generated file:", *(f"# {m}" for m in ("Makefile.in generated by",
                                                                                "Makefile.  Generated from"))))}


def _generated(program: str, folder: Path) -> bool:
    """Whether the build file ``program`` reads in ``folder`` is one a generator wrote."""
    if program not in _GENERATED:
        return True
    name, marks = _GENERATED[program]
    if program == "make" and any((folder / other).exists() for other in ("GNUmakefile", "makefile")):
        return False
    try:
        with open(folder / name, encoding="utf-8") as handle:
            first = handle.readline(200)
    except (OSError, UnicodeDecodeError):
        return False
    return first.startswith(marks)
