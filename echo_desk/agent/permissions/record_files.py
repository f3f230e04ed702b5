"""Reading the files a build folder records its install folders in (``install_records``): each
read whole up to a limit, the scripts and Makefiles a record leads to counted, and only those
inside the build folder followed."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MOST_FILES", "inside", "read_record", "read_record_bytes"]

#: A record file larger than this is not read (the line asks).
_LIMIT = 1024 * 1024
#: More record files than this (cmake's included scripts, autotools' SUBDIRS) are not read.
MOST_FILES = 500


def read_record(path: Path) -> str:
    """A record file's text, refused when larger than ``_LIMIT`` (a part could hide a folder)."""
    with open(path, encoding="utf-8") as handle:
        text = handle.read(_LIMIT + 1)
    if len(text) > _LIMIT:
        raise ValueError(f"{path} is larger than {_LIMIT} characters")
    return text


def read_record_bytes(path: Path) -> bytes:
    """A record file's bytes (meson's pickled install data), refused as ``read_record`` refuses."""
    with open(path, "rb") as handle:
        data = handle.read(_LIMIT + 1)
    if len(data) > _LIMIT:
        raise ValueError(f"{path} is larger than {_LIMIT} bytes")
    return data


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it, with links followed."""
    real = os.path.realpath(path)
    top = os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip("/") + "/")
