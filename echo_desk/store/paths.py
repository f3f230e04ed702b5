"""Where settings and data live: the platform's folders, overridable for tests and portable use."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import platformdirs

from echo_desk.i18n import N_
from echo_desk.store.private import private_dir
from echo_desk.tools.protection import Protection, ProtectionReason

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


def own_places() -> tuple[tuple[ProtectionReason, Path], ...]:
    """Every folder where Echo Desk keeps its own trust, each with why it is protected: the
    settings (rules, grants, pins, mcp.json, plugins), the data (audit log, records, backups),
    the cache (the sandbox's seccomp program, models) and the keyrings (tokens and secrets).
    The one list the file tools and the shell both mark, so a write there always needs the
    person's own approval of that exact path whatever tool makes it."""
    home = Path.home()
    return (
        (ProtectionReason.SETTINGS_FOLDER, config_dir()),
        (ProtectionReason.DATA_FOLDER, data_dir()),
        (ProtectionReason.CACHE_FOLDER, cache_dir()),
        (ProtectionReason.KEYRING_FOLDER, home / ".local/share/keyrings"),
        (ProtectionReason.KEYRING_FOLDER, home / ".local/share/python_keyring"),
        (ProtectionReason.KEYRING_FOLDER, home / ".local/share/kwalletd"),  # KDE's wallet
        (ProtectionReason.KEYRING_FOLDER, home / "Library/Keychains"),  # macOS
    )


def real_own_places() -> tuple[tuple[ProtectionReason, Path], ...]:
    """``own_places()`` with each folder's links followed as they are on disk now: what a real
    path is compared with (a folder of its own may be reached through a link)."""
    return tuple((reason, Path(os.path.realpath(folder))) for reason, folder in own_places())


def own_place_holding(path: Path) -> tuple[ProtectionReason, Path] | None:
    """The own place (real path) that ``path`` is, or lies in, once its links are followed;
    ``None`` when it is none of them."""
    real = Path(os.path.realpath(path))
    for reason, folder in real_own_places():
        if real == folder or real.is_relative_to(folder):
            return reason, folder
    return None


def own_program() -> tuple[Path, ...]:
    """Where Echo Desk's own program lives: its package, and the virtual environment it runs
    from (its site-packages' ``.pth`` files and ``sitecustomize``, its scripts). What is written
    there runs at Echo Desk's next start with all of its trust. Not hidden from the sandbox
    (commands need Python), only protected: a write there needs the person's own approval.
    A system Python's prefix (``/usr``) is left out: not the person's to write anyway."""
    import sys

    found = [Path(__file__).resolve().parent.parent]
    if sys.prefix != sys.base_prefix:
        found.append(Path(sys.prefix))
    return tuple(found)


_OWN_PROGRAM = N_("Echo Desk runs what is here (its own program, the .pth files and sitecustomize of its Python) "
                  "every time it starts, with all of its trust")


def own_program_protection(folder: Path, *, inside: str = "") -> Protection:
    """Why a write into ``folder`` (one of ``own_program()``) needs the person's own approval."""
    return Protection(reason=ProtectionReason.RUNS_CODE, entry=str(folder), why=_OWN_PROGRAM, inside=inside)


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
