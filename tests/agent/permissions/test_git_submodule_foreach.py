"""s162: ``git submodule foreach LINE`` runs LINE in the folder of each submodule, not in the
folder the line runs in, so a relative path in it is another file: with writes kept to ``src/``,
``git submodule foreach 'printf x > src/main.c'`` overwrote the person's submodule's
``vendor/lib/src/main.c`` (proven here under bash and dash, git 2.39) while the engine judged
``src/main.c`` of the workspace. The line was judged as run in a folder not known here, so
``git submodule foreach git status`` asked; since s174 it is judged from each submodule's
folder, read from the index (``git_foreach``), and from a folder not known only when the index
cannot be read or may change first.

(The scratch world of the hostile corpus keeps its hooks in the worktree, which already makes
every ``git submodule`` line ask there: this proof builds its own repository.)"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect, git_foreach

from .conftest import Setup

RULES = """
[[rule]]
effect = "allow"
tool = "shell"
pattern = "[git|printf|echo] **"

[[rule]]
effect = "allow"
tool = "write"
pattern = "@workspace/src/**"
"""
WRITES_THE_SUBMODULE = "git submodule foreach 'printf PWNED > src/main.c'"


def _git(folder: Path, home: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=folder, check=True, capture_output=True, env=_env(home))


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
            "GIT_COMMITTER_EMAIL": "a@b", "GIT_ALLOW_PROTOCOL": "file"}


@pytest.fixture
def with_submodule(setup: Setup, tmp_path: Path) -> Path:
    """The workspace, a repository with the person's submodule at vendor/lib (its own src/)."""
    lib = tmp_path / "lib"
    (lib / "src").mkdir(parents=True)
    (lib / "src" / "main.c").write_text("int main(void) { return 0; }\n", encoding="utf-8")
    _git(tmp_path, setup.home, "init", "-q", "-b", "main", str(lib))
    _git(lib, setup.home, "add", ".")
    _git(lib, setup.home, "commit", "-q", "-m", "lib")
    ws = setup.workspace
    (ws / "src" / "main.c").write_text("int main(void) { return 1; }\n", encoding="utf-8")
    _git(ws, setup.home, "init", "-q", "-b", "main")
    _git(ws, setup.home, "add", ".")
    _git(ws, setup.home, "commit", "-q", "-m", "ws")
    _git(ws, setup.home, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib")
    _git(ws, setup.home, "commit", "-q", "-m", "submodule")
    setup.write_user_rules(RULES)
    setup.engine.refresh()
    return ws


@pytest.mark.parametrize("shell", ["bash", "dash"])
def test_foreach_writes_in_the_submodule_not_the_workspace(with_submodule: Path, setup: Setup, shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    argv = [shell, "--noprofile", "--norc", "-c"] if shell == "bash" else [shell, "-c"]
    subprocess.run([*argv, WRITES_THE_SUBMODULE], cwd=with_submodule, check=True, capture_output=True,
                   env=_env(setup.home))
    assert (with_submodule / "vendor" / "lib" / "src" / "main.c").read_text(encoding="utf-8") == "PWNED"
    assert "PWNED" not in (with_submodule / "src" / "main.c").read_text(encoding="utf-8")


@pytest.mark.parametrize("line", [
    WRITES_THE_SUBMODULE,
    "git submodule foreach 'echo start; printf x >> src/main.c'",
    "git add src && git submodule foreach 'printf x >> src/main.c'",  # (the index may change first: folder unknown)
])
def test_a_relative_path_foreach_runs_with_asks(with_submodule: Path, setup: Setup, line: str) -> None:
    assert setup.engine.check_command(line, workspace=with_submodule).effect is not Effect.ALLOW


@pytest.mark.parametrize("line", [
    "git submodule foreach 'echo hi'",
    f"git submodule foreach 'printf x > {'{ws}'}/src/out.txt'",  # (a path that does not depend on the folder)
    "printf x > src/out.txt",
    # s174: the line is judged from each submodule's folder (vendor/lib, from the index), with
    # the settings found there: nothing the agent may write.
    "git submodule foreach git status",
    "git -C vendor/lib submodule foreach 'printf x > src/main.c'",  # (no submodule there: nothing runs)
])
def test_what_does_not_depend_on_the_folder_stays_allowed(with_submodule: Path, setup: Setup, line: str) -> None:
    line = line.replace("{ws}", str(with_submodule))
    assert setup.engine.check_command(line, workspace=with_submodule).effect is Effect.ALLOW


@pytest.mark.parametrize(("writable", "line", "effect"), [
    # s174: judged from vendor/lib, the submodule's folder: its src/ is the one written …
    ("@workspace/vendor/lib/src/**", WRITES_THE_SUBMODULE, Effect.ALLOW),
    # … and the agent may plant settings git reads there (vendor/lib/.git)
    ("@workspace/vendor/**", "git submodule foreach git status", None),
    ("@workspace/vendor/**", "cd vendor && git submodule foreach git status", None),  # (the whole worktree's)
])
def test_the_line_is_judged_from_each_submodules_folder(with_submodule: Path, setup: Setup, writable: str,
                                                        line: str, effect: Effect | None) -> None:
    setup.write_user_rules(RULES.replace("@workspace/src/**", writable))
    setup.engine.refresh()
    assert setup.engine.check_command(line, workspace=with_submodule).effect is effect


def test_the_folders_foreach_runs_in(with_submodule: Path) -> None:
    ws = with_submodule
    assert git_foreach.folders(("git", "submodule", "foreach", "x"), [ws]) == [ws / "vendor" / "lib"]
    assert git_foreach.folders(("git", "-C", "src", "submodule", "--quiet", "foreach", "--recursive", "x"), [ws]) == [
        ws / "vendor" / "lib"]  # (from the top of the worktree; lib has none of its own)
    assert git_foreach.folders(("git", "-C", "vendor/lib", "submodule", "foreach", "x"), [ws]) == []
    assert git_foreach.folders(("git", "--git-dir", ".git", "submodule", "foreach", "x"), [ws]) is None
    assert git_foreach.folders(("git", "-C", None, "submodule", "foreach", "x"), [ws]) is None
    assert git_foreach.folders(("git", "submodule", "status"), [ws]) is None
