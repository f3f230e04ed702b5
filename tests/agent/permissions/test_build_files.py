"""Build tools and task runners whose build file is code they run (s148): ninja runs the
commands of build.ninja, cmake the CMakeLists.txt of the folder it configures (and every one
below, with the .cmake files they include), a -P script, a -C initial cache, the toolchain file
of a preset, and the generated build of ``cmake --build DIR``; gem runs the .gemspec it builds;
bundle the Gemfile, meson meson.build, scons SConstruct, just the justfile, tox tox.ini, nox
noxfile.py, gradle build.gradle, composer the scripts of composer.json and the plugins of
vendor/ (s173). Where the write rules let the agent write one of them, a rule
naming the program no longer allows it; where they do not, it stays in force. The hostile
corpus proves the harm for ninja, cmake and gem (issue ``s148``); the others are not installed
here and are pinned from their documentation only."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.agent.permissions.settings_files import places

from .conftest import Setup
from .engine_verdicts import effect_under, writes_allowed
from .passed_env import pass_on

PROGRAMS = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[ninja|cmake|bundle|bundle exec rspec|gem|meson|scons|just|tox|nox|gradle|composer|cd] **"
"""


def _verdict(setup: Setup, line: str, *writable: str) -> Effect | None:
    return effect_under(setup, PROGRAMS + writes_allowed(*writable), line)


@pytest.mark.parametrize("line", [
    # The build file of the folder it runs in (or, for bundle and just, of a folder above it).
    "cd out && ninja", "cd out && cmake ..", "cd out && bundle install", "cd out/deeper && bundle exec rspec",
    "cd out && gem build x.gemspec", "cd out && gem build", "cd out && meson setup b", "cd out && scons",
    "cd out/deeper && just", "cd out && tox", "cd out && nox", "cd out && gradle build",
    "cd out && composer install", "cd out/deeper && composer update", "cd out && composer run-script test",
    "cd out && composer test", "cd out && composer dump-autoload", "cd out && composer exec phpunit",
    # Options naming another folder: its build file.
    "ninja -C out", "ninja -Cout", "ninja -nC out", "cmake -S out -B src/b", "cmake -Sout -B src/b", "cmake out",
    "cmake -S src -B out/b", "cmake --build out/b", "cmake --install out/b", "meson setup out/b",
    "meson compile -C out/b", "scons -C out", "scons -Y out", "scons --site-dir out", "gradle -p out build",
    "gradle --project-dir=out build", "gradle --include-build out build",
    "composer -d out install", "composer -dout install", "composer -nd out install", "composer --working-dir=out test",
    "composer --working-dir out run-script test", "composer install -d out",
    # Options naming the code file itself.
    "ninja -f out/x.ninja", "ninja -fout/x.ninja", "cmake -P out/x.cmake", "cmake -C out/c.cmake -S src -B src/b",
    "cmake --toolchain out/t.cmake -S src -B src/b", "bundle install --gemfile out/Gemfile",
    "bundle install --gemfile=out/Gemfile", "gem build out/x.gemspec", "scons -f out/S", "scons --file=out/S",
    "just -f out/j", "just --justfile out/j", "tox -c out/tox.ini", "tox --conf out/tox.ini", "tox -c out", "nox -f out/n.py",
    "nox --noxfile=out/n.py", "gradle -b out/b.gradle build", "gradle -I out/i.gradle build",
    "gradle --settings-file out/s.gradle build",
])
def test_build_files_the_agent_may_write_ask(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "ninja", "ninja -j4", "ninja -C src", "ninja -f src/x.ninja", "bundle install", "bundle exec rspec",
    "gem build x.gemspec", "gem list", "gem build src/x.gemspec", "just", "just -l", "tox", "tox -e py311", "nox",
    "nox -s lint", "composer install", "composer update", "composer run-script test", "composer test",
    "composer -d src install", "composer --version",
])
def test_build_files_the_agent_cannot_write_leave_the_rule_in_force(setup: Setup, line: str) -> None:
    assert _verdict(setup, line, "@workspace/out/**") is Effect.ALLOW


@pytest.mark.parametrize("line", [
    "cmake -S . -B build", "cmake -S src -B src/b", "cmake --build src/b", "cmake -P src/x.cmake", "meson setup b",
    "scons", "scons -j4", "gradle build", "gradle -p src build",
])
def test_tree_readers_stay_allowed_when_no_build_file_is_writable(setup: Setup, line: str) -> None:
    """cmake, meson, scons and gradle read build files in every folder below the one they start
    from (out/ is below the workspace): a write rule letting the agent write out/ gives it one,
    a rule letting it write only out/*.md does not."""
    assert _verdict(setup, line, "@workspace/out/**") is not Effect.ALLOW
    assert _verdict(setup, line, "@workspace/out/*.md") is Effect.ALLOW


@pytest.mark.parametrize(("line", "writable"), [
    # cmake reads the CMakeLists.txt of every folder below (add_subdirectory) and the .cmake
    # files they include; meson each meson.build (subdir()); gradle each subproject's build.
    ("cmake -S . -B build", "@workspace/src/**"), ("cmake -S . -B build", "@workspace/src/*.cmake"),
    ("meson setup build", "@workspace/src/**"), ("gradle build", "@workspace/src/*.gradle.kts"),
    # scons imports site_scons, gradle compiles and runs buildSrc.
    ("scons", "@workspace/site_scons/**"), ("gradle build", "@workspace/buildSrc/**"),
    # A preset's toolchain file is named in CMakePresets.json, in the folder cmake runs in.
    ("cmake --preset dev", "@workspace/CMakePresets.json"),
    # The user's own settings: bundle's (its `gemfile`), gradle's init scripts.
    ("bundle install", "~/.bundle/**"), ("gradle build", "~/.gradle/init.d/**"), ("gradle build", "~/.gradle/*"),
    # composer: the project's composer.json (its scripts), the lock file naming what install
    # puts in vendor/, the plugins vendor/ holds; its home's settings and global plugins.
    ("composer install", "@workspace/composer.json"), ("composer install", "@workspace/composer.lock"),
    ("composer test", "@workspace/vendor/**"), ("composer install", "~/.config/composer/**"),
    ("composer install", "~/.composer/**"), ("composer run-script test", "~/.composer/vendor/composer/*"),
])
def test_each_file_a_build_tool_runs_counts(setup: Setup, line: str, writable: str) -> None:
    assert _verdict(setup, line, writable) is not Effect.ALLOW
    assert _verdict(setup, line, "@workspace/docs/*.md") is Effect.ALLOW


def test_the_environment_may_name_the_code_file(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """BUNDLE_GEMFILE (JUST_JUSTFILE) in the environment the commands inherit names the file
    bundle (just) evaluates instead of the one it finds."""
    assert _verdict(setup, "bundle install", "@workspace/out/**") is Effect.ALLOW
    pass_on(monkeypatch, "BUNDLE_GEMFILE", str(setup.workspace / "out" / "Gemfile"))
    assert _verdict(setup, "bundle install", "@workspace/out/**") is not Effect.ALLOW
    pass_on(monkeypatch, "JUST_JUSTFILE", "out/j")
    assert _verdict(setup, "just", "@workspace/out/**") is not Effect.ALLOW
    # $COMPOSER names the composer.json composer runs the scripts of; $COMPOSER_HOME its home.
    assert _verdict(setup, "composer install", "@workspace/out/**") is Effect.ALLOW
    pass_on(monkeypatch, "COMPOSER", "out/c.json")
    assert _verdict(setup, "composer install", "@workspace/out/**") is not Effect.ALLOW
    monkeypatch.delenv("COMPOSER")
    pass_on(monkeypatch, "COMPOSER_HOME", str(setup.workspace / "out" / "c"))
    assert _verdict(setup, "composer test", "@workspace/out/**") is not Effect.ALLOW


@pytest.mark.parametrize("argv", [
    ("ninja", "-C", None), ("ninja", "-f", None), ("cmake", "-P", None), ("gem", "build", None), ("just", "-f", None),
    ("gradle", "-I"), ("tox", "-c"), ("composer", "-d", None, "install"), ("composer", "install", "--working-dir"),
])
def test_a_file_or_folder_known_only_when_the_line_runs_is_any(setup: Setup, argv: tuple[str | None, ...]) -> None:
    assert any(p.folder == Path("/") and p.below for p in places(argv, [setup.workspace]))


@pytest.mark.parametrize("line", [
    "ninja -f ~/scratch/b.ninja", "ninja -f ~/scratch/n/b.ninja -t targets", "cmake -P ~/scratch/x.cmake",
    "cmake -C ~/scratch/c.cmake -S src -B src/b", "cmake --toolchain ~/scratch/t.cmake -S src -B src/b",
    "scons -f ~/scratch/S", "just --justfile ~/scratch/j", "tox -c ~/scratch", "gradle -I ~/scratch/i.gradle build",
    "ninja -f ~other/x.ninja",
])
def test_a_code_file_named_below_the_home_folder_counts(setup: Setup, line: str) -> None:
    """The shell makes a word starting ``~/`` a path below the home folder (s202: ``ninja -f
    ~/scratch/b.ninja`` ran the agent's build file, read below the folder ninja runs in); another
    user's home is not known here."""
    assert _verdict(setup, line, "~/scratch/**") is not Effect.ALLOW
    if "~other" not in line and line not in _RUN_THERE:
        assert _verdict(setup, line, "~/elsewhere/**") is Effect.ALLOW


#: Lines whose code file also moves the program into its folder, outside the workspace (s222:
#: just runs a justfile's recipes and tox a tox.ini's commands in that file's folder): they ask
#: whatever the write rules say.
_RUN_THERE = frozenset({"just --justfile ~/scratch/j", "tox -c ~/scratch"})


def test_a_code_file_glued_to_its_option_is_read_as_written(setup: Setup) -> None:
    """``-f~/x`` is one word the shell leaves alone: ninja reads the folder named ``~``."""
    assert _verdict(setup, "ninja -f~/b.ninja", "@workspace/~/**") is not Effect.ALLOW
    assert _verdict(setup, "ninja -f~/b.ninja", "~/**") is not Effect.ALLOW
