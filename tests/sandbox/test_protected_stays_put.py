"""A protected place inside the workspace stays where the protected list says it is while the
command runs.

The place is a read-only mount, which cannot be renamed, but the folders above it could be: with
the home folder as the workspace, ``mv ~/.config ~/.cfg`` took the read-only ``~/.config/git``
along, and a ``~/.config/git/config`` of the command's own stood at the name git reads until the
check after the command put it aside. A ``git status`` the person ran meanwhile ran its fsmonitor
(tested, bash and dash). Each folder between the workspace and a protected place is bound onto
itself now, as for a hidden place: it cannot be renamed or replaced.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time

import pytest
from sandbox_helpers import Jail, context, planted_marker, planted_runs, requires_bwrap, run, tool_with

pytestmark = requires_bwrap


def _without_hidden_config(jail: Jail) -> None:
    """A ``~/.config`` with no hidden place in it (a hidden place's folders are kept in place already)."""
    config = jail.home / ".config"
    for path in [p for p in jail.secrets if config in p.parents]:
        del jail.secrets[path]
    shutil.rmtree(config)
    (config / "git").mkdir(parents=True)
    (config / "git" / "config").write_text("[user]\n\tname = Person\n")


def _persons_git_status(jail: Jail) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(jail.home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "status"], cwd=jail.workspace, env=env, capture_output=True, timeout=60)


def _there(path: os.PathLike[str]) -> bool:
    return os.path.exists(path)


async def _wait_for(path: os.PathLike[str], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not _there(path):
        assert time.monotonic() < deadline, f"{path} never appeared"
        await asyncio.sleep(0.02)


@pytest.mark.parametrize("shell", ["bash", "dash"])
async def test_a_folder_above_a_protected_place_cannot_be_moved_away_while_the_command_runs(
        jail: Jail, shell: str) -> None:
    _without_hidden_config(jail)
    ready, go = jail.home / "command-ready", jail.home / "person-done"
    plant = (f"mv .config .cfg; mkdir -p .config/git; "
             f"printf '[core]\\n\\tfsmonitor = \"echo ran >> {planted_marker(jail)}; false\"\\n' > .config/git/config; "
             f"touch {ready}; for i in $(seq 600); do [ -e {go} ] && break; sleep 0.05; done")
    (jail.base / "plant.sh").write_text(plant + "\n")
    command = asyncio.ensure_future(run(tool_with(), {"command": f"{shell} {jail.base / 'plant.sh'}"},
                                        context(jail.home, approved=True)))
    try:
        await _wait_for(ready)
        _persons_git_status(jail)  # (the person works on meanwhile)
    finally:
        go.touch()
        result = await command
    assert result.metadata["sandbox"]["sandboxed"] is True, result.output
    assert planted_runs(jail) == 0, result.output
    assert "name = Person" in (jail.home / ".config" / "git" / "config").read_text()
