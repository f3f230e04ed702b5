"""Compare paths the way the file system holding them does: case-insensitively where it does.

On macOS (APFS, HFS+) and Windows (NTFS) ``.GIT/hooks/pre-commit`` *is* ``.git/hooks/pre-commit``,
and a Linux folder can fold case too (ext4/tmpfs ``casefold``, vfat, ciopfs, a mounted share).
A protection keyed on the exact spelling ``.git`` would be lost there. Two checks together:

* identity, for what exists: an existing folder that is the same file as its parent's ``.git``
  is git internals whatever it is called, and a path whose existing ancestor is the same file as
  Echo Desk's own folder is inside it (this also covers other spellings the file system accepts);
* spelling, for what does not exist yet (``.GIT/hooks/x`` created where no ``.git`` is): the
  name is compared case-folded when the folder it would be created in folds case. Unknown means
  "folds" on macOS and Windows, where that is the default, and "exact" elsewhere.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from pathlib import Path

#: How many entries of a folder are looked at to find a name to probe with.
_PROBE_ENTRIES = 32


def platform_folds_case() -> bool:
    """The default where nothing can be probed: macOS and Windows fold case, others do not."""
    return sys.platform == "darwin" or sys.platform.startswith(("win", "cygwin"))


def _same_file(a: str, b: str) -> bool | None:
    """True/False when both sides could be asked about; None when ``b`` does not exist."""
    try:
        first, second = os.stat(a, follow_symlinks=False), os.stat(b, follow_symlinks=False)
    except FileNotFoundError:
        return False if os.path.lexists(a) else None
    except OSError:
        return None
    return os.path.samestat(first, second)


def folds_case(folder: Path) -> bool:
    """Whether the existing ``folder`` looks names up case-insensitively.

    Probed without writing anything: an entry of the folder whose name has letters is looked up
    with its case swapped; the same file means the folder folds case. A folder without such an
    entry is judged by its own name in its parent, then further up; the platform default decides
    when nothing could be probed."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in itertools.islice(entries, _PROBE_ENTRIES):
            swapped = entry.name.swapcase()
            if swapped != entry.name:
                same = _same_file(entry.path, os.path.join(folder, swapped))
                if same is not None:
                    return same
    for inner in (folder, *folder.parents):
        swapped = inner.name.swapcase()
        if inner.name and swapped != inner.name:
            same = _same_file(str(inner), str(inner.with_name(swapped)))
            if same is not None:
                return same
    return platform_folds_case()


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if os.path.lexists(candidate):
            return candidate
    return Path(path.anchor or "/")


def inside_git_folder(path: Path) -> bool:
    """Whether ``path`` (absolute) is or would be inside a ``.git`` folder, as the file system sees it."""
    if ".git" in path.parts:
        return True
    existing = _nearest_existing(path)
    for folder in (existing, *existing.parents):  # identity: whatever the spelling
        if folder.name and _same_file(str(folder), str(folder.parent / ".git")):
            return True
    spelled = [i for i, part in enumerate(path.parts) if part.casefold() == ".git"]
    # A folder spelled otherwise but existing was judged above by identity; a missing one is
    # what the folder it would be created in makes of the name.
    return any(folds_case(_nearest_existing(Path(*path.parts[:i]))) for i in spelled)


def inside_folder(path: Path, folder: Path) -> bool:
    """Whether ``path`` is ``folder`` or below it, by identity where both exist, else by
    (case-folded where the file system folds case) spelling."""
    real = Path(os.path.realpath(folder))
    if path == real or path.is_relative_to(real):
        return True
    try:
        wanted = os.stat(real)
    except OSError:
        wanted = None
    existing = _nearest_existing(path)
    if wanted is not None:
        for candidate in (existing, *existing.parents):
            with contextlib.suppress(OSError):
                if os.path.samestat(os.stat(candidate, follow_symlinks=False), wanted):
                    return True
    if folds_case(existing):
        folded = str(path).casefold()
        prefix = str(real).casefold()
        return folded == prefix or folded.startswith(prefix.rstrip(os.sep) + os.sep)
    return False
