"""s326: the movers besides mv and git mv put a folder's files below a destination no word of the
line names (``removed_folders.landings``, s320): with writes allowed in out/, src/ and prod/ and
``@workspace/prod/*.py`` denied, ``cmake -E rename src prod`` (cmake 3.25), ``hg mv src prod``
and ``hg cp src prod`` (hg 6.3; a copy lands too) put src/main.py at prod/main.py (strace, bash
and dash), and ``hg cp``'s destination was not judged at all: ``hg cp src/main.py docs/x.md``
wrote where no write was allowed. cp -r, rsync, tar -x and cmake -E copy_directory already
write below their destination (``file_programs``, ``programs``, ``cmake_modes``)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, hg_moves
from echo_desk.agent.permissions.hg_moves import Moved

from .conftest import Setup
from .engine_verdicts import effect_under, rule_text, writes_allowed

#: (Writes kept to out/: in a repository the agent may write hg's own settings of, every hg
#: command asks already, so the hg lines are judged outside one, as hg_rules does.)
RULES: str = rule_text("cmake **", "hg **", "cp **", "rsync **") + writes_allowed(
    "@workspace/out/**", "@workspace/prod", "@workspace/prod/**")
#: Each lands out/src/m.py (or a file the line puts in out/src/ first) below prod/.
LANDINGS = (
    "cmake -E rename out/src prod", "cmake -E rename out/src/ prod",
    "hg mv out/src prod", "hg rename out/src prod", "hg move out/src prod", "hg cp out/src prod",
    "hg copy out/src prod", "hg cp -f out/src/ prod", "hg mv out/src out/a.txt prod",
    "hg cop out/src prod",
    # (what cp -r and rsync write below their destination was judged already: guards)
    "cp -r out/src prod", "cp -a out/src/ prod", "rsync -a out/src prod",
)
#: Plain files copied or moved to where no refusing rule reaches, folders landing where none does.
LEFT = (
    "cmake -E rename out/src/m.py prod/m.txt", "cmake -E rename out/src out/s", "hg cp out/src/m.py prod/m.txt",
    "hg mv out/src out/s", "hg cp out/src out/s", "hg mv out/src/m.py out/m.py", "hg status", "hg cat out/src/m.py",
)


def _refused(pattern: str) -> str:
    return f'{RULES}{rule_text(pattern, effect="deny", tool="write")}'


def _asks(effect: Effect | None) -> bool:
    return effect in (None, Effect.ASK)


@pytest.fixture
def folders(setup: Setup) -> Setup:
    """out/src/m.py and out/a.txt."""
    (setup.workspace / "out" / "src").mkdir()
    (setup.workspace / "out" / "src" / "m.py").write_text("print('main')\n")
    (setup.workspace / "out" / "a.txt").write_text("a\n")
    return setup


@pytest.mark.parametrize("line", LANDINGS)
@pytest.mark.parametrize("pattern", ["@workspace/prod/*.py", "@workspace/prod/**/secrets/**"])
def test_a_folder_another_mover_takes_whole_is_judged_below_where_it_lands(folders: Setup, line: str,
                                                                          pattern: str) -> None:
    assert effect_under(folders, RULES, line) is Effect.ALLOW
    assert _asks(effect_under(folders, _refused(pattern), line))


@pytest.mark.parametrize("line", LEFT)
def test_a_plain_file_or_a_landing_no_rule_reaches_stays_allowed(folders: Setup, line: str) -> None:
    assert effect_under(folders, _refused("@workspace/prod/*.py"), line) is Effect.ALLOW


@pytest.mark.parametrize("line", ["hg cp out/src/m.py docs/x.md", "hg mv out/src docs", "hg --cwd out cp src/m.py ../docs/",
                                  "hg cp out/src/m.py ~/.bashrc", "hg cp -A out/src/m.py docs/x.md", "hg cp src out"])
def test_hg_copy_and_rename_write_their_destination(folders: Setup, line: str) -> None:
    # (only out/ is the agent's to write; -A only records, judged the same)
    assert _asks(effect_under(folders, RULES, line))


@pytest.mark.parametrize(("line", "moved"), [
    (("hg", "mv", "a", "b"), Moved(written=("./b", "./b/a"), removed=("./a",), landed=(("./a", "./b"),))),
    (("hg", "-q", "rename", "a", "d/", "b"), Moved(written=("./b", "./b/a", "./b/d"), removed=("./a", "./d/"),
                                                  landed=(("./a", "./b"), ("./d/", "./b")))),
    (("hg", "cp", "-f", "a", "b"), Moved(written=("./b", "./b/a"), landed=(("./a", "./b"),))),
    (("hg", "--cwd", "out", "copy", "a", "../b"), Moved(written=("out/../b", "out/../b/a"), landed=(("out/a", "out/../b"),))),
    (("hg", "cp", "glob:a*", "b"), Moved(written=("./b", None), landed=((None, "./b"),))),
    (("hg", "cp", "--forget", "b"), Moved()),
    (("hg", "status"), Moved()),
    (("hg", "cp", None, "b"), Moved(written=("./b", None), landed=((None, "./b"),))),
    (("hg", "cp", "--frobnicate", "a", "b"), Moved(written=(None,), removed=(None,), landed=((None, None),))),
])
def test_what_hg_copy_and_rename_write_move_away_and_land(line: tuple[str | None, ...], moved: Moved) -> None:
    # (a rename takes its sources away, a copy leaves them)
    assert hg_moves.moved(line) == moved


@pytest.mark.parametrize("line", ['hg mv out/src "$D"', 'hg cp "$D" prod', "hg cp --frobnicate out/src prod",
                                  "hg cp 'glob:out/src/*' prod"])
def test_an_hg_copy_not_known_here_asks(folders: Setup, line: str) -> None:
    assert _asks(effect_under(folders, _refused("@workspace/prod/*.py"), line))


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("line", ["hg mv src prod", "hg cp src prod", "cmake -E rename src prod"])
def test_the_movers_put_the_folders_files_below_the_destination(tmp_path: Path, shell: str, line: str) -> None:
    program = line.split()[0]
    if shutil.which(program) is None or shutil.which(shell) is None:
        pytest.skip(f"{program} or {shell} is not installed")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print('main')\n")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HGRCPATH": ""}
    if program == "hg":
        subprocess.run(["hg", "init"], cwd=tmp_path, check=True, capture_output=True, env=env)
        subprocess.run(["hg", "add", "-q", "src"], cwd=tmp_path, check=True, capture_output=True, env=env)
    argv = [shell, "--noprofile", "--norc", "-c"] if shell == "bash" else [shell, "-c"]
    subprocess.run([*argv, line], cwd=tmp_path, check=True, capture_output=True, env=env)
    assert (tmp_path / "prod" / "main.py").read_text() == "print('main')\n"
