"""Which paths a sandboxed command may not see, and which inside the workspace it may not change."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: Under the home folder: keys, credentials, keyrings, password stores and browser profiles.
HIDDEN_IN_HOME = (
    ".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker", ".netrc", ".git-credentials",
    ".local/share/keyrings", ".local/share/python_keyring", ".password-store", ".config/gh", ".config/hub",
    ".azure", ".npmrc", ".pypirc", ".cargo/credentials", ".cargo/credentials.toml", ".vault-token",
    ".config/op", ".terraform.d", ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium",
    ".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi", ".config/opera", ".pki",
)

#: Files a shell or direnv runs on its own: a command must not plant one in the workspace.
SHELL_STARTUP = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv",
    ".zprofile", ".zlogin", ".envrc", ".config/fish",
)


#: The start-up entries above that are folders.
SHELL_STARTUP_FOLDERS = frozenset({".config/fish"})


def default_hidden(home: Path) -> tuple[Path, ...]:
    return tuple(home / name for name in HIDDEN_IN_HOME)


def existing_real(paths: Iterable[Path]) -> list[Path]:
    """Each path that exists, with symlinks resolved (a mount covers the real thing), no duplicates."""
    seen: dict[Path, None] = {}
    for path in paths:
        try:
            if not os.path.lexists(path):
                continue
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            continue
        if real.exists() and real != Path("/"):
            seen.setdefault(real, None)
    return list(seen)


def git_dirs(workspace: Path) -> list[Path]:
    """The workspace repository's git folders: ``.git`` (or where a ``.git`` file's ``gitdir:``
    points), its ``commondir`` (worktrees), and ``.git/modules/*`` (submodules)."""
    dot_git = workspace / ".git"
    gitdirs: list[Path] = []
    if dot_git.is_dir():
        gitdirs.append(dot_git)
    elif dot_git.is_file():
        pointed = _gitdir_of(dot_git)
        if pointed is not None and pointed.is_dir():
            gitdirs.append(pointed)
    for gitdir in list(gitdirs):
        common = gitdir / "commondir"
        if common.is_file():
            target = _relative_to(gitdir, common.read_text(encoding="utf-8", errors="replace").strip())
            if target is not None and target.is_dir():
                gitdirs.append(target)
        modules = gitdir / "modules"
        if modules.is_dir():
            gitdirs.extend(p for p in modules.iterdir() if p.is_dir())
    return gitdirs


def git_protected(workspace: Path) -> list[Path]:
    """What git runs or obeys in those folders: ``hooks``, ``config``, ``info``."""
    return [gitdir / name for gitdir in git_dirs(workspace) for name in ("hooks", "config", "info")]


def _gitdir_of(dot_git_file: Path) -> Path | None:
    try:
        text = dot_git_file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("gitdir:"):
            return _relative_to(dot_git_file.parent, line[len("gitdir:"):].strip())
    return None


def _relative_to(base: Path, value: str) -> Path | None:
    if not value:
        return None
    path = Path(value)
    return path if path.is_absolute() else base / path


def read_only_in(workspace: Path) -> list[Path]:
    """What stays read-only inside a writable workspace."""
    candidates = [*git_protected(workspace), workspace / ".echo-desk"]
    candidates += [workspace / name for name in SHELL_STARTUP]
    return candidates


def is_under(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)
