"""A project's own install code in a build folder configured before the line (s330): automake
copies Makefile.am's rules into the Makefile as they are, configure writes a Makefile.in of the
project's own, and cmake_install.cmake holds install(CODE) next to the generator's commands.
Each hostile case below was proven with strace under bash and dash (automake 1.16.5, autoconf
2.71, make 4.3, cmake 3.25): the hook ran ``touch ~/HOOKED``, ``INSTALL = touch ~/INST;`` ran
instead of install, ``transform = s,x,x,w ~/TW`` made sed write ~/TW, ``am__base_list = cat;
touch ~/AMB`` ran, a ``DESTDIR`` of the Makefile put the data below ~/.config/autostart, the
project's Makefile.in ran ``touch ~/HAND``, cmake deleted ~/.bashrc and wrote ~/evil.txt. The
generator's own forms stay allowed.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect, install_records

from .conftest import Setup
from .engine_verdicts import effect_under
from .test_install_records import (
    AUTOMAKE_HEAD,
    BUILDS,
    _cmake_generated,
    autotools_record,
    cmake_record,
    meson_record,
)

#: The project's own rules, where automake copies them (after its own ``.PRECIOUS: Makefile``).
OWN_RULES = {
    "install-data-hook": "install-data-hook:\n\ttouch $(HOME)/HOOKED\n",
    "install-exec-local": "install-exec-local:\n\techo x > $(HOME)/.bashrc\n",
    "uninstall-local": "uninstall-local:\n\trm -f $(HOME)/.bashrc\n",
    "installdirs-local": "installdirs-local:\n\tmkdir -p $(HOME)/x\n",
    "automake-s-target-taken": "install-data-am: pwn\npwn:\n\ttouch $(HOME)/PWN\n",
    "double-colon": "install-data-local::\n\ttouch $(HOME)/PWN\n",
    "two-targets": "docs install-exec-hook:\n\ttouch $(HOME)/PWN\n",
    "pattern": "install-%:\n\ttouch $(HOME)/PWN\n",
    "named-by-a-variable": "$(HOOK):\n\ttouch $(HOME)/PWN\n",
    "include": "include $(srcdir)/extra.mk\n",
    "a-directive": "ifeq (1,1)\nendif\n",
    "a-variable-of-its-own": "INSTALL = touch $(HOME)/INST;\n",
    "a-target-s-variable": "all-local: INSTALL = touch x;\n",
    "oneshell": ".ONESHELL:\n",
    "default": ".DEFAULT:\n\ttouch $(HOME)/PWN\n",
}
#: The project's own variables (Makefile.am's, or configure's AC_SUBST), where automake writes them.
OWN_VARIABLES = {
    "install": "INSTALL = touch $(HOME)/INST;\n",
    "install-data": "INSTALL_DATA = sh -c 'touch $$HOME/x'\n",
    "mkdir": "MKDIR_P = touch $(HOME)/x;\n",
    "shell": "SHELL = /tmp/sh\n",
    "normal-install": "NORMAL_INSTALL = touch $(HOME)/x\n",
    "destdir": "DESTDIR = /home/me/.config/autostart\n",
    "make": "MAKE = sh x\n",
    "makeflags": "MAKEFLAGS = -f evil.mk\n",
    "am-makeflags": "AM_MAKEFLAGS = DESTDIR=/x\n",
    "shellflags": ".SHELLFLAGS = -c touch x;\n",
    "transform": "transform = s,x,x,w $(HOME)/TW\n",
    "program-transform-name": "program_transform_name = s,x,x,;w /home/me/TW\n",
    "python": "PYTHON = touch x;\n",
    "automake-s-helper": "am__base_list = cat; touch $(HOME)/AMB\n",
    "automake-s-helper-appended": "am__install_max += ; touch x\n",
}
LINES = ["make -C b install", "cd b && make install-data", "make -C b install-strip"]


@pytest.mark.parametrize("own", OWN_RULES)
@pytest.mark.parametrize("line", LINES)
def test_an_automake_project_s_own_install_rules_ask(setup: Setup, own: str, line: str) -> None:
    autotools_record(setup.workspace / "b", f"{setup.home}/stage", own=OWN_RULES[own])
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW


@pytest.mark.parametrize("variable", OWN_VARIABLES)
@pytest.mark.parametrize("line", LINES)
def test_a_program_variable_not_configure_s_asks(setup: Setup, variable: str, line: str) -> None:
    autotools_record(setup.workspace / "b", f"{setup.home}/stage", variables=OWN_VARIABLES[variable])
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW


def test_a_hook_in_a_subdirectory_s_makefile_asks(setup: Setup) -> None:
    build = setup.workspace / "b"
    autotools_record(build, f"{setup.home}/stage")
    text = (build / "lib" / "Makefile").read_text()
    (build / "lib" / "Makefile").write_text(text.replace(".PRECIOUS: Makefile\n", ".PRECIOUS: Makefile\n"
                                                         "install-data-hook:\n\ttouch $(HOME)/HOOKED\n"))
    assert effect_under(setup, BUILDS, "make -C b install") is not Effect.ALLOW


@pytest.mark.parametrize("cut", ["footer", "rules-end", "after-footer"])
def test_a_makefile_without_automake_s_frame_asks(setup: Setup, cut: str) -> None:
    """(where the project's own rules stand is only known from automake's last rule and footer)"""
    build = setup.workspace / "b"
    autotools_record(build, f"{setup.home}/stage")
    text = (build / "Makefile").read_text()
    if cut == "footer":
        text = text.replace("# Tell versions", "# Told versions")
    elif cut == "rules-end":
        text = text.replace(".PRECIOUS: Makefile", ".SECONDARY: Makefile")
    else:
        text += "install-data-hook:\n\ttouch $(HOME)/HOOKED\n"
    (build / "Makefile").write_text(text)
    assert effect_under(setup, BUILDS, "make -C b install") is not Effect.ALLOW


def test_automake_s_own_forms_and_rules_no_install_runs_stay_allowed(setup: Setup) -> None:
    build = setup.workspace / "b"
    autotools_record(build, f"{setup.home}/stage",
                     variables="AM_MAKEFLAGS = --no-print-directory\nLIBTOOL = $(SHELL) $(top_builddir)/libtool\n"
                               "INSTALL = /bin/bash /src/p/build-aux/install-sh -c\n"
                               "program_transform_name = s&$$&-1&;s&^&foo-&;s/a/b/\n"
                               "transform = $(program_transform_name)\nPYTHON = /usr/bin/python3.11\n",
                     own=".PHONY: docs\n# the manual\ndocs: README\n\techo docs > docs.txt\n\n"
                         ".in.txt:\n\tsed s/x/y/ $< > $@\nall-local: docs\n")
    assert effect_under(setup, BUILDS, "make -C b install") is Effect.ALLOW
    assert install_records.recorded(build) is not None


def test_a_makefile_of_the_project_s_own_makefile_in_asks(setup: Setup) -> None:
    """configure writes a Makefile.in of the project's own (autoconf without automake): its
    install target ran ``touch ~/HAND`` beside the copy (autoconf 2.71, make 4.3, bash and dash)."""
    build = setup.workspace / "b"
    build.mkdir(parents=True)
    (build / "Makefile").write_text(
        f"# Makefile.  Generated from Makefile.in by configure.\nprefix = {setup.home}/stage\n"
        "datadir = $(prefix)/share\ninstall:\n\tmkdir -p $(DESTDIR)$(datadir)\n\ttouch $(HOME)/HAND\n")
    assert effect_under(setup, BUILDS, "make -C b install") is not Effect.ALLOW
    # (the same folders, written by automake)
    (build / "Makefile").unlink()
    autotools_record(build, f"{setup.home}/stage")
    assert AUTOMAKE_HEAD.startswith("# Makefile.in generated by automake")
    assert effect_under(setup, BUILDS, "make -C b install") is Effect.ALLOW


#: install(CODE) setting a variable the generator's commands take a path from: each deleted
#: ~/.bashrc or wrote ~/evil.txt under cmake --install (cmake 3.25, bash and dash).
CMAKE_CODE = {
    "old-export-files-set": 'set(_cmake_old_config_files "@HOME@/.bashrc")\nfile(REMOVE ${_cmake_old_config_files})',
    "old-export-files-string": 'string(CONCAT _cmake_old_config_files "@HOME@/.bashrc")\n'
                               "file(REMOVE ${_cmake_old_config_files})",
    "component-set": 'set(CMAKE_INSTALL_COMPONENT "/../../../../evil")',
    "component-unset": "unset(CMAKE_INSTALL_COMPONENT)",
    "component-hash-set": 'set(CMAKE_INST_COMP_HASH "/../../../../evil")',
    "loop-file-changed": 'foreach(file "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/share/d.txt")\n'
                         'string(CONCAT file "@HOME@/.bashrc")\nfile(RPATH_CHECK FILE "${file}" RPATH "x")\nendforeach()',
}


@pytest.mark.parametrize("code", CMAKE_CODE)
@pytest.mark.parametrize("line", ["cmake --install b", "make -C b install", "ninja -C b install"])
def test_cmake_install_code_setting_the_generator_s_variables_asks(setup: Setup, code: str, line: str) -> None:
    build = setup.workspace / "b"
    _cmake_generated(build, f"{setup.home}/stage", CMAKE_CODE[code].replace("@HOME@", str(setup.home)))
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW


#: The manifest's name as later cmakes write it: a component of other characters is hashed.
_HASHED_MANIFEST = '''if(CMAKE_INSTALL_COMPONENT)
  if(CMAKE_INSTALL_COMPONENT MATCHES "^[a-zA-Z0-9_.+-]+$")
    set(CMAKE_INSTALL_MANIFEST "install_manifest_${CMAKE_INSTALL_COMPONENT}.txt")
  else()
    string(MD5 CMAKE_INST_COMP_HASH "${CMAKE_INSTALL_COMPONENT}")
    set(CMAKE_INSTALL_MANIFEST "install_manifest_${CMAKE_INST_COMP_HASH}.txt")
    unset(CMAKE_INST_COMP_HASH)
  endif()
endif()'''


def test_a_later_cmake_s_hashed_manifest_stays_allowed(setup: Setup) -> None:
    _cmake_generated(setup.workspace / "b", f"{setup.home}/stage", _HASHED_MANIFEST)
    assert effect_under(setup, BUILDS, "cmake --install b") is Effect.ALLOW


@pytest.mark.parametrize(("line", "allowed"), [
    ("cmake --install b --component /../../../../evil", False), ("cmake --install b --component=a/b", False),
    ("cmake --install b --component Runtime", True), ("cmake --install b --component=dev.x+1", True),
])
def test_a_component_naming_a_path_asks(setup: Setup, line: str, allowed: bool) -> None:
    """cmake 3.25 writes the manifest as install_manifest_<C>.txt in the build folder: a ``/``
    in C leads it elsewhere (``--component /../../../../evil`` wrote ~/evil.txt)."""
    _cmake_generated(setup.workspace / "b", f"{setup.home}/stage")
    assert (effect_under(setup, BUILDS, line) is Effect.ALLOW) is allowed


def test_the_folders_of_a_clean_automake_record_are_read(setup: Setup) -> None:
    build = setup.workspace / "b"
    autotools_record(build, f"{setup.home}/stage")
    stage = f"{setup.home}/stage"
    # (bindir: no rule of the record refers to it, s335)
    assert install_records.recorded(build) == [stage, f"{stage}/share"]


def test_make_s_line_setting_a_program_variable_is_read(setup: Setup) -> None:
    build = setup.workspace / "b"
    autotools_record(build, f"{setup.home}/stage")
    assert install_records.recorded(build, {"INSTALL": "/tmp/x"}) is None
    assert install_records.recorded(build, {"am__install_max": "1; touch x"}) is None
    assert install_records.recorded(build, {"am__cd": "touch x;"}) is None
    assert install_records.recorded(build, {"prefix": f"{setup.home}/stage/p"}) is not None


@pytest.mark.parametrize("line", ["make -C b uninstall", "cd b && make uninstall-am"])
def test_uninstall_deletes_below_the_recorded_folders(setup: Setup, line: str) -> None:
    """``make uninstall`` on a folder configured for ~/.local deleted the person's own
    ~/.local/share/d.txt (automake 1.16.5, make 4.3, bash and dash): it is judged as the install
    step, below the recorded folders, and its hooks ask as the install's do."""
    autotools_record(setup.workspace / "b", f"{setup.home}/.local")
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW
    autotools_record(setup.workspace / "c", f"{setup.home}/stage")
    assert effect_under(setup, BUILDS, line.replace(" b", " c")) is Effect.ALLOW
    autotools_record(setup.workspace / "d", f"{setup.home}/stage", own=OWN_RULES["uninstall-local"])
    assert effect_under(setup, BUILDS, line.replace(" b", " d")) is not Effect.ALLOW


@pytest.mark.parametrize("line", ["ninja -C b uninstall", "make -C b uninstall", "cmake --build b --target uninstall"])
def test_uninstall_in_a_cmake_or_meson_folder_is_judged_as_its_install(setup: Setup, line: str) -> None:
    if line.startswith("ninja"):
        meson_record(setup.workspace / "b", f"{setup.home}/.local")
    else:
        cmake_record(setup.workspace / "b", f"{setup.home}/.local")
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW
