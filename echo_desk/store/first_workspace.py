"""The workspace a first conversation gets when the person has not chosen one yet.

The folder Echo Desk was started from, when that is a real project folder (not the home folder
and not ``/``, where a desktop launcher starts it); otherwise an ``Echo Desk`` folder in the
person's documents, created on first use. The window says which.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

FOLDER_NAME = "Echo Desk"


class WorkspaceOrigin(enum.StrEnum):
    START_FOLDER = "start_folder"
    DOCUMENTS = "documents"


@dataclass(frozen=True)
class DefaultWorkspace:
    path: Path
    origin: WorkspaceOrigin


def default_workspace(
    start: Path | None = None, home: Path | None = None, documents: Path | None = None
) -> DefaultWorkspace:
    """Where a first conversation works (nothing is created here; see ``ensure``)."""
    start = (start or Path(os.getcwd())).resolve()
    home = (home or Path.home()).resolve()
    if start not in (home, Path(start.anchor)):
        return DefaultWorkspace(start, WorkspaceOrigin.START_FOLDER)
    docs = documents or Path(platformdirs.user_documents_dir())
    return DefaultWorkspace(docs / FOLDER_NAME, WorkspaceOrigin.DOCUMENTS)


def ensure(workspace: DefaultWorkspace) -> Path:
    """Create the folder if needed (first use) and return it, resolved."""
    workspace.path.mkdir(parents=True, exist_ok=True)
    return workspace.path.resolve()
