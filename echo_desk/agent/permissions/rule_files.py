"""Where rule files live, what their bytes hash to, and the one way they are written.

Every rule file Echo Desk writes (an "always allow" from an approval, the Permissions page's
editor, the Sandbox page's box) goes through ``write_rule_file``: the shared atomic writer
(a temporary file in the same folder, fsync, rename, the folder fsynced; the file 0600), and
only over the bytes that were read — a file edited meanwhile is refused, not overwritten.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from echo_desk.agent.permissions.model import Layer
from echo_desk.i18n import N_, for_person

#: ``expect_sha256`` of a file that must not exist yet (``common.atomic.ABSENT``; written out
#: here so a rules check, which never writes, does not load the writer).
ABSENT = "absent"
#: A rule file that could not be written, said with its outcome (the system's reason is the
#: ``ValueError``'s cause); ``failure_text.failure_reason`` says it without the outcome.
NOT_WRITTEN = N_("{file} could not be written; it is unchanged")

USER_FILE = "permissions.toml"
WORKSPACE_DIR = ".echo-desk"
WORKSPACE_FILE = "permissions.toml"
WORKSPACE_LOCAL_FILE = "permissions.local.toml"

#: Rule files that live in a workspace (so may come with a cloned repository) and wait for trust.
NEEDS_TRUST = frozenset({Layer.WORKSPACE, Layer.WORKSPACE_LOCAL})


def workspace_files(workspace: Path) -> tuple[Path, Path]:
    """The committed and the personal rule file of ``workspace``."""
    base = workspace / WORKSPACE_DIR
    return base / WORKSPACE_FILE, base / WORKSPACE_LOCAL_FILE


def workspace_layers(ws: Path) -> tuple[tuple[Path, Layer], ...]:
    committed, local = workspace_files(ws)
    return (committed, Layer.WORKSPACE), (local, Layer.WORKSPACE_LOCAL)


def trust_key(ws: Path, layer: Layer) -> str:
    """Where the trust of a workspace's rule file is kept: the folder for the shared file (as it
    always was), the folder plus a marker no path contains for the personal one."""
    return str(ws) if layer is Layer.WORKSPACE else f"{ws}\x00local"


#: What a rule file that exists but cannot be read "hashes" to (a folder in its place, no right to
#: read it): no trusted hash (hex digits) is ever equal to it, so it counts as present and is
#: never trusted. (Raising took every check of the workspace's commands down with it: a
#: repository holding a folder ``.echo-desk/permissions.toml/`` did that.)
UNREADABLE = "unreadable"


def file_sha256(path: Path) -> str | None:
    """The sha256 of a rule file's bytes (``None`` when it does not exist, ``UNREADABLE`` when
    it cannot be read)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except OSError:
        return UNREADABLE


def current_sha256(path: Path) -> str:
    """What the file at ``path`` hashes to now (``ABSENT`` when it does not exist), to write it
    over whatever it holds."""
    return file_sha256(path) or ABSENT


def read_rule_text(path: Path) -> tuple[str, str]:
    """A rule file's text ('' when absent) and what it hashes to now (``ABSENT`` when absent),
    for ``write_rule_file``'s ``expect_sha256``."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return "", ABSENT
    return raw.decode("utf-8"), hashlib.sha256(raw).hexdigest()


def write_rule_file(path: Path, data: str | bytes, *, expect_sha256: str) -> bytes:
    """Replace the rule file at ``path`` with ``data`` if it still holds what was read
    (``expect_sha256``, from ``read_rule_text``); returns the bytes written. Its folder (a
    workspace's ``.echo-desk``, the config folder) is created if missing. ``ValueError``, with
    the file untouched, on any failure: its text English (the CLI, the model), said to the person
    in their language (``for_person``), the system's own error kept as its cause."""
    from echo_desk.common.atomic import ChangedSincePreview, atomic_write
    from echo_desk.common.fs import Resolved
    from echo_desk.store.private import DIR_MODE, FILE_MODE
    from echo_desk.tools.results import ToolError

    written = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if not path.parent.is_dir():  # made private; an existing one (a workspace's) is left as it is
            path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        folder = Path(os.path.realpath(path.parent))
        # Private like every file Echo Desk writes for itself (a rule names what the person trusts).
        atomic_write(Resolved(folder / path.name, folder), written, expect_sha256=expect_sha256, mode=FILE_MODE)
    except ChangedSincePreview:
        raise ValueError(for_person(f"{path} was changed by another program meanwhile; nothing was written",
                                    N_("{file} was changed by another program meanwhile; nothing was written"),
                                    file=path.name)) from None
    except ToolError as exc:
        raise ValueError(exc.message) from exc
    except OSError as exc:
        raise ValueError(for_person(f"{path} could not be written: {exc.strerror or exc}",
                                    NOT_WRITTEN, file=path.name)) from exc
    return written
