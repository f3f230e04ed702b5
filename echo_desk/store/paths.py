"""Where settings and data live: the platform's folders, overridable for tests and portable use."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import platformdirs

from echo_desk.store.private import private_dir

APP_NAME = "echo-desk"
TRASH_FOLDER = "trash"


def _dir(env: str, default: str) -> Path:
    chosen = os.environ.get(env)
    path = Path(chosen).expanduser() if chosen else Path(default)
    return private_dir(path)  # settings, transcripts and caches are the person's alone: 0700


def config_dir() -> Path:
    """Settings and ``mcp.json`` (``ECHO_DESK_CONFIG_DIR`` overrides)."""
    return _dir("ECHO_DESK_CONFIG_DIR", platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """Conversations and the audit log (``ECHO_DESK_DATA_DIR`` overrides)."""
    return _dir("ECHO_DESK_DATA_DIR", platformdirs.user_data_dir(APP_NAME, appauthor=False))


def cache_dir() -> Path:
    """Downloaded models and other things that can be fetched again (``ECHO_DESK_CACHE_DIR``)."""
    return _dir("ECHO_DESK_CACHE_DIR", platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def trash_root() -> Path:
    """Where Echo Desk's trash lives (one sub-folder per deletion)."""
    return data_dir() / TRASH_FOLDER


def put_aside_dir() -> Path:
    """Where what sandboxed code planted is moved (private, hidden from sandboxes, never run from)."""
    return data_dir() / "put-aside"


def trash_dir() -> Path:
    """Echo Desk's own trash (0700): deleted files wait here instead of being unlinked."""
    folder = trash_root() / secrets.token_hex(8)
    folder.mkdir(mode=0o700, parents=True)
    os.chmod(folder.parent, 0o700)
    return folder
