"""A build file the agent cannot write may include one it can (s164): make's ``include`` and
``-include``, ninja's ``include`` and ``subninja``, cmake's ``include()`` and
``add_subdirectory()`` take in files by any name, and what they hold runs as the build's code
(``$(shell …)`` while make reads it, a ninja rule's command, cmake's ``execute_process``).
With the agent's writes kept to out/, a rule naming the build tool no longer allows it when a
build file includes a file there; an inclusion the engine cannot read (a variable, a wildcard,
``$(eval …)``, ``cmake_language``) lets any writable file count. The hostile corpus proves the
harm for make, ninja and cmake (issue ``s164``)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed

PROGRAMS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[make|make -C src|make -f src/x.mk|make -I out|make -sI out|ninja|cmake|meson|scons|cd] **"
"""


def _verdict(setup: Setup, line: str, files: dict[str, str], writable: str = "@workspace/out/**") -> Effect | None:
    for name, text in files.items():
        path = setup.workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("@WS@", str(setup.workspace)), encoding="utf-8")
    return effect_under(setup, PROGRAMS + writes_allowed(writable), line)


CMAKE_TOP = "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\n"


@pytest.mark.parametrize(("line", "files"), [
    # make: relative to the folder it runs in, one or many words, nested in a file it includes.
    ("make", {"Makefile": "-include out/deps.d\nall:\n\t@true\n"}),
    ("make", {"Makefile": "include out/config.mk\n"}),
    ("make test", {"Makefile": "sinclude src/a.mk out/b.mk\n"}),
    ("cd src && make", {"src/Makefile": "  -include ../out/deps.d # generated\n"}),
    ("make", {"Makefile": "include src/common.mk\n", "src/common.mk": "include out/gen.mk\n"}),
    ("make", {"GNUmakefile": "include \\\n  out/x.mk\n"}),
    # make's options a rule names: -C's folder, -f's file, -I's folders (a relative file not
    # found in the folder make runs in is looked for there).
    ("make -C src", {"src/Makefile": "-include ../out/deps.d\n"}),
    ("make -f src/x.mk", {"src/x.mk": "include out/x.mk\n"}),
    ("make -I out", {"Makefile": "include config.mk\n"}),
    ("make -sI out", {"Makefile": "include config.mk\n"}),
    # ninja: relative to the folder it runs in (-C's), from build.ninja or the file -f names.
    ("ninja", {"build.ninja": "include out/rules.ninja\nbuild all: cc\n"}),
    ("ninja -C src", {"src/build.ninja": "subninja ../out/sub.ninja\n"}),
    ("ninja -f src/x.ninja", {"src/x.ninja": "include out/rules.ninja\n"}),
    ("ninja", {"build.ninja": "include src/rules.ninja\n", "src/rules.ninja": "subninja out/x.ninja\n"}),
    # cmake: include() relative to the current source folder, add_subdirectory()'s CMakeLists.txt.
    ("cd src && cmake -S . -B b", {"src/CMakeLists.txt": CMAKE_TOP + "include(../out/notes.md OPTIONAL)\n"}),
    ("cd src && cmake -S . -B b", {"src/CMakeLists.txt": CMAKE_TOP + 'INCLUDE ( "../out/notes.md" )\n'}),
    ("cd src && cmake .", {"src/CMakeLists.txt": CMAKE_TOP + "add_subdirectory(lib)\n",
                           "src/lib/CMakeLists.txt": "include(../../out/notes.md)\n"}),
    ("cmake -P src/s.cmake", {"src/s.cmake": "include(out/notes.md)\n"}),
    # cmake --build and meson compile run make or ninja on the build folder's generated files.
    ("cmake --build src/b", {"src/b/build.ninja": "include ../../out/notes.md\n"}),
    ("cmake --build src/b", {"src/b/Makefile": "-include ../../out/notes.md\n"}),
    # The cache of a build folder names the source folder cmake --build configures again.
    ("cmake --build src/b", {"src/b/CMakeCache.txt": "CMAKE_HOME_DIRECTORY:INTERNAL=@WS@/lib\n",
                             "lib/CMakeLists.txt": "include(../out/notes.md)\n"}),
    # SConscript() reads a script by any name, relative to the file calling it (scons is not
    # installed here: from its manual).
    ("scons", {"SConstruct": "SConscript('out/notes.md')\n"}),
    ("scons", {"SConstruct": "env = Environment()\nenv.SConscript(['src/SConscript', 'out/notes.md'])\n"}),
    ("scons", {"SConstruct": "SConscript(dirs=['out'], name='notes.md')\n"}),
    ("scons", {"SConstruct": "SConscript('src/SConscript')\n", "src/SConscript": "SConscript('../out/notes.md')\n"}),
    ("scons -f src/S.py", {"src/S.py": "SConscript('../out/notes.md')\n"}),
    ("meson compile -C src/b", {"src/b/build.ninja": "subninja ../../out/notes.md\n"}),
])
def test_a_build_file_including_a_file_the_agent_may_write_asks(setup: Setup, line: str,
                                                                 files: dict[str, str]) -> None:
    assert _verdict(setup, line, files, "@workspace/out/*.md" if "notes.md" in str(files) else
                    "@workspace/out/**") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "files"), [
    ("make", {"Makefile": "-include $(OBJS:.o=.d)\n"}),
    ("make", {"Makefile": "include out/*.mk\n"}),
    ("make", {"Makefile": "$(eval $(file <x.txt))\n"}),
    ("ninja", {"build.ninja": "include $builddir/rules.ninja\n"}),
    ("cd src && cmake .", {"src/CMakeLists.txt": CMAKE_TOP + "include(${CMAKE_BINARY_DIR}/gen.cmake)\n"}),
    ("cd src && cmake .", {"src/CMakeLists.txt": CMAKE_TOP + "cmake_language(EVAL CODE \"${code}\")\n"}),
    ("cd src && cmake .", {"src/CMakeLists.txt": CMAKE_TOP + "list(APPEND CMAKE_MODULE_PATH x)\ninclude(M)\n"}),
    ("scons", {"SConstruct": "SConscript(Glob('*/SConscript'))\n"}),
    ("scons", {"SConstruct": "exec(open('x').read())\n"}),
    ("scons", {"SConstruct": "SConscript(\n"}),
])
def test_an_inclusion_not_read_lets_any_writable_file_count(setup: Setup, line: str, files: dict[str, str]) -> None:
    """What a variable, a wildcard or code made from text includes is known only when the build
    runs: with any file writable (here ~/notes/, outside the project), the line asks."""
    assert _verdict(setup, line, files, "~/notes/**") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "files"), [
    ("make", {"Makefile": "include src/common.mk\n-include src/deps.d # out/x.mk\n"}),
    ("make", {"Makefile": "all:\n\t@echo include out/x.mk\n"}),
    ("ninja", {"build.ninja": "include src/rules.ninja\nbuild all: cc\n", "src/rules.ninja": "rule cc\n  command = true\n"}),
    ("cd src && cmake -S . -B b", {"src/CMakeLists.txt": CMAKE_TOP + "include(GNUInstallDirs)\ninclude(cmake/x.cmake)\n"
                                                               "# include(../out/notes.md)\n"}),
    ("cd src && cmake .", {"src/CMakeLists.txt": CMAKE_TOP + 'message("include(../out/notes.md)")\n'}),
    ("scons", {"SConstruct": "import os\nSConscript('src/SConscript', variant_dir='out/b')\n# SConscript('out/x')\n"}),
])
def test_a_build_including_no_writable_file_stays_allowed(setup: Setup, line: str, files: dict[str, str]) -> None:
    # (cmake and scons read the build files of every folder below: out/ may hold only notes)
    writable = "@workspace/out/*.md" if "cmake" in line or "scons" in line else "@workspace/out/**"
    assert _verdict(setup, line, files, writable) is Effect.ALLOW
