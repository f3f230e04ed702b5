"""A hidden place that holds the workspace (``GNUPGHOME=~`` with a project of the home folder
open, or a folder you hid with one of its subfolders opened) is emptied around the workspace, and
its links are followed as any hidden place's are: what they lead to outside the workspace is
hidden by its real name, and what they lead to in the workspace is hidden there. The workspace
itself is not walked (its files are the command's to work on)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

pytestmark = requires_bwrap


def _link(at: Path, text: Path) -> None:
    at.parent.mkdir(parents=True, exist_ok=True)
    at.symlink_to(text)


def _key(path: Path, value: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value + "\n")


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("where", ["outside the workspace", "in the workspace"])
async def test_a_key_linked_from_a_hidden_place_holding_the_workspace_stays_hidden(
        jail: Jail, monkeypatch: pytest.MonkeyPatch, where: str, shell: str) -> None:
    """``GNUPGHOME=~`` with ``~/project`` open, and ``~/private-keys-v1.d/key.key`` a link (stow's
    layout) to ``/srv/gnupg/key.key`` or to ``~/project/keys/key.key``: gpg reads the key through
    the link. ``~`` was emptied around the workspace but its links were not followed, so a
    sandboxed ``cat`` of the real path printed the key."""
    project = jail.home / "project"
    project.mkdir()
    real = (jail.base / "srv" / "gnupg" if where == "outside the workspace" else project / "keys") / "key.key"
    _key(real, "gpg-key-canary")
    _link(jail.home / "private-keys-v1.d" / "key.key", real)
    monkeypatch.setenv("GNUPGHOME", str(jail.home))
    result = await run(tool_with(), {"command": f"{shell} -c 'cat {real}; echo kept > made && cat made'"},
                       context(project))
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert "gpg-key-canary" not in result.output and "kept" in result.output, result.output


@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.parametrize("holds", [True, False], ids=["holding the workspace", "beside it"])
async def test_a_key_linked_from_a_path_you_hid_stays_hidden(jail: Jail, holds: bool, shell: str) -> None:
    """A folder hidden in Settings › Sandbox (``~/private``) holding ``id -> /srv/keys/id``: the
    paths you hide were emptied, but their links were not followed, so a sandboxed ``cat`` of the
    real path printed the key; with a subfolder of it opened as the workspace, too."""
    private = jail.home / "private"
    workspace = private / "project" if holds else jail.workspace
    workspace.mkdir(parents=True, exist_ok=True)
    real = jail.base / "srv" / "keys" / "id"
    _key(real, "private-key-canary")
    _link(private / "id", real)
    result = await run(tool_with(hidden_paths=["~/private"]),
                       {"command": f"{shell} -c 'cat {real}; echo kept > made && cat made'"}, context(workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert "private-key-canary" not in result.output and "kept" in result.output, result.output


async def test_a_virtual_environment_in_a_path_you_hid_leaves_the_systems_python_in_view(jail: Jail) -> None:
    """A folder you hid holding a virtual environment (``bin/python3 -> /usr/bin/python3.11``): its
    link to the system's program is the package's, no secret, and hiding it would take Python
    from every command."""
    python = _systems_python()
    _link(jail.home / "private" / "venv" / "bin" / "python3", Path(python))
    result = await run(tool_with(hidden_paths=["~/private"]), {"command": f"{python} -c 'print(6 * 7)'"},
                       context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert "42" in result.output, result.output


def _systems_python() -> str:
    if not os.path.exists("/usr/bin/python3"):
        pytest.skip("no /usr/bin/python3 here")
    return os.path.realpath("/usr/bin/python3")
