"""What the person's own, already allowed ``.envrc`` loads runs without a new ``direnv allow``.

direnv binds ``direnv allow`` to the ``.envrc``'s content only: the files it sources
(``source_env_if_exists .envrc.local``, ``source_env``, ``dotenv`` / ``dotenv_if_exists``, which
read ``.env`` and can set ``PATH``, ``LD_PRELOAD``, ``PROMPT_COMMAND``…) and the folders it puts
first on ``PATH`` (``PATH_add bin``) are read at every ``cd`` into the folder, unasked. A sandboxed
command that plants one of them must not have it run later, outside the sandbox. Each attack is
first shown to be real: the same file, written by hand, does run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

pytestmark = [requires_bwrap,
              pytest.mark.skipif(shutil.which("direnv") is None, reason="needs direnv to show what it runs")]


def _marker(jail: Jail) -> Path:
    return jail.base / "planted-ran"


def _ran(jail: Jail) -> int:
    marker = _marker(jail)
    return len(marker.read_text().splitlines()) if marker.exists() else 0


def _env(jail: Jail) -> dict[str, str]:
    home = jail.base / "direnv-home"
    home.mkdir(exist_ok=True)
    return {"PATH": os.environ["PATH"], "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"), "XDG_CACHE_HOME": str(home / ".cache")}


def _direnv(jail: Jail, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """direnv as the person runs it, outside any sandbox, with their own allow list."""
    return subprocess.run(["direnv", *args], cwd=cwd, env=_env(jail), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)


def _person_enters(jail: Jail, folder: Path) -> None:
    """``cd folder`` in the person's shell with direnv hooked, then a command typed there: direnv
    loads the allowed ``.envrc`` (and what it sources) and the shell runs ``git`` from ``PATH``."""
    script = 'eval "$(direnv export bash)"; eval "${PROMPT_COMMAND:-:}"; git --version >/dev/null 2>&1; true'
    subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd=folder, env=_env(jail),
                   stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


#: The person's own ``.envrc`` (allowed), and what a command plants for it to load.
CASES = {
    "source_env_if_exists": ("source_env_if_exists .envrc.local\n", ".envrc.local", "echo ran >> {marker}\n"),
    "source_env": ("source_env tools/env.sh\n", "tools/env.sh", "echo ran >> {marker}\n"),
    "dotenv": ("dotenv\n", ".env", "PROMPT_COMMAND='echo ran >> {marker}'\n"),
    "dotenv_if_exists": ("dotenv_if_exists .env.local\n", ".env.local", "PROMPT_COMMAND='echo ran >> {marker}'\n"),
    "PATH_add": ("PATH_add bin\n", "bin/git", "#!/bin/sh\necho ran >> {marker}\n"),
}


def _allowed_project(jail: Jail, folder: Path, envrc: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".envrc").write_text(envrc)
    assert _direnv(jail, "allow", str(folder), cwd=folder).returncode == 0


@pytest.mark.parametrize("case", list(CASES))
def test_a_file_an_allowed_envrc_loads_written_by_hand_runs(jail: Jail, case: str) -> None:
    envrc, name, content = CASES[case]
    _allowed_project(jail, jail.workspace, envrc)
    planted = jail.workspace / name
    planted.parent.mkdir(parents=True, exist_ok=True)
    planted.write_text(content.format(marker=_marker(jail)))
    planted.chmod(0o755)
    _person_enters(jail, jail.workspace)
    assert _ran(jail) >= 1


@pytest.mark.parametrize("below", [False, True], ids=["top", "nested project"])
@pytest.mark.parametrize("case", list(CASES))
async def test_a_planted_file_an_allowed_envrc_loads_does_not_run(jail: Jail, case: str, below: bool) -> None:
    envrc, name, content = CASES[case]
    folder = jail.workspace / "packages" / "app" if below else jail.workspace
    _allowed_project(jail, folder, envrc)
    relative = folder.relative_to(jail.workspace) / name
    text = content.format(marker=_marker(jail)).replace("'", "'\\''").replace("\n", "\\n")
    command = (f"mkdir -p \"$(dirname '{relative}')\"; printf '{text}' > '{relative}'; chmod +x '{relative}'")
    result = await run(tool_with(), {"command": command}, context(jail.workspace))
    assert result.metadata["sandbox"]["sandboxed"] is True
    _person_enters(jail, folder)
    assert _ran(jail) == 0, result.output
    assert not (jail.workspace / relative).exists()
