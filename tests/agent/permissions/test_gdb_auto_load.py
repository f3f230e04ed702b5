"""s165: what gdb (13) loads with a program. Where the person's auto-load safe-path lets it (``set
auto-load safe-path /``, the line gdb's own warning suggests), ``gdb -batch PROG`` runs
``PROG-gdb.gdb``/``PROG-gdb.py`` beside the program, a script inside the program's
``.debug_gdb_scripts`` section and one inside its separate debug file; ``-D DIR`` runs
DIR/python/gdb/__init__.py whatever the safe-path. All proven (the hostile corpus, rule set
``gdb-auto-load``; the tests below that run gdb). Echo Desk does not read the safe-path, so the
program and the files that come with it count as ./.gdbinit does: a rule naming gdb no longer
allows a line loading a program the agent may write or plant beside."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect

from .conftest import Setup
from .engine_verdicts import effect_under
from .engine_verdicts import rule_text as _rules

RULES = _rules("[gdb|cd] **") + _rules("@workspace/out/**", tool="write")


def _verdict(setup: Setup, line: str, rules: str = RULES) -> Effect | None:
    return effect_under(setup, rules, line)


@pytest.mark.parametrize("line", [
    "gdb -batch out/prog",
    "gdb -q out/prog",
    "gdb -batch -e out/prog",
    "gdb -batch --exec=out/prog",
    "gdb -batch -se=out/prog",
    "gdb -batch src/prog out/core",
    "gdb -batch --args out/prog x",
    "gdb -batch -- out/prog",
    "gdb -batch -cd out prog",
    "gdb -batch --cd=out prog",
    "cd out && gdb -batch prog",
    # attaching to a process: its program and libraries may be any file
    "gdb -batch src/prog 1234",
    "gdb -batch -p 1234",
    "gdb -batch -pid=1234",
    # -D: the folder gdb's own python package is run from
    "gdb -batch -D out",
    "gdb -batch -D=out",
    "gdb -batch --data-directory out",
    "gdb -batch -data-d=out",
])
def test_a_program_the_agent_may_write_and_what_comes_with_it_ask(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is not Effect.ALLOW


@pytest.mark.parametrize("planted", ["src/prog-gdb.py", "src/prog-gdb.gdb", "src/prog-gdb.scm", "src/prog.debug",
                                     "src/.debug/prog.debug"])
def test_a_file_auto_loaded_with_a_program_the_agent_may_write_asks(setup: Setup, planted: str) -> None:
    """The program is the person's (src/ is not the agent's); one file gdb loads with it is."""
    rules = RULES + _rules(f"@workspace/{planted}", tool="write")
    assert _verdict(setup, "gdb -batch src/prog", RULES) is Effect.ALLOW
    assert _verdict(setup, "gdb -batch src/prog", rules) is not Effect.ALLOW


def test_a_link_to_a_program_the_agent_may_write_asks(setup: Setup) -> None:
    """gdb looks for the scripts beside the file the link leads to."""
    (setup.workspace / "src" / "prog").symlink_to(setup.workspace / "out" / "prog")
    assert _verdict(setup, "gdb -batch src/prog") is not Effect.ALLOW


@pytest.mark.parametrize("line", ["gdb -batch src/prog", "gdb -q", "gdb -batch --args src/prog out/input",
                                  "gdb -batch -d src src/prog", "gdb --version"])
def test_a_program_of_the_persons_stays_allowed(setup: Setup, line: str) -> None:
    assert _verdict(setup, line) is Effect.ALLOW


def _gdb(tmp_path: Path, *args: str) -> None:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".gdbinit").write_text("set auto-load safe-path /\n", encoding="utf-8")
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    subprocess.run(["gdb", "-batch", *args], cwd=tmp_path, env=env, check=False, capture_output=True, timeout=60)


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
@pytest.mark.parametrize("script", ["prog-gdb.gdb", "prog-gdb.py"])
def test_gdb_runs_the_script_beside_the_program_it_loads(tmp_path: Path, script: str) -> None:
    shutil.copy("/bin/true", tmp_path / "prog")
    text = "shell touch PWNED\n" if script.endswith(".gdb") else "import os\nos.system('touch PWNED')\n"
    (tmp_path / script).write_text(text, encoding="utf-8")
    _gdb(tmp_path, "prog")
    assert (tmp_path / "PWNED").exists()


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_gdb_runs_the_python_package_of_the_data_directory(tmp_path: Path) -> None:
    package = tmp_path / "d" / "python" / "gdb"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("import os\nos.system('touch PWNED')\n", encoding="utf-8")
    _gdb(tmp_path, "-D", "d")
    assert (tmp_path / "PWNED").exists()


# -- s175: a core file names the libraries gdb loads (and auto-loads what comes with each) --------
#: The start of an ELF core file (64-bit, little-endian, ``e_type`` 4): what the engine looks at.
CORE_HEAD = b"\x7fELF\x02\x01\x01" + b"\x00" * 9 + (4).to_bytes(2, "little") + b"\x00" * 46


@pytest.mark.parametrize("line", ["gdb -batch src/prog src/core", "gdb -batch -c src/core src/prog",
                                  "gdb -batch --core=src/core src/prog", "gdb -batch -core src/core"])
def test_a_core_file_of_the_persons_asks_where_the_agent_may_write_anywhere(setup: Setup, line: str) -> None:
    """The core is the person's (src/), but the libraries it names may be the agent's (out/)."""
    shutil.copy("/bin/true", setup.workspace / "src" / "prog")
    (setup.workspace / "src" / "core").write_bytes(CORE_HEAD)
    assert _verdict(setup, "gdb -batch src/prog") is Effect.ALLOW
    assert _verdict(setup, line) is not Effect.ALLOW


def test_a_word_naming_no_file_or_a_folder_is_no_core(setup: Setup) -> None:
    shutil.copy("/bin/true", setup.workspace / "src" / "prog")
    for line in ("gdb -batch src/prog src/missing", "gdb -batch -d src src/prog"):
        assert _verdict(setup, line) is Effect.ALLOW, line


@pytest.mark.skipif(shutil.which("gdb") is None or shutil.which("cc") is None, reason="gdb or cc is not installed")
def test_gdb_runs_the_script_beside_a_library_a_core_file_names(tmp_path: Path) -> None:
    """A program run with its library from out/ (``LD_LIBRARY_PATH=out``, as a build folder is
    used); its core, taken with gdb's gcore, names out/libx.so; a script planted beside that
    library runs under ``gdb -batch src/prog src/core``."""
    (tmp_path / "out").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "out" / "lib.c").write_text("int f(void) { return 42; }\n", encoding="utf-8")
    (tmp_path / "src" / "prog.c").write_text("#include <unistd.h>\nint f(void);\nint main(void) { f(); pause(); }\n",
                                             encoding="utf-8")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", "out/libx.so", "out/lib.c"], cwd=tmp_path, check=True)
    subprocess.run(["cc", "-o", "src/prog", "src/prog.c", "-Lout", "-lx"], cwd=tmp_path, check=True)
    running = subprocess.Popen(["src/prog"], cwd=tmp_path, env={**os.environ, "LD_LIBRARY_PATH": "out"})
    try:
        for _ in range(50):  # (until the library is mapped)
            if "libx.so" in Path(f"/proc/{running.pid}/maps").read_text(encoding="utf-8"):
                break
            subprocess.run(["sleep", "0.1"], check=True)
        _gdb(tmp_path, "-nx", "-p", str(running.pid), "-ex", "gcore src/core")
    finally:
        running.kill()
        running.wait()
    assert (tmp_path / "src" / "core").exists()
    (tmp_path / "out" / "libx.so-gdb.py").write_text("import os\nos.system('touch PWNED')\n", encoding="utf-8")
    _gdb(tmp_path, "src/prog", "src/core")
    assert (tmp_path / "PWNED").exists()
