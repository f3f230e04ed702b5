"""A protected place (``~/.vim``, ``~/.config/nvim``) that leads through a link to the workspace
itself, or to a folder holding it (``~/.vim -> ~/project``, ``~/.vim/plugin/x -> ~``): every
file of the workspace is then one the editor may run, and the sandbox cannot keep it read-only
without making the whole workspace so. The command is refused, naming the link. A link into a
subfolder of the workspace (``~/.vim -> ~/dotfiles/vim``, the dotfiles layout) keeps only that
subfolder read-only. Each case is first shown to be real: Vim runs what a sandboxed command wrote.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, shown_in_chinese, tool_with
from sandbox_helpers import planted_marker as _marker
from sandbox_helpers import planted_runs as _ran

pytestmark = requires_bwrap

needs_vim = pytest.mark.skipif(not shutil.which("vim"), reason="needs vim")


def _person_starts_vim(jail: Jail) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "TERM": "dumb"}
    subprocess.run(["vim", "-N", "-i", "NONE", "--not-a-term", "-c", "qa!"], env=env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=60)


def _link(at: Path, to: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(to)


def _lay_out(jail: Jail, how: str) -> tuple[Path, Path, str]:
    """The link ``how`` names; returns it, where it leads, and the plugin Vim would run (relative
    to the workspace)."""
    shutil.rmtree(jail.home / ".vim", ignore_errors=True)
    if how == "the place is the workspace":
        link, to, plugin = jail.home / ".vim", jail.workspace, "plugin/planted.vim"
    elif how == "a link below it to the workspace":
        link, to, plugin = jail.home / ".vim" / "plugin" / "project", jail.workspace, "planted.vim"
    elif how == "a link below it to a folder holding it":
        link, to, plugin = jail.home / ".vim" / "plugin" / "up", jail.workspace.parent, "planted.vim"
    else:  # the root folder, which holds every workspace (Vim would run every plugin file on the disk)
        link, to, plugin = jail.home / ".vim" / "root", Path("/"), "plugin/planted.vim"
    _link(link, to)
    return link, to, plugin


def _plant(jail: Jail) -> str:
    return f"call writefile(['ran'], '{_marker(jail)}', 'a')"


CASES = ["the place is the workspace", "a link below it to the workspace", "a link below it to a folder holding it"]


@needs_vim
@pytest.mark.parametrize("how", CASES)
def test_a_plugin_written_by_hand_where_the_link_leads_runs_when_vim_starts(jail: Jail, how: str) -> None:
    _, _, plugin = _lay_out(jail, how)
    (jail.workspace / plugin).parent.mkdir(parents=True, exist_ok=True)
    (jail.workspace / plugin).write_text(_plant(jail) + "\n")
    _person_starts_vim(jail)
    assert _ran(jail) >= 1


@pytest.mark.parametrize("how", [*CASES, "a link below it to /"])
async def test_a_protected_places_link_to_the_workspace_or_above_refuses_the_command(jail: Jail, how: str) -> None:
    """It ran, wrote the plugin, and Vim ran it at its next start: the link's target (the
    workspace, or a folder holding it) was left out of the walk, as what must stay writable."""
    link, to, plugin = _lay_out(jail, how)
    command = f"mkdir -p {Path(plugin).parent} && echo \"{_plant(jail)}\" > {plugin}"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    if shutil.which("vim") and to != Path("/"):
        _person_starts_vim(jail)
        assert _ran(jail) == 0, result.output
    assert not result.success and result.error.startswith("not run"), result.output
    assert not (jail.workspace / plugin).exists()
    assert f"{link} → {to}" in result.error, result.error
    assert "outside_sandbox" not in result.error
    shown = shown_in_chinese(result.error)
    assert f"{link} → {to}" in shown and "只读" in shown, shown


async def test_a_protected_place_linked_into_a_subfolder_keeps_only_that_subfolder_read_only(jail: Jail) -> None:
    """The dotfiles layout, ``~/.vim -> ~/dotfiles/vim`` with the dotfiles as the workspace: the
    command runs, the rest of the workspace is writable, the plugin folder is not."""
    shutil.rmtree(jail.home / ".vim", ignore_errors=True)
    (jail.workspace / "vim" / "plugin").mkdir(parents=True)
    _link(jail.home / ".vim", jail.workspace / "vim")
    command = f"echo fine > notes.txt; echo \"{_plant(jail)}\" > vim/plugin/planted.vim; cat notes.txt"
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    assert "fine" in result.output and (jail.workspace / "notes.txt").read_text() == "fine\n", result.output
    assert not (jail.workspace / "vim" / "plugin" / "planted.vim").exists(), result.output
    if shutil.which("vim"):
        _person_starts_vim(jail)
        assert _ran(jail) == 0
