"""Build code no build file names (s172): make reads the makefiles ``MAKEFILES`` names and the
options ``MAKEFLAGS`` holds (``-I``, ``--eval``) from the environment Echo Desk runs in; cmake's
``-D`` values name code it runs (``CMAKE_PROJECT_INCLUDE``, ``CMAKE_TOOLCHAIN_FILE``, the
folders ``find_package`` searches: ``<Pkg>_DIR``, ``CMAKE_PREFIX_PATH``), and so do its
environment's ``CMAKE_PREFIX_PATH``, ``<Pkg>_ROOT`` and ``CMAKE_TOOLCHAIN_FILE``; a configure's
install prefix is where ``cmake --install``/``make install`` later write. Each proven with make
4.3 and cmake 3.25 (the cmake lines in the hostile corpus, issue ``s172``).

scons (not installed here, verdicts only): ``-u``/``-U``/``-D`` build from the nearest folder
above holding a SConstruct, a build file's ``import`` runs a module beside it (SCons puts its
folder first on ``sys.path``), and ``~/.scons/site_scons/site_init.py`` runs before any build file.

An assignment on the line itself (``MAKEFILES=out/x.mk make``, ``env MAKEFILES=… make``,
``export MAKEFILES=…; make``) already asks: the engine asks for any assignment but a few inert
ones."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .passed_env import pass_on
from .test_build_includes import CMAKE_TOP, _verdict

NOTES = "@workspace/out/*.md"  # the agent may write notes in out/, which no build file is named


@pytest.mark.parametrize(("line", "environment", "files"), [
    # MAKEFILES: read first, relative to the folder make runs in (-C's), nested includes followed.
    ("make", {"MAKEFILES": "out/notes.md"}, {"Makefile": "all:\n\t@true\n"}),
    ("make", {"MAKEFILES": "src/a.mk  @WS@/out/notes.md"}, {"Makefile": "all:\n"}),
    ("make", {"MAKEFILES": "src/a.mk"}, {"Makefile": "all:\n", "src/a.mk": "include out/notes.md\n"}),
    ("make -C src", {"MAKEFILES": "../out/notes.md"}, {"src/Makefile": "all:\n"}),
    # … and looked for in the include folders, those of MAKEFLAGS' -I too.
    ("make", {"MAKEFILES": "notes.md", "MAKEFLAGS": "-I out"}, {"Makefile": "all:\n"}),
    ("make", {"MAKEFLAGS": "s -Iout"}, {"Makefile": "include notes.md\nall:\n"}),
    ("make", {"GNUMAKEFLAGS": "--include-dir=out"}, {"Makefile": "include notes.md\nall:\n"}),
    # cmake --build runs make with the same environment.
    ("cmake --build src/b", {"MAKEFILES": "@WS@/out/notes.md"}, {"src/b/Makefile": "all:\n"}),
    # cmake's environment: a toolchain file, a package's folders.
    ("cmake -S src -B b", {"CMAKE_TOOLCHAIN_FILE": "@WS@/out/notes.md"}, {"src/CMakeLists.txt": CMAKE_TOP}),
    ("cmake -S src -B b", {"CMAKE_PREFIX_PATH": "/usr:@WS@/out"}, {"src/CMakeLists.txt": CMAKE_TOP}),
    ("cmake -S src -B b", {"Foo_ROOT": "@WS@/out"}, {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo)\n"}),
    ("cmake -S src -B b", {"Foo_DIR": "@WS@/out"}, {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo)\n"}),
])
def test_code_the_environment_names_asks_when_the_agent_may_write_it(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, line: str, environment: dict[str, str],
        files: dict[str, str]) -> None:
    for name, value in environment.items():
        pass_on(monkeypatch, name, value.replace("@WS@", str(setup.workspace)))
    assert _verdict(setup, line, files, NOTES) is not Effect.ALLOW


@pytest.mark.parametrize("environment", [
    {"MAKEFILES": "$(X)"},
    {"MAKEFLAGS": "--eval=$(file <x)"},
    {"MAKEFLAGS": "s -- SHELL=/bin/x"},
    {"MAKEFLAGS": "-I"},
    {"MAKEFLAGS": "--include-dir=a\\ b"},
])
def test_a_make_variable_not_read_lets_any_writable_file_count(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, environment: dict[str, str]) -> None:
    for name, value in environment.items():
        pass_on(monkeypatch, name, value)
    assert _verdict(setup, "make", {"Makefile": "all:\n"}, "~/notes/**") is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cmake -S src -B b -DCMAKE_PROJECT_INCLUDE=../out/notes.md",
    "cmake -S src -B b -D CMAKE_PROJECT_INCLUDE_BEFORE=out/notes.md",
    "cmake -S src -B b -DCMAKE_PROJECT_p_INCLUDE:FILEPATH=@WS@/out/notes.md",
    "cmake -S src -B b '-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=a.cmake;out/notes.md'",
    "cmake -S src -B b -D CMAKE_TOOLCHAIN_FILE:FILEPATH=../out/notes.md",
    "cmake -S src -B b -DCMAKE_MODULE_PATH=out",
    "cmake -S src -B b -DFoo_DIR=out",
    "cmake -S src -B b '-DCMAKE_PREFIX_PATH=/usr;out'",
    # What a file named so includes counts too.
    "cmake -S src -B b -DCMAKE_TOOLCHAIN_FILE=src/tc.cmake",
])
def test_code_a_cmake_setting_names_asks_when_the_agent_may_write_it(setup: Setup, line: str) -> None:
    files = {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo)\n", "src/tc.cmake": "include(out/notes.md)\n"}
    assert _verdict(setup, line.replace("@WS@", str(setup.workspace)), files, NOTES) is not Effect.ALLOW


@pytest.mark.parametrize("option", [
    "-DCMAKE_INSTALL_PREFIX=@HOME@",
    "-D CMAKE_INSTALL_PREFIX:PATH=@HOME@",
    "-DCMAKE_STAGING_PREFIX=@HOME@/.local",
    "--install-prefix @HOME@",
    "--install-prefix=@HOME@",
])
def test_an_install_prefix_is_judged_as_written_below(setup: Setup, option: str) -> None:
    """``cmake --install b`` and ``make -C b install`` later write below the prefix this line
    stores in b's cache (``install(FILES rc DESTINATION . RENAME .bashrc)``: proven)."""
    line = f"cmake -S src -B b {option.replace('@HOME@', str(setup.home))}"
    assert _verdict(setup, line, {"src/CMakeLists.txt": CMAKE_TOP}, NOTES) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "environment"), [
    ("make", {"MAKEFILES": "src/a.mk", "MAKEFLAGS": "ks -j4 --jobserver-auth=3,4 --no-print-directory"}),
    ("cmake -S src -B b -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF '-DCMAKE_PREFIX_PATH=/usr;/opt'",
     {"CMAKE_PREFIX_PATH": "/usr/local", "XDG_RUNTIME_DIR": "/run/user/0"}),
])
def test_variables_naming_no_writable_file_stay_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch, line: str,
                                                         environment: dict[str, str]) -> None:
    for name, value in environment.items():
        pass_on(monkeypatch, name, value)
    files = {"Makefile": "all:\n", "src/a.mk": "X = 1\n", "src/CMakeLists.txt": CMAKE_TOP}
    assert _verdict(setup, line, files, NOTES) is Effect.ALLOW


# -- scons (not installed here: verdicts only, from its manual and its SConscript.py) ------------

@pytest.mark.parametrize(("line", "files", "writable"), [
    # -u, -U and -D look for the SConstruct in each folder above and build from there: what it
    # takes in counts as if scons had started there.
    ("cd src/deep && scons -u", {"src/SConstruct": "SConscript('../out/notes.md')\n", "src/deep/x": ""}, NOTES),
    ("scons -C src/deep -U", {"src/SConstruct": "SConscript('../out/notes.md')\n", "src/deep/x": ""}, NOTES),
    ("scons -C src/deep -QD", {"src/SConstruct": "SConscript('../out/notes.md')\n", "src/deep/x": ""}, NOTES),
    ("scons -C src/deep --up", {"src/SConstruct": "SConscript('../out/notes.md')\n", "src/deep/x": ""}, NOTES),
    # A SConscript's folder is first on sys.path while it runs, then its callers': an import
    # runs the module found there, and what that module imports in turn.
    ("scons", {"SConstruct": "import helper\n"}, "@workspace/helper*.py"),
    ("scons", {"SConstruct": "from helper import x\n"}, "@workspace/helper*.py"),
    ("scons", {"SConstruct": "SConscript('src/SConscript')\n", "src/SConscript": "import util\n"},
     "@workspace/src/util*.py"),
    ("scons", {"SConstruct": "SConscript('src/SConscript')\n", "src/SConscript": "SConscript('lib/SConscript')\n",
               "src/lib/SConscript": "import util\n"}, "@workspace/src/util*.py"),
    ("scons", {"SConstruct": "import helper\n", "helper.py": "import more\n"}, "@workspace/more*.py"),
    ("scons", {"SConstruct": "from pkg import sub\n", "pkg/__init__.py": ""}, "@workspace/pkg/sub*.py"),
    # The person's own site_scons/site_init.py runs before any build file.
    ("scons", {"SConstruct": "x = 1\n"}, "~/.scons/site_scons/site_init*.py"),
])
def test_scons_code_by_other_names_asks_when_the_agent_may_write_it(setup: Setup, line: str, files: dict[str, str],
                                                                     writable: str) -> None:
    assert _verdict(setup, line, files, writable) is not Effect.ALLOW


@pytest.mark.parametrize(("line", "files"), [
    ("scons", {"SConstruct": "import os\nimport SCons.Script\nimport helper\n", "helper.py": "X = 1\n"}),
    ("scons -C src/deep", {"src/SConstruct": "SConscript('../out/notes.md')\n", "src/deep/x": ""}),
])
def test_scons_importing_no_writable_file_stays_allowed(setup: Setup, line: str, files: dict[str, str]) -> None:
    assert _verdict(setup, line, files, NOTES) is Effect.ALLOW


# -- s195: code cmake runs that no -D names: the compilers of its environment and their
# launchers, the user package registry, and the settings a CMakeLists sets before project() ---

@pytest.mark.parametrize(("hostile", "harmless"), [
    ({"CC": "@WS@/out/notes.md"}, {"CC": "/usr/bin/gcc"}),
    ({"CXX": "ccache @WS@/out/notes.md"}, {"CXX": "ccache g++"}),
    ({"CFLAGS": "-O2 -fplugin=@WS@/out/notes.md"}, {"CFLAGS": "-O2 -Wall"}),
    ({"CXXFLAGS": "-B@WS@/out"}, {"CXXFLAGS": "-std=c++17"}),
    ({"CMAKE_C_COMPILER_LAUNCHER": "@WS@/out/notes.md"}, {"CMAKE_C_COMPILER_LAUNCHER": "ccache"}),
    ({"CMAKE_CXX_LINKER_LAUNCHER": "@WS@/out/notes.md"}, {"CMAKE_CXX_LINKER_LAUNCHER": "/usr/bin/env"}),
    ({"ASM_NASM": "@WS@/out/notes.md"}, {"ASM_NASM": "nasm"}),
])
def test_a_compiler_the_environment_names_counts(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                 hostile: dict[str, str], harmless: dict[str, str]) -> None:
    files = {"src/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p C CXX)\n"}
    for environment, allowed in ((harmless, True), (hostile, False)):
        for name, value in environment.items():
            pass_on(monkeypatch, name, value.replace("@WS@", str(setup.workspace)))
        assert (_verdict(setup, "cmake -S src -B b", files, NOTES) is Effect.ALLOW) is allowed


# -- s207: make takes its environment's variables as its own: its built-in rules run CC, CXX…
# with CFLAGS, LDFLAGS… with no makefile at all, and so does a makefile's $(CC) ---------------

@pytest.mark.parametrize(("hostile", "harmless"), [
    ({"CC": "out/notes.md"}, {"CC": "gcc"}),  # (relative: to the folder make runs in)
    ({"CC": "@WS@/out/notes.md"}, {"CC": "/usr/bin/gcc"}),
    ({"CXX": "ccache @WS@/out/notes.md"}, {"CXX": "ccache g++"}),
    ({"CFLAGS": "-O2 -fplugin=@WS@/out/notes.md"}, {"CFLAGS": "-O2 -Wall"}),
    ({"LDFLAGS": "-B@WS@/out"}, {"LDFLAGS": "-L/usr/lib"}),
    ({"COMPILE.c": "@WS@/out/notes.md -c"}, {"COMPILE.c": "cc -c"}),
])
@pytest.mark.parametrize(("line", "files"), [
    ("make foo", {"foo.c": "int main(void) { return 0; }\n"}),  # no makefile: the built-in rules
    ("make", {"Makefile": "all:\n\t$(CC) -v\n"}),
])
def test_the_programs_of_makes_built_in_rules_in_the_environment_count(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, hostile: dict[str, str], harmless: dict[str, str],
        line: str, files: dict[str, str]) -> None:
    for environment, allowed in ((harmless, True), (hostile, False)):
        for name, value in environment.items():
            pass_on(monkeypatch, name, value.replace("@WS@", str(setup.workspace)))
        assert (_verdict(setup, line, files, NOTES) is Effect.ALLOW) is allowed


def test_the_folders_the_user_package_registry_names_count(setup: Setup) -> None:
    files = {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo)\n"}
    registry = setup.home / ".cmake" / "packages" / "Foo"
    registry.mkdir(parents=True)
    (registry / "a1b2").write_text("/usr/lib/cmake/Foo\n")
    assert _verdict(setup, "cmake -S src -B b", files, NOTES) is Effect.ALLOW
    (registry / "c3d4").write_text(f"{setup.workspace}/out\n")
    assert _verdict(setup, "cmake -S src -B b", files, NOTES) is not Effect.ALLOW
    (registry / "c3d4").unlink()
    # (new entries there name any folder)
    assert _verdict(setup, "cmake -S src -B b", files, "~/.cmake/**") is not Effect.ALLOW


@pytest.mark.parametrize(("path", "writable"), [
    # find_package searches below the prefix of every PATH folder (its parent for .../bin):
    # ~/.local/lib/cmake/Foo/FooConfig.cmake ran under cmake with ~/.local/bin on the PATH (s207).
    ("~/.local/bin", "~/.local/lib/**"),
    ("~/bin", "~/foo-x/**"),  # ~/foo-x/share/foo/foo-config.cmake ran too
    ("~/.local/sbin/", "~/.local/share/foo/*.cmake"),
    ("~/tools", "~/tools/lib/cmake/**"),  # not .../bin: the folder itself
    ("~/bin", "~/foo-x/share/foo/foo-config.cmake"),
    ("~/bin", "~/[a-z]*/**"),  # (not ~/**: ~/.cmake/packages, the registry, counts already)
    ("~/.local/bin", "~/.local/lib/x86_64-linux-gnu/cmake/Foo/*"),
    ("~/.local/bin", "~/.local/foo/lib/foo/CMake/x.cmake"),
    ("~/.local/bin", "~/.local/lib/cmake/*.cmake"),  # (lib/<name>*/: a package named cmake…)
    ("~/.local/bin", "~/.local/notes/**"),  # (<name>*/lib/<name>*/: a package named n…)
])
def test_the_prefixes_of_the_path_count_for_cmake(setup: Setup, monkeypatch: pytest.MonkeyPatch, path: str,
                                                  writable: str) -> None:
    files = {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo CONFIG)\n"}
    pass_on(monkeypatch, "PATH", "/usr/bin:/bin")
    assert _verdict(setup, "cmake -S src -B b", files, writable) is Effect.ALLOW
    pass_on(monkeypatch, "PATH", f"/usr/bin:{path.replace('~', str(setup.home))}:/bin")
    assert _verdict(setup, "cmake -S src -B b", files, writable) is not Effect.ALLOW


@pytest.mark.parametrize("writable", [
    "~/.local/share/*.cmake",  # (a file right in share/ is in no folder find_package searches)
    "~/.local/*.cmake",
    "~/.local/share/doc/a/b/*.cmake",  # (deeper than any)
    "~/notes/**",
    "@workspace/out/*.md",  # (/bin on the PATH: the prefix /, but the workspace is too deep in it)
])
def test_other_files_below_a_path_prefix_leave_cmake_allowed(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                                             writable: str) -> None:
    files = {"src/CMakeLists.txt": CMAKE_TOP + "find_package(Foo CONFIG)\n"}
    pass_on(monkeypatch, "PATH", f"/usr/bin:{setup.home}/.local/bin:/bin")
    assert _verdict(setup, "cmake -S src -B b", files, writable) is Effect.ALLOW


@pytest.mark.parametrize("setting", [
    "set(CMAKE_PROJECT_INCLUDE ../out/notes.md)",
    "set(CMAKE_PROJECT_p_INCLUDE_BEFORE ../out/notes.md)",
    "set(CMAKE_TOOLCHAIN_FILE ${CMAKE_SOURCE_DIR}/../out/notes.md)",
    "set(CMAKE_USER_MAKE_RULES_OVERRIDE ../out/notes.md)",
    "set(CMAKE_C_COMPILER ../out/notes.md)",
    "set(CMAKE_C_COMPILER_LAUNCHER ../out/notes.md)",
    "set(CMAKE_CROSSCOMPILING_EMULATOR ../out/notes.md)",
])
def test_code_a_cmakelists_names_before_project_counts(setup: Setup, setting: str) -> None:
    """The CMakeLists the agent may not write names a file it may (proven with
    ``set(CMAKE_PROJECT_INCLUDE out/inc.cmake)`` before ``project()``); values are cmake's to
    work out, so any file counts."""
    top = "cmake_minimum_required(VERSION 3.10)\n"
    harmless = {"src/CMakeLists.txt": top + "set(CMAKE_BUILD_TYPE Release)\nproject(p C)\n"
                "if(CMAKE_C_COMPILER_ID STREQUAL GNU)\nmessage(${CMAKE_C_COMPILER})\nendif()\n"}
    assert _verdict(setup, "cmake -S src -B b", harmless, NOTES) is Effect.ALLOW
    hostile = {"src/CMakeLists.txt": top + setting + "\nproject(p C)\n"}
    assert _verdict(setup, "cmake -S src -B b", hostile, NOTES) is not Effect.ALLOW
