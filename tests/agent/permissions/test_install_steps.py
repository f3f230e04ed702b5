"""Where build tools' install steps write, and the build folder files they run (s273), each
proven with strace under bash and dash (meson 1.12, cmake 3.25, ninja 1.11, cargo 1.95):

- ``meson setup``/``meson configure`` record the install folders (``--prefix P``, ``-Dprefix=P``,
  ``--bindir``…) in the build folder, and a later plain ``meson install`` writes below them
  without naming them: the configure is judged as writing below each, as cmake's is (s172);
- meson keeps the rest of what it read in the build folder as Python pickles
  (``meson-private/*.dat``): a planted ``install.dat`` ran a command under ``meson install``,
  ``coredata.dat`` under ``meson compile`` and under ``ninja`` (its regenerate step): code;
- the ``install`` target of cmake's build folder, under ninja or make, runs its
  ``cmake_install.cmake``: code;
- ``cargo install`` writes the program into ~/.cargo/bin, on your PATH: a rule covers it only by
  naming it, as ``go install``.
"""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed
from .test_install_records import cmake_record, meson_record

BUILDS = rule_text("[meson|cmake|ninja|make|cargo|go|cd] **")


@pytest.mark.parametrize("line", [
    "meson setup --prefix @HOME@ b", "meson setup b --prefix=@HOME@", "meson setup -Dprefix=@HOME@ b",
    "meson setup -D prefix=@HOME@ b", "meson setup b -Dsub:prefix=@HOME@", "meson b -Dprefix=@HOME@",
    "meson configure -Dprefix=@HOME@ b", "meson configure b --prefix @HOME@", "meson setup --reconfigure b --prefix @HOME@",
    "meson setup --datadir @HOME@/share b", "meson configure b -Dbindir=@HOME@/bin",
    "meson configure b --libdir lib",  # (below the prefix the build recorded: not known here)
    "meson setup --prefix=~/x b",  # (a `~` glued by `=`: bash expands it in some words, dash in none)
])
def test_a_recorded_install_folder_is_judged_as_written_below(setup: Setup, line: str) -> None:
    line = line.replace("@HOME@", str(setup.home))
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "meson setup b", "meson setup b -Db_lto=true --buildtype release --wrap-mode nodownload", "meson configure b",
    "meson configure b -Dwerror=true", "meson compile -C b", "ninja -C b", "cmake --build b", "cargo build", "cargo test",
])
def test_everyday_builds_stay_allowed(setup: Setup, line: str) -> None:
    assert effect_under(setup, BUILDS, line) is Effect.ALLOW


#: The agent may write data files anywhere in the workspace, or only cmake's install script.
DATA = writes_allowed("@workspace/**/*.dat")
INSTALL_SCRIPT = writes_allowed("@workspace/out/b/cmake_install.cmake")
#: ... and the staging folder the build folder records as its prefix (s280: an install step
#: writes below the folders its build folder records; test_install_records).
STAGE = writes_allowed("~/stage/**")


@pytest.mark.parametrize("line", [
    "meson install -C out/b", "meson install -Cout/b --no-rebuild", "cd out/b && meson install", "meson compile -C out/b",
    "meson test -C out/b", "meson configure out/b", "ninja -C out/b",
])
def test_meson_s_build_folder_pickles_are_code(setup: Setup, line: str) -> None:
    meson_record(setup.workspace / "out" / "b", f"{setup.home}/stage")
    assert effect_under(setup, BUILDS + DATA + STAGE, line) is not Effect.ALLOW
    assert effect_under(setup, BUILDS + STAGE, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["ninja -C out/b install", "cd out/b && ninja install", "ninja -C out/b",
                                  "cd out/b && make install", "cd out/b && make"])
def test_cmake_s_install_script_is_code_for_ninja_and_make(setup: Setup, line: str) -> None:
    cmake_record(setup.workspace / "out" / "b", f"{setup.home}/stage")
    (setup.workspace / "out" / "b" / "Makefile").write_text(
        "# CMAKE generated file: DO NOT EDIT!\ninstall:\n\tcmake -P cmake_install.cmake\n")
    assert effect_under(setup, BUILDS + INSTALL_SCRIPT + STAGE, line) is not Effect.ALLOW
    assert effect_under(setup, BUILDS + STAGE, line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["cargo install --path .", "cargo install --path . --root out/r", "cargo -q install --path .",
                                  "cargo uninstall hello", "cargo -q uninstall hello"])
def test_cargo_install_needs_a_rule_naming_it(setup: Setup, line: str) -> None:
    """(cargo uninstall deletes the program from ~/.cargo/bin: s280)"""
    assert effect_under(setup, BUILDS, line) is not Effect.ALLOW
    named = rule_text("cargo [install|uninstall] **", "cargo -q [install|uninstall] **")
    assert effect_under(setup, BUILDS + named, line) is Effect.ALLOW


#: A developer who stages installs below ~/stage through env (s293).
STAGED = BUILDS + rule_text("env DESTDIR=* [ninja|make|meson|cmake] **") + writes_allowed("~/stage/**")


@pytest.mark.parametrize(("kind", "line"), [
    ("cmake", "env DESTDIR=@HOME@/stage ninja -C b install"), ("cmake", "env DESTDIR=@HOME@/stage cmake --build b -t install"),
    ("cmake", "env DESTDIR=@HOME@/stage cmake --install b"), ("meson", "env DESTDIR=@HOME@/stage meson install -C b"),
    ("meson", "env DESTDIR=@HOME@/stage ninja -C b install"), ("cmake", "cd b && env DESTDIR=@HOME@/stage make install"),
])
def test_a_staged_install_given_by_env_is_judged_by_the_write_rules(setup: Setup, kind: str, line: str) -> None:
    """``env DESTDIR=D ninja -C b install`` opened nothing below D but what it installed: a
    CMakeLists.txt, cmake_install.cmake, build.ninja and Makefile planted there were not read
    (strace, cmake 3.25, ninja 1.11, make 4.3, bash and dash, s293). DESTDIR names where the
    install writes, which the write rules judge: a rule naming the variable covers it there."""
    (cmake_record if kind == "cmake" else meson_record)(setup.workspace / "b", "/usr/local")
    assert effect_under(setup, STAGED, line.replace("@HOME@", str(setup.home))) is Effect.ALLOW
    for elsewhere in ("@HOME@", "@HOME@/stage/..", "@HOME@/stage/l", "~/stage", "stage"):
        (setup.home / "stage").mkdir(exist_ok=True)
        if not (setup.home / "stage" / "l").is_symlink():
            (setup.home / "stage" / "l").symlink_to(setup.home)
        hostile = line.replace("@HOME@/stage", elsewhere).replace("@HOME@", str(setup.home))
        assert effect_under(setup, STAGED, hostile) is not Effect.ALLOW, hostile


@pytest.mark.parametrize("line", [
    "env DESTDIR=@HOME@/stage ninja -C b",  # (no install step: a variable the engine does not read)
    "env DESTDIR=@HOME@/stage make -C b install DESTDIR=@HOME@/stage",  # (make's own wins)
    "env DESTDIR=@HOME@/stage PYTHONPATH=@HOME@/stage ninja -C b install",
])
def test_destdir_is_read_only_where_the_install_step_takes_it(setup: Setup, line: str) -> None:
    cmake_record(setup.workspace / "b", "/usr/local")
    assert effect_under(setup, STAGED, line.replace("@HOME@", str(setup.home))) is not Effect.ALLOW


def test_a_staged_install_needs_a_rule_naming_the_variable(setup: Setup) -> None:
    cmake_record(setup.workspace / "b", "/usr/local")
    rules = BUILDS + writes_allowed("~/stage/**")
    assert effect_under(setup, rules, f"env DESTDIR={setup.home}/stage ninja -C b install") is not Effect.ALLOW


@pytest.mark.parametrize(("line", "elsewhere"), [
    ("env DESTDIR=@HOME@/stage cmake --install b --prefix /usr", ["@HOME@", "@HOME@/stage/.."]),
    ("env DESTDIR=@HOME@/stage cmake --install b --prefix=/opt/p", ["@HOME@", "@HOME@/stage/l"]),
    ("env DESTDIR=@HOME@/stage cmake --install b --prefix /../..", []),
])
def test_a_staged_install_below_a_prefix_the_line_names(setup: Setup, line: str, elsewhere: list[str]) -> None:
    """``env DESTDIR=D cmake --install b --prefix P`` wrote only below D/P (and the build
    folder's manifest), reading nothing there or in P (strace, cmake 3.25, bash and dash, s300):
    judged as writing below D/P and D/<each absolute destination>, not below P."""
    cmake_record(setup.workspace / "b", "/usr/local")
    (setup.home / "stage").mkdir()
    (setup.home / "stage" / "l").symlink_to(setup.home)
    filled = line.replace("@HOME@", str(setup.home))
    assert effect_under(setup, STAGED, filled) is (Effect.ALLOW if elsewhere else None)
    for hostile in elsewhere:
        wider = line.replace("@HOME@/stage", hostile).replace("@HOME@", str(setup.home))
        assert effect_under(setup, STAGED, wider) is not Effect.ALLOW, wider


def test_a_staged_install_keeps_an_absolute_destination_below_destdir(setup: Setup) -> None:
    """(``install(FILES … DESTINATION /abs)`` goes to D/abs whatever --prefix says)"""
    cmake_record(setup.workspace / "b", "/usr/local", destination=str(setup.home))
    rules = STAGED
    assert effect_under(setup, rules, f"env DESTDIR={setup.home}/stage cmake --install b --prefix /usr") is Effect.ALLOW
    assert effect_under(setup, rules, f"env DESTDIR={setup.home}/stage/.. cmake --install b --prefix "
                                      f"{setup.home}/stage") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["env DESTDIR=@HOME@ meson install -C b --destdir @HOME@/stage",
                                  "env DESTDIR=/ meson install -C b --destdir=@HOME@/stage/y",
                                  "cd b && env DESTDIR=@HOME@ meson install --destdir @HOME@/stage/x"])
def test_meson_s_destdir_leaves_the_environment_s_aside(setup: Setup, line: str) -> None:
    """``meson install --destdir D`` with DESTDIR=E in its environment wrote below D alone and
    opened nothing below E (strace, meson 1.12, bash and dash, s300): E names nothing there."""
    meson_record(setup.workspace / "b", "/usr/local")
    assert effect_under(setup, STAGED, line.replace("@HOME@", str(setup.home))) is Effect.ALLOW
    # (the folder --destdir names is still judged by the write rules)
    wider = line.replace("@HOME@/stage", "@HOME@").replace("@HOME@", str(setup.home))
    assert effect_under(setup, STAGED, wider) is not Effect.ALLOW, wider
