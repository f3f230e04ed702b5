"""Nothing a sandboxed command plants in a repository runs later outside the sandbox.

Each test runs one hostile command through the real ``run_command`` in a real bwrap sandbox,
then does what the person does next, outside Echo Desk: a plain ``git commit``. The hooks the
command tried to plant append to a marker file outside the workspace; it must stay absent.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

pytestmark = requires_bwrap

HOOK = "#!/bin/sh\necho ran >> {marker}\n"


def _marker(jail: Jail) -> Path:
    return jail.base / "hooks-ran"


def _hook(jail: Jail) -> str:
    """A shell line (for the sandboxed command) that writes a hook body to stdout."""
    return f"printf '#!/bin/sh\\necho ran >> {_marker(jail)}\\n'"


def person_commits(repo: Path, jail: Jail) -> subprocess.CompletedProcess[str]:
    """``git commit`` in ``repo`` as the person would run it: outside any sandbox, their own
    environment (no system or global git configuration in this fake home)."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@example.com",
           "GIT_COMMITTER_NAME": "p", "GIT_COMMITTER_EMAIL": "p@example.com"}
    return subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "by the person"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=60)


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", "-c", "protocol.file.allow=always", *args],
                   cwd=cwd, check=True, capture_output=True, timeout=60)


def hooks_ran(jail: Jail) -> int:
    marker = _marker(jail)
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def _assert_hook_would_run(jail: Jail, repo: Path) -> None:
    """The attack is real: the same hook, planted by hand, runs on the person's commit."""
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text(HOOK.format(marker=_marker(jail)))
    (hooks / "pre-commit").chmod(0o755)
    assert person_commits(repo, jail).returncode == 0
    assert hooks_ran(jail) == 1
    (hooks / "pre-commit").unlink()
    _marker(jail).unlink()


async def test_a_commondir_pointing_at_a_repository_of_the_commands_own_runs_no_hook(jail: Jail) -> None:
    ws = jail.workspace
    command = (f"git init -q evil && mv evil/.git/* evil/ && rmdir evil/.git && {_hook(jail)} > evil/hooks/pre-commit"
               " && chmod +x evil/hooks/pre-commit && echo ../evil > .git/commondir; cat .git/commondir")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    person_commits(ws, jail)
    assert hooks_ran(jail) == 0, result.output
    assert not (ws / ".git" / "commondir").exists()


@pytest.mark.parametrize("own_hooks", [False, True], ids=["plain", "git folder with a hooks folder"])
async def test_a_worktree_workspace_whose_git_file_is_rewritten_runs_no_hook(jail: Jail, own_hooks: bool) -> None:
    main = jail.base / "main"
    _git("init", "-q", str(main), cwd=jail.base)
    _git("commit", "-q", "--allow-empty", "-m", "first", cwd=main)
    worktree = jail.base / "wt"
    _git("worktree", "add", "-q", str(worktree), cwd=main)
    if own_hooks:
        (main / ".git" / "worktrees" / "wt" / "hooks").mkdir()
    command = (f"git init -q g && mv g/.git .g && rmdir g && {_hook(jail)} > .g/hooks/pre-commit && "
               "chmod +x .g/hooks/pre-commit && printf 'gitdir: .g\\n' > .git; cat .git")
    result = await run(tool_with(), {"command": command}, context(worktree))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    assert "gitdir:" in result.output, result.output  # the sandbox started
    person_commits(worktree, jail)
    assert hooks_ran(jail) == 0, result.output
    assert (worktree / ".git").read_text().startswith(f"gitdir: {main}")


async def test_a_submodule_whose_git_file_is_rewritten_runs_no_hook(jail: Jail) -> None:
    ws = jail.workspace
    library = jail.base / "library"
    _git("init", "-q", str(library), cwd=jail.base)
    _git("commit", "-q", "--allow-empty", "-m", "lib", cwd=library)
    _git("submodule", "add", "-q", str(library), "lib", cwd=ws)
    assert (ws / "lib" / ".git").is_file()
    command = (f"cd lib && git init -q g && mv g/.git .g && rmdir g && {_hook(jail)} > .g/hooks/pre-commit && "
               "chmod +x .g/hooks/pre-commit && printf 'gitdir: .g\\n' > .git; cat .git")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success
    person_commits(ws / "lib", jail)
    assert hooks_ran(jail) == 0, result.output
    assert "modules/lib" in (ws / "lib" / ".git").read_text()


async def test_a_hook_in_a_submodules_own_git_folder_never_runs(jail: Jail) -> None:
    ws = jail.workspace
    library = jail.base / "library"
    _git("init", "-q", str(library), cwd=jail.base)
    _git("commit", "-q", "--allow-empty", "-m", "lib", cwd=library)
    _git("submodule", "add", "-q", str(library), "lib", cwd=ws)
    hooks = ws / ".git" / "modules" / "lib" / "hooks"
    command = (f"mkdir -p {hooks}; {_hook(jail)} > {hooks}/pre-commit; chmod +x {hooks}/pre-commit; "
               f"echo '[core]' >> .git/modules/lib/config; echo 'hooksPath = /tmp' >> .git/modules/lib/config")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success
    person_commits(ws / "lib", jail)
    assert hooks_ran(jail) == 0, result.output


async def test_a_hook_planted_in_a_nested_repository_never_runs(jail: Jail) -> None:
    nested = jail.workspace / "vendor" / "nested"
    nested.mkdir(parents=True)
    _git("init", "-q", ".", cwd=nested)
    _assert_hook_would_run(jail, nested)
    command = (f"{_hook(jail)} > vendor/nested/.git/hooks/pre-commit; chmod +x vendor/nested/.git/hooks/pre-commit; "
               "ls vendor/nested/.git/hooks")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success
    person_commits(nested, jail)
    assert hooks_ran(jail) == 0, result.output


async def test_a_nested_repositorys_config_cannot_be_changed(jail: Jail) -> None:
    nested = jail.workspace / "nested"
    nested.mkdir()
    _git("init", "-q", ".", cwd=nested)
    before = (nested / ".git" / "config").read_bytes()
    hooks = jail.workspace / "evil-hooks"
    command = (f"mkdir evil-hooks && {_hook(jail)} > evil-hooks/pre-commit && chmod +x evil-hooks/pre-commit && "
               f"git -C nested config core.hooksPath {hooks}; echo '[core] hooksPath = {hooks}' >> nested/.git/config")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success
    person_commits(nested, jail)
    assert hooks_ran(jail) == 0, result.output
    assert (nested / ".git" / "config").read_bytes() == before


async def test_a_nested_repository_moved_aside_and_rebuilt_runs_no_hook(jail: Jail) -> None:
    nested = jail.workspace / "nested"
    nested.mkdir()
    _git("init", "-q", ".", cwd=nested)
    command = (f"mv nested nested.old && git init -q nested && {_hook(jail)} > nested/.git/hooks/pre-commit && "
               "chmod +x nested/.git/hooks/pre-commit")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    person_commits(nested, jail)
    assert hooks_ran(jail) == 0, result.output


@pytest.mark.parametrize("how", ["git init", "by hand"])
async def test_a_repository_the_command_creates_keeps_no_hook_or_config(jail: Jail, how: str) -> None:
    make = ("git init -q made" if how == "git init" else
            "mkdir -p made/.git/objects made/.git/refs/heads made/.git/hooks && echo 'ref: refs/heads/main' "
            "> made/.git/HEAD")
    command = (f"{make} && {_hook(jail)} > made/.git/hooks/pre-commit && chmod +x made/.git/hooks/pre-commit && "
               "printf '[core]\\n\\tfsmonitor = true\\n' >> made/.git/config")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    made = jail.workspace / "made"
    person_commits(made, jail)
    assert hooks_ran(jail) == 0, result.output
    assert not (made / ".git" / "hooks").exists() and not (made / ".git" / "config").exists()
    planted = {(p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]}
    assert {("made/.git/hooks", "created"), ("made/.git/config", "created")} <= planted
    assert "tried to plant" in result.output
    kept = {p["path"]: Path(p["kept"]) for p in result.metadata["sandbox"]["planted"]}
    assert (kept["made/.git/hooks"] / "pre-commit").is_file()  # put aside, not lost
    assert not os.access(kept["made/.git/hooks"] / "pre-commit", os.X_OK) or os.getuid() == 0
    assert (kept["made/.git/hooks"] / "pre-commit").stat().st_mode & 0o777 == 0o600
    assert (made / ".git" / "HEAD").exists()  # the repository itself stays: only what runs code goes


async def test_a_hooks_path_inside_the_workspace_is_protected_too(jail: Jail) -> None:
    """A repository whose hooks live in the work tree (husky: ``core.hooksPath = .husky``)."""
    ws = jail.workspace
    _git("config", "core.hooksPath", ".husky", cwd=ws)
    (ws / ".husky").mkdir()
    (ws / ".husky" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (ws / ".husky" / "pre-commit").chmod(0o755)
    command = f"{_hook(jail)} > .husky/pre-commit; {_hook(jail)} > .husky/commit-msg; chmod +x .husky/*"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success
    person_commits(ws, jail)
    assert hooks_ran(jail) == 0, result.output
    assert sorted(p.name for p in (ws / ".husky").iterdir()) == ["pre-commit"]


async def test_ordinary_git_work_still_works_in_every_repository(jail: Jail) -> None:
    nested = jail.workspace / "nested"
    nested.mkdir()
    _git("init", "-q", ".", cwd=nested)
    command = ("for r in . nested; do (cd $r && echo x > f && git add f && "
               "git -c user.name=t -c user.email=t@e commit -qm c && git branch b2 && git tag t1 && "
               "git checkout -q b2 && git log --oneline | wc -l) || echo FAILED $r; done")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and "FAILED" not in result.output, result.output
    assert result.metadata["sandbox"]["planted"] == []


async def test_a_folder_the_command_makes_into_a_git_folder_runs_no_hook(jail: Jail) -> None:
    """git takes a folder holding ``HEAD``, ``objects/`` and ``refs/`` for a repository of its own
    (a bare one, or one with a work tree if its ``config`` says so): ``cd src && git commit``
    would use its hooks and settings, not the workspace's."""
    src = jail.workspace / "src"
    src.mkdir()
    command = (f"cd src && git init -q --bare . && {_hook(jail)} > hooks/pre-commit && chmod +x hooks/pre-commit"
               " && git config core.bare false && git config core.worktree .. && git rev-parse --git-dir")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    person_commits(src, jail)
    assert hooks_ran(jail) == 0, result.output
    assert not (src / "config").exists() and not (src / "hooks").exists()
    planted = {p["path"] for p in result.metadata["sandbox"]["planted"]}
    assert {"src/config", "src/hooks"} <= planted


HIDE_FROM_THE_SEARCH = {
    "a cache tag": "echo 'Signature: 8a477f597d28d172789f06886806bc55' > vendor/CACHEDIR.TAG",
    "a virtual environment": "echo 'home = /usr/bin' > vendor/pyvenv.cfg",
    "a git folder's look": "git init -q --bare vendor/x && mv vendor/x/HEAD vendor/x/objects vendor/x/refs vendor/",
}


@pytest.mark.parametrize("hide", list(HIDE_FROM_THE_SEARCH), ids=list(HIDE_FROM_THE_SEARCH))
async def test_a_nested_repository_hidden_from_the_search_afterwards_runs_no_hook(jail: Jail, hide: str) -> None:
    """What was watched before the command is looked at again after it, whether or not the
    search still finds it (a folder made to look like one not entered)."""
    nested = jail.workspace / "vendor" / "nested"
    nested.mkdir(parents=True)
    _git("init", "-q", ".", cwd=nested)
    command = (f"{_hook(jail)} > vendor/nested/.git/hooks/pre-commit; chmod +x vendor/nested/.git/hooks/pre-commit; "
               f"{HIDE_FROM_THE_SEARCH[hide]}")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    person_commits(nested, jail)
    assert hooks_ran(jail) == 0, result.output


@pytest.mark.parametrize("where", ["the repository's", "the home folder's"])
async def test_a_file_git_configuration_includes_cannot_name_a_hooks_folder(jail: Jail, where: str) -> None:
    """Teams share settings with ``include.path``; dotfiles keep a ``~/.gitconfig.local``. Such a
    file in the workspace is git configuration too: a hooks path planted in it, and the hooks
    folder it names, do not stay."""
    ws = jail.workspace
    if where == "the repository's":
        _git("config", "include.path", "../team.gitconfig", cwd=ws)
        included = ws / "team.gitconfig"
    else:
        (jail.home / ".gitconfig").write_text(f"[include]\n\tpath = {ws}/local.gitconfig\n")
        included = ws / "local.gitconfig"
    included.write_text("[user]\n\tname = me\n")
    hooks = ws / "tools" / "hooks"
    command = (f"mkdir -p {hooks} && {_hook(jail)} > {hooks}/pre-commit && chmod +x {hooks}/pre-commit && "
               f"printf '[core]\\n\\thooksPath = {hooks}\\n' >> {included.name}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    person_commits(ws, jail)
    assert hooks_ran(jail) == 0, result.output
    assert included.read_text() == "[user]\n\tname = me\n"


#: Settings naming a program git runs, as the person wrote them (``{tool}``: the program's path),
#: and what the person then types: ``core.fsmonitor`` runs at every ``git status`` (git 2.36 and
#: later take a path), an alias with ``!`` runs its shell command.
CONFIG_PROGRAMS = {
    "core.fsmonitor": ("[core]\n\tfsmonitor = {tool}\n", ["status"]),
    "an alias": ("[alias]\n\tst = !sh {tool} --short\n", ["st"]),
    # By a relative path: git runs it from the top of the work tree, wherever the person is in it
    # (tested with git 2.39: each ran at the person's git command on the code before this check).
    "core.fsmonitor, relative": ("[core]\n\tfsmonitor = ./tools/git-helper\n", ["status"]),
    "an alias, relative": ("[alias]\n\tst = \"!f() {{ tools/git-helper; }}; f\"\n", ["st"]),
}


def _person_runs_git(jail: Jail, args: list[str]) -> None:
    """In a sub-folder of the workspace: a relative path is still taken from its top."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1"}
    (jail.workspace / "src").mkdir(exist_ok=True)
    subprocess.run(["git", *args], cwd=jail.workspace / "src", env=env, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("setting", sorted(CONFIG_PROGRAMS))
@pytest.mark.parametrize("where", ["the repository's", "the home folder's"])
def test_a_program_git_settings_name_written_by_hand_runs_at_the_persons_git_command(
        jail: Jail, setting: str, where: str) -> None:
    tool = _config_program(jail, setting, where)
    tool.write_text(HOOK.format(marker=_marker(jail)))
    tool.chmod(0o755)
    _person_runs_git(jail, CONFIG_PROGRAMS[setting][1])
    assert hooks_ran(jail) >= 1


def _config_program(jail: Jail, setting: str, where: str) -> Path:
    tool = jail.workspace / "tools" / "git-helper"
    tool.parent.mkdir(exist_ok=True)
    text = CONFIG_PROGRAMS[setting][0].format(tool=tool)
    config = jail.workspace / ".git" / "config" if where == "the repository's" else jail.home / ".gitconfig"
    with config.open("a") as handle:
        handle.write(text)
    return tool


@pytest.mark.parametrize("setting", sorted(CONFIG_PROGRAMS))
@pytest.mark.parametrize("where", ["the repository's", "the home folder's"])
@pytest.mark.parametrize("existed", [False, True], ids=["new", "existing"])
async def test_a_program_git_settings_name_cannot_be_planted(jail: Jail, setting: str, where: str,
                                                             existed: bool) -> None:
    """The settings are protected, but the program they name by its path is the workspace's
    (``~/.local/share/fsmonitor-watchman``, a ``tools/`` script of the team): a command that
    writes it runs at the person's next ``git status`` as a hook would."""
    tool = _config_program(jail, setting, where)
    if existed:
        tool.write_text("#!/bin/sh\ntrue\n")
        tool.chmod(0o755)
    command = f"{_hook(jail)} > tools/git-helper; chmod 755 tools/git-helper"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_git(jail, CONFIG_PROGRAMS[setting][1])
    assert hooks_ran(jail) == 0, result.output


#: A command runs as the person: it can take its own bits off a folder of the workspace. Git
#: still opens ``.git/commondir`` by name in a folder it cannot list, and ``chmod 555`` leaves
#: nothing in a folder to be moved out.
FOLDER_MODES = {
    "the workspace unreadable": "chmod 311 .",
    "its git folder unreadable": "chmod 311 .git",
    "its git folder unchangeable": "chmod 555 .git evil",
}


@pytest.mark.usefixtures("as_its_owner")
@pytest.mark.parametrize("mode", list(FOLDER_MODES), ids=list(FOLDER_MODES))
async def test_a_folder_made_unreadable_or_unchangeable_hides_nothing_from_the_check(jail: Jail, mode: str) -> None:
    ws = jail.workspace
    _git("commit", "-q", "--allow-empty", "-m", "first", cwd=ws)
    # ``evil`` has no HEAD: not a git folder by its look, only by the commondir naming it.
    command = ("git init -q evil && mv evil/.git/* evil/ && rmdir evil/.git && rm evil/HEAD && "
               f"cp -r .git/objects .git/refs evil/ && {_hook(jail)} > evil/hooks/pre-commit && "
               f"chmod +x evil/hooks/pre-commit && echo ../evil > .git/commondir && {FOLDER_MODES[mode]}")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert person_commits(ws, jail).returncode == 0
    assert hooks_ran(jail) == 0, result.output
    assert not (ws / ".git" / "commondir").exists()
    planted = {p["path"] for p in result.metadata["sandbox"]["planted"]}
    assert {".git/commondir", "evil/hooks"} <= planted, planted


@pytest.mark.usefixtures("as_its_owner")
async def test_a_folder_the_person_locked_before_the_command_is_left_as_it_is(jail: Jail, monkeypatch) -> None:
    """Only what the command could have locked is opened up: a folder the person made
    unreadable themselves keeps its mode, and is not reported. (The guard counts a change
    within 2 s of its snapshot as the command's; the test takes that margin away rather than
    wait it out.)"""
    from echo_desk.sandbox import guard

    monkeypatch.setattr(guard, "_RACY_NS", 0)
    mine = jail.workspace / "mine"
    mine.mkdir()
    (mine / "diary.txt").write_text("mine\n")
    os.chmod(mine, 0o311)
    result = await run(tool_with(), {"command": "mkdir theirs && chmod 311 theirs"},
                       context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert stat.S_IMODE((jail.workspace / "mine").stat().st_mode) == 0o311
    planted = {p["path"] for p in result.metadata["sandbox"]["planted"]}
    assert "mine" not in planted and "theirs" in planted, planted
    assert stat.S_IMODE((jail.workspace / "theirs").stat().st_mode) & 0o700 == 0o700


@pytest.mark.usefixtures("as_its_owner")
async def test_a_new_repositorys_hooks_folder_made_unreadable_is_not_taken_for_empty(jail: Jail) -> None:
    """``chmod 311 hooks``: git runs ``hooks/pre-commit`` by name; a listing sees nothing."""
    command = (f"git init -q made && {_hook(jail)} > made/.git/hooks/pre-commit && "
               "chmod +x made/.git/hooks/pre-commit && chmod 311 made/.git/hooks")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    person_commits(jail.workspace / "made", jail)
    assert hooks_ran(jail) == 0, result.output
    assert "made/.git/hooks" in {p["path"] for p in result.metadata["sandbox"]["planted"]}


@pytest.mark.parametrize("where", ["node_modules", "a cache folder from before"])
async def test_a_nested_repository_moved_where_the_search_does_not_look_and_linked_back_runs_no_hook(
        jail: Jail, where: str) -> None:
    """``vendor/lib`` becomes a link to the same repository, moved into a folder the search does
    not enter: the person's ``git commit`` in ``vendor/lib`` goes through the link."""
    ws = jail.workspace
    nested = ws / "vendor" / "lib"
    nested.mkdir(parents=True)
    _git("init", "-q", ".", cwd=nested)
    away = "node_modules"
    if where != "node_modules":
        away = "target"
        (ws / away).mkdir()
        (ws / away / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    command = (f"mkdir -p {away} && mv vendor/lib {away}/lib && {_hook(jail)} > {away}/lib/.git/hooks/pre-commit && "
               f"chmod +x {away}/lib/.git/hooks/pre-commit && ln -s ../{away}/lib vendor/lib")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    if nested.exists():
        person_commits(nested, jail)
    assert hooks_ran(jail) == 0, result.output
    assert "vendor/lib" in {p["path"] for p in result.metadata["sandbox"]["planted"]}


async def test_an_absolute_hooks_path_inside_the_workspace_is_protected_too(jail: Jail) -> None:
    """Setup scripts often write ``git config core.hooksPath "$PWD/.githooks"``: an absolute path."""
    ws = jail.workspace
    hooks = ws / ".githooks"
    hooks.mkdir()
    _git("config", "core.hooksPath", str(hooks), cwd=ws)
    command = f"{_hook(jail)} > .githooks/pre-commit && chmod +x .githooks/pre-commit"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success
    person_commits(ws, jail)
    assert hooks_ran(jail) == 0, result.output
    assert list(hooks.iterdir()) == []


async def test_an_included_settings_file_reached_through_a_new_link_does_not_stay(jail: Jail) -> None:
    """The repository's settings include a file that does not exist yet; the command makes the
    folder on its way a link into ``node_modules`` (not searched), with settings there."""
    ws = jail.workspace
    _git("config", "include.path", "../local/extra.gitconfig", cwd=ws)
    command = (f"mkdir -p node_modules/x && printf '[core]\\n\\tfsmonitor = {ws}/node_modules/x/watch\\n' > "
               f"node_modules/x/extra.gitconfig && {_hook(jail)} > node_modules/x/watch && "
               "chmod +x node_modules/x/watch && ln -s node_modules/x local")
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    person_commits(ws, jail)
    assert hooks_ran(jail) == 0, result.output
    assert not (ws / "local").exists()
    assert ("local", "created") in {(p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]}


#: A hook the person installed as a link to a script the project keeps (``ln -s ../../tools/pre-commit
#: .git/hooks/pre-commit``, as many projects' set-up instructions say), and an ``.envrc`` linked
#: to a shared one: what runs is the file the link lands on, an ordinary file of the workspace.
LINKED = {
    "hook": (".git/hooks/pre-commit", "../../tools/pre-commit", "tools/pre-commit"),
    "hook in a nested repository": ("sub/.git/hooks/pre-commit", "../../../tools/pre-commit", "tools/pre-commit"),
}


def _linked_hook(jail: Jail, case: str) -> tuple[Path, Path]:
    """The person's set-up: the link, and the script it lands on (a harmless hook); the repository."""
    link, target, script = LINKED[case]
    ws = jail.workspace
    repo = ws / link.split("/.git/")[0] if "/.git/" in link else ws
    if repo != ws:
        _git("init", "-q", str(repo), cwd=ws)
    (ws / script).parent.mkdir(parents=True, exist_ok=True)
    (ws / script).write_text("#!/bin/sh\ntrue\n")
    (ws / script).chmod(0o755)
    (ws / link).parent.mkdir(parents=True, exist_ok=True)
    (ws / link).symlink_to(target)
    return ws / script, repo


@pytest.mark.parametrize("case", sorted(LINKED))
def test_a_hook_linked_to_a_script_of_the_workspace_runs_that_script(jail: Jail, case: str) -> None:
    script, repo = _linked_hook(jail, case)
    script.write_text(HOOK.format(marker=_marker(jail)))
    assert person_commits(repo, jail).returncode == 0
    assert hooks_ran(jail) == 1


@pytest.mark.parametrize("case", sorted(LINKED))
async def test_the_script_a_linked_hook_lands_on_cannot_be_changed(jail: Jail, case: str) -> None:
    script, repo = _linked_hook(jail, case)
    relative = script.relative_to(jail.workspace)
    result = await run(tool_with(), {"command": f"{_hook(jail)} > {relative}"}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    person_commits(repo, jail)
    assert hooks_ran(jail) == 0, result.output
    assert script.read_text() == "#!/bin/sh\ntrue\n"


#: A protected file that has a second name (a hard link) in an ordinary, writable place of the
#: workspace: ``ln tools/pre-commit .git/hooks/pre-commit`` (a set-up script's way of installing a
#: hook), ``ln tools/gitconfig .git/config``. A read-only mount covers a path, not the file: the
#: command writes the file through its other name.
HARD_LINKED = {
    "hook": (".git/hooks/pre-commit", "tools/pre-commit", "#!/bin/sh\ntrue\n"),
    "config": (".git/config", "tools/gitconfig",
               "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"),
}


def _hard_linked(jail: Jail, case: str, body: str = "") -> tuple[Path, Path]:
    protected, other, mine = HARD_LINKED[case]
    ws = jail.workspace
    (ws / other).parent.mkdir(parents=True, exist_ok=True)
    (ws / protected).unlink(missing_ok=True)
    (ws / other).write_text(mine + body)
    (ws / other).chmod(0o755)
    os.link(ws / other, ws / protected)
    return ws / protected, ws / other


def _what_runs(jail: Jail, case: str) -> str:
    """What the command adds to the file, in the file's own language: the hook's line, or a
    file-system monitor git runs as a shell command on every commit."""
    marker = _marker(jail)
    return f"echo ran >> {marker}\n" if case == "hook" else f'\tfsmonitor = "echo ran >> {marker}; false"\n'


@pytest.mark.parametrize("case", sorted(HARD_LINKED))
def test_a_protected_file_hard_linked_to_a_file_of_the_workspace_runs_what_that_file_says(
        jail: Jail, case: str) -> None:
    _hard_linked(jail, case, _what_runs(jail, case))
    assert person_commits(jail.workspace, jail).returncode == 0
    assert hooks_ran(jail) >= 1  # git asks the monitor more than once a commit


@pytest.mark.parametrize("case", sorted(HARD_LINKED))
async def test_a_protected_file_changed_through_a_hard_link_is_put_back(jail: Jail, case: str) -> None:
    """The read-only cover and the check after saw only the path: the file changed through its
    other name stayed changed, and the person's next commit ran what the command wrote."""
    protected, other = _hard_linked(jail, case)
    mine = protected.read_text()
    addition = _what_runs(jail, case).replace("\t", "\\t").replace("\n", "\\n").replace('"', '\\"')
    command = f'printf "{addition}" >> {other.relative_to(jail.workspace)}'
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert protected.read_text() == mine, result.output
    person_commits(jail.workspace, jail)
    assert hooks_ran(jail) == 0, result.output
    relative = str(protected.relative_to(jail.workspace))
    assert (relative, "changed") in {(p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]}


@pytest.mark.parametrize("case", sorted(HARD_LINKED))
async def test_removing_the_other_name_of_a_hard_linked_file_changes_nothing_protected(jail: Jail, case: str) -> None:
    """``rm -r tools`` (or ``git clean``): the protected file keeps its content and is not reported."""
    protected, other = _hard_linked(jail, case)
    mine = protected.read_text()
    result = await run(tool_with(), {"command": f"rm {other.relative_to(jail.workspace)}"}, context(jail.workspace))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert protected.read_text() == mine and not other.exists()
    assert result.metadata["sandbox"]["planted"] == []


def _pre_commit() -> str | None:
    """pre-commit, installed (``pip install pre-commit``), or ``PRE_COMMIT`` naming one."""
    return os.environ.get("PRE_COMMIT") or shutil.which("pre-commit")


needs_pre_commit = pytest.mark.skipif(_pre_commit() is None, reason="needs pre-commit to show what its hook runs")

PRE_COMMIT_CONFIG = """repos:
- repo: local
  hooks:
  - id: mine
    name: mine
    entry: {entry}
    language: system
    pass_filenames: false
"""


def _nested_repository_with_pre_commit(jail: Jail) -> Path:
    """A repository inside the workspace (one of several projects in a folder) where the person
    ran ``pre-commit install``, with a harmless hook of their own, committed."""
    app = jail.workspace / "app"
    _git("init", "-q", str(app), cwd=jail.workspace)
    (app / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG.format(entry='"true"'))
    _git("add", "-A", cwd=app)
    _git("commit", "-q", "-m", "mine", cwd=app)
    pre_commit = _pre_commit()
    assert pre_commit is not None
    subprocess.run([pre_commit, "install"], cwd=app, check=True, capture_output=True, timeout=120,
                   env={"PATH": os.environ["PATH"], "HOME": str(jail.home)})
    return app


def _person_commits_there(app: Path, jail: Jail) -> None:
    (app / "work.txt").write_text("the person's work\n")
    _git("add", "work.txt", cwd=app)
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@example.com",
           "GIT_COMMITTER_NAME": "p", "GIT_COMMITTER_EMAIL": "p@example.com"}
    subprocess.run(["git", "commit", "-q", "-m", "by the person"], cwd=app, env=env, capture_output=True,
                   text=True, timeout=120)


@needs_pre_commit
def test_a_nested_repositorys_pre_commit_settings_written_by_hand_run_at_the_persons_commit(jail: Jail) -> None:
    app = _nested_repository_with_pre_commit(jail)
    (app / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG.format(entry=f"sh -c 'echo ran >> {_marker(jail)}'"))
    _git("add", ".pre-commit-config.yaml", cwd=app)
    _person_commits_there(app, jail)
    assert hooks_ran(jail) == 1


@needs_pre_commit
async def test_a_nested_repositorys_pre_commit_settings_changed_by_a_command_run_nothing(jail: Jail) -> None:
    """Only the workspace's top ``.pre-commit-config.yaml`` was protected: the command changed a
    nested repository's and staged it (the index is ordinary work), and the person's next commit
    there ran it."""
    app = _nested_repository_with_pre_commit(jail)
    mine = (app / ".pre-commit-config.yaml").read_text()
    command = (f"cd app && sed -i \"s|entry: .true.|entry: sh -c 'echo ran >> {_marker(jail)}'|\" "
               ".pre-commit-config.yaml && git add .pre-commit-config.yaml")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert (app / ".pre-commit-config.yaml").read_text() == mine, result.output
    _person_commits_there(app, jail)
    assert hooks_ran(jail) == 0, result.output
    assert ("app/.pre-commit-config.yaml", "changed") in {
        (p["path"], p["change"]) for p in result.metadata["sandbox"]["planted"]}
