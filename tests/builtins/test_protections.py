"""Each reason a target is protected is set as typed data where the engine decides it, and reads
in English for the model and the terminal exactly as before it was typed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx

from echo_desk import sandbox
from echo_desk.agent.policy import is_protected
from echo_desk.builtins import DeletePath, FetchUrl
from echo_desk.builtins.files.lifecycle import protections_of
from echo_desk.builtins.shell import command_sandbox
from echo_desk.common.fs import resolve
from echo_desk.store import paths
from echo_desk.store.settings import SandboxMode, Settings, WorkspaceSandbox
from echo_desk.tools import Protection, ProtectionReason, Target

R = ProtectionReason
#: Every reason as the model and the terminal read it (the English before protections were typed).
ENGLISH = {
    Protection(reason=R.GIT_FOLDER): "protected: inside a .git folder (repository internals)",
    Protection(reason=R.SETTINGS_FOLDER): "protected: Echo Desk's own settings folder",
    Protection(reason=R.DATA_FOLDER): "protected: Echo Desk's own data folder",
    Protection(reason=R.CACHE_FOLDER): "protected: Echo Desk's own cache folder",
    Protection(reason=R.KEYRING_FOLDER): "protected: the keyring folder",
    Protection(reason=R.HARD_LINKED, links=3): (
        "protected: hard-linked (3 names share this file): the other names keep what they hold now"),
    Protection(reason=R.LOCAL_NETWORK, host="box", addresses=("10.0.0.2", "fe80::1")):
        "protected: box is this computer or its local network (10.0.0.2, fe80::1)",
    Protection(reason=R.OUTSIDE_SANDBOX_ASKED):
        "protected: runs outside the sandbox with all your rights (the agent asked for it)",
    Protection(reason=R.OUTSIDE_SANDBOX_ALWAYS_ASK):
        "protected: runs outside the sandbox with all your rights (the sandbox is set to ask every time)",
    Protection(reason=R.OUTSIDE_SANDBOX_UNAVAILABLE):
        "protected: runs outside the sandbox with all your rights (the sandbox is unavailable here)",
    Protection(reason=R.MORE_INSIDE, more=4): "protected: 4 more inside",
    Protection(reason=R.RUNS_CODE, entry=".envrc", why="direnv runs it when you enter the folder"):
        "protected: .envrc makes a program run code later: direnv runs it when you enter the folder",
}


def test_every_reason_reads_in_english_as_it_did() -> None:
    assert {p.reason for p in ENGLISH} == set(ProtectionReason)
    for protection, english in ENGLISH.items():
        assert protection.english == english
    inside = Protection(reason=R.GIT_FOLDER, inside="/ws/.git/config")
    assert inside.english == "protected: inside a .git folder (repository internals) (/ws/.git/config)"
    target = Target(kind="path", value="/ws/x", detail="move from", protections=(inside, *list(ENGLISH)[:1]))
    assert target.full_detail.startswith("move from; protected: inside a .git folder (repository internals) (/ws")
    assert Target(kind="path", value="/ws/y").full_detail == "" and not is_protected(Target(kind="path", value="/"))


@pytest.mark.parametrize("bad", [
    {"reason": R.HARD_LINKED}, {"reason": R.HARD_LINKED, "links": 1}, {"reason": R.GIT_FOLDER, "links": 2},
    {"reason": R.LOCAL_NETWORK, "host": "h"}, {"reason": R.DATA_FOLDER, "host": "h", "addresses": ("::1",)},
    {"reason": R.MORE_INSIDE}, {"reason": R.CACHE_FOLDER, "more": 2},
    {"reason": R.RUNS_CODE}, {"reason": R.RUNS_CODE, "entry": ".envrc"}, {"reason": R.GIT_FOLDER, "entry": "x", "why": "y"},
])
def test_a_protection_refuses_facts_its_reason_does_not_name(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Protection(**bad)  # type: ignore[arg-type]


def test_the_file_tools_mark_git_own_folders_and_hard_links(workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / "a.txt").write_text("a")
    os.link(workspace / "a.txt", workspace / "b.txt")
    config, data = paths.config_dir().resolve(), paths.data_dir().resolve()
    roots = (workspace, config, data)
    assert protections_of(resolve(str(workspace / ".git" / "HEAD"), roots)) == (Protection(reason=R.GIT_FOLDER),)
    assert protections_of(resolve(str(config / "s.json"), roots)) == (Protection(reason=R.SETTINGS_FOLDER),)
    assert protections_of(resolve(str(data / "c.db"), roots)) == (Protection(reason=R.DATA_FOLDER),)
    assert protections_of(resolve(str(workspace / "a.txt"), roots)) == (Protection(reason=R.HARD_LINKED, links=2),)
    assert protections_of(resolve(str(workspace / "plain.txt"), roots)) == ()


async def test_a_folder_names_its_protected_files_and_counts_the_rest(workspace: Path, make_ctx: MakeCtx) -> None:
    git = workspace / "proj" / ".git"
    git.mkdir(parents=True)
    for i in range(8):
        (git / f"f{i}").write_text("x")
    preview = await DeletePath().preview({"path": "proj"}, make_ctx("delete_path"))
    (target,) = preview.targets
    named = [p for p in target.protections if p.reason is R.GIT_FOLDER]
    assert len(named) == 5 and all(p.inside.startswith(str(git)) for p in named)
    assert target.protections[-1] == Protection(reason=R.MORE_INSIDE, more=3)
    assert target.detail == "delete folder (to Echo Desk's trash); folder with 8 files and 1 sub-folders"
    assert "protected: 3 more inside" in target.full_detail


def test_a_command_naming_own_folders_or_keyrings_is_marked(tmp_path: Path) -> None:
    keyrings = Path.home() / ".local/share/keyrings"
    targets = command_sandbox.own_folder_targets(f"ls {paths.cache_dir()} {keyrings}", tmp_path, sandboxed=False)
    assert [t.protections for t in targets] == [(Protection(reason=R.CACHE_FOLDER),),
                                                (Protection(reason=R.KEYRING_FOLDER),)]


@pytest.mark.parametrize(("mode", "available", "outside", "reason"), [
    (SandboxMode.SANDBOXED, True, True, R.OUTSIDE_SANDBOX_ASKED),
    (SandboxMode.ASK_UNSANDBOXED, True, False, R.OUTSIDE_SANDBOX_ALWAYS_ASK),
    (SandboxMode.SANDBOXED, False, False, R.OUTSIDE_SANDBOX_UNAVAILABLE),
])
def test_a_command_outside_the_sandbox_says_why(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                 mode: SandboxMode, available: bool, outside: bool,
                                                 reason: ProtectionReason) -> None:
    status = sandbox.Status.AVAILABLE if available else sandbox.Status.BWRAP_MISSING
    monkeypatch.setattr(command_sandbox.sandbox, "availability", lambda: sandbox.Availability(status=status))
    settings = Settings()
    settings.sandbox.workspaces = {str(tmp_path): WorkspaceSandbox(mode=mode)}
    target = command_sandbox.plan_command(settings, tmp_path, outside=outside).target
    assert target is not None and target.protections == (Protection(reason=reason),) and target.detail == ""


async def test_a_local_address_is_marked_with_its_host_and_addresses(make_ctx: MakeCtx) -> None:
    preview = await FetchUrl().preview({"url": "http://[::1]:8080/admin"}, make_ctx("fetch_url"))
    assert preview.targets[0].protections == (Protection(reason=R.LOCAL_NETWORK, host="::1", addresses=("::1",)),)


@pytest.mark.parametrize("relative", [".bashrc", ".local/bin/git", ".config/autostart/x.desktop", ".npmrc", "bin/ls"])
def test_a_workspace_above_the_home_folder_protects_its_start_up_files(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, relative: str) -> None:
    """A workspace that holds the home folder (``/home``): ``alice/.bashrc`` is the home folder's
    ``.bashrc``, though not at the workspace's top; a project's ``bin/`` is still its own."""
    home = tmp_path / "alice"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    found = protections_of(resolve(f"alice/{relative}", (tmp_path,)))
    assert [p.reason for p in found] == [R.RUNS_CODE], relative
    assert protections_of(resolve("proj/bin/app", (tmp_path,))) == ()


@pytest.mark.parametrize("relative", [".bashrc.work", ".aliases.sh", ".bash_env"])
def test_what_the_start_up_files_name_at_run_time_is_protected_before_it_exists(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, relative: str) -> None:
    """The home folder as the workspace: ``. ~/.bashrc.$(hostname)`` and ``for f in ~/.*.sh``
    could name any file that matches, ``BASH_ENV`` names one; writing one that does not exist yet
    asks too."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".bashrc").write_text('. ~/.bashrc.$(hostname)\nfor f in ~/.*.sh; do . "$f"; done\n'
                                      'export BASH_ENV=~/.bash_env\n')
    found = protections_of(resolve(relative, (tmp_path,)))
    assert [p.reason for p in found] == [R.RUNS_CODE], relative
    assert protections_of(resolve("notes.txt", (tmp_path,))) == ()
