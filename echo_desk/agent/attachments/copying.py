"""Copying an outside file or folder into the workspace (``<workspace>/attachments/``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from echo_desk.agent.attachments.core import (
    MAX_COPY_BYTES,
    MAX_COPY_FILES,
    Attachment,
    AttachmentError,
    Problem,
    inspect,
)

#: Where copies go, inside the workspace.
FOLDER = "attachments"


def _measure(source: Path) -> tuple[int, int]:
    """``(bytes, files)`` of a folder, without following links (links are copied as links)."""
    total = files = 0
    for root, dirs, names in os.walk(source, followlinks=False):
        for name in names + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            files += 1
            if files > MAX_COPY_FILES:
                raise AttachmentError(Problem.TOO_MANY_FILES, source, limit=MAX_COPY_FILES)
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
            if total > MAX_COPY_BYTES:
                raise AttachmentError(Problem.COPY_TOO_LARGE, source, limit=MAX_COPY_BYTES)
    return total, files


def _free_name(folder: Path, name: str) -> Path:
    target = folder / name
    stem, suffix = Path(name).stem, Path(name).suffix
    number = 2
    while os.path.lexists(target):
        target = folder / f"{stem}-{number}{suffix}"
        number += 1
    return target


def copy_into(attachment: Attachment, workspace: Path | str) -> Attachment:
    """Copy ``attachment`` (its resolved path) to a free name in ``<workspace>/attachments/`` and
    return the copy as an inside attachment. Nothing is copied when a limit is hit; a copy that
    fails half-way is removed. Raises ``AttachmentError``."""
    if not workspace:
        raise AttachmentError(Problem.NO_WORKSPACE, attachment.given)
    source = attachment.real
    if attachment.is_dir:
        _measure(source)
    elif source.stat().st_size > MAX_COPY_BYTES:
        raise AttachmentError(Problem.COPY_TOO_LARGE, source, limit=MAX_COPY_BYTES)
    folder = Path(os.path.realpath(workspace)) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    target = _free_name(folder, source.name or "attachment")
    try:
        if attachment.is_dir:
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copy2(source, target)
    except OSError as exc:
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)
        elif os.path.lexists(target):
            target.unlink()
        raise AttachmentError(Problem.UNREADABLE, source, detail=exc.strerror or str(exc)) from None
    return inspect(target, workspace)
