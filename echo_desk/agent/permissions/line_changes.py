"""What the commands of a line may change on disk before another of its commands runs: the paths
they create, delete, move or replace (``Reading.written``, a folder written anywhere below, the
files of ``tee`` and of writing options, what ``rm -r`` deletes, redirections), and which of them
may become a symbolic link.

The engine judges each command against the file system as it is before the line runs. Two
things an earlier command changes make that judgement wrong:

- a program that finds its file by walking up from the folder it runs in (go's go.mod) finds
  another one once a path on the way was removed, moved or made: ``rm go.mod && go mod tidy``
  rewrites the go.mod of a module above the workspace;
- a path at or below a link the line makes leads wherever the link does: ``ln -s ~ out/h &&
  echo x > out/h/.bashrc`` writes the home folder's file, ``cd out/h`` leaves the workspace.

Order is not read: a loop runs an earlier command again after a later one, so every other
command of the line counts. Only the writes the engine reads are known here: a program a rule
trusts that deletes files its own way (``git rm``, ``make clean``) is not seen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions.interpreters import PIP
from echo_desk.agent.permissions.reading import Reading

Argv = tuple[str | None, ...]

#: Programs whose written paths are plain files or folders, never a link: they create, delete,
#: truncate, compress or change the mode of what they name. Every other writer (``ln``, ``cp``
#: and ``mv``, which carry links over, ``patch`` with git's link diffs, archive extractors) may
#: leave a link there.
NO_LINKS = frozenset({"touch", "mkdir", "rmdir", "rm", "truncate", "shred", "chmod", "chown", "chgrp", "dd",
                      "split", "csplit", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd",
                      "go"})

#: cp's options that copy plain files: with no other option, cp follows a source that is a link
#: and writes a new file, so the copy is never a link (``-r``, ``-a``, ``-d``, ``-P`` keep links,
#: ``-s`` and ``-l`` make them, ``--preserve`` may keep them; an option not listed counts as one).
_PLAIN_COPY_LETTERS = frozenset("finvupTb")
_PLAIN_COPY_LONG = frozenset({"--force", "--interactive", "--no-clobber", "--verbose", "--update",
                              "--no-target-directory", "--backup"})


#: Programs that leave each folder they write anywhere below a folder, never a link: only what
#: they put below it may be one. GNU tar 1.34 refuses a member ``.`` or ``""`` that is a link
#: ("Cannot open: File exists"), unzip 6.0 renames it ``_``, and pip 26 (``--target``) moves
#: what it built into the folder; so ``mkdir out/t && unzip -d out/t`` makes ``out/t`` a
#: folder (s260, under bash and dash). bsdtar (libarchive 3.6.2) refuses it too ("Can't replace
#: existing directory with non-directory"; with ``-U``: "Could not unlink") and skips an empty
#: name; gtar is GNU tar's other name (s270, under bash and dash). Another writer of a folder's
#: files (``cp -a l out/t``, ``rsync``) may make the folder itself a link to somewhere else.
FOLDERS_STAY = frozenset({"tar", "gtar", "bsdtar", "unzip"})


@dataclass(frozen=True)
class Written:
    """What one command (``owner``: its words; ``None``: a redirection) writes: ``paths`` as
    written (``None``: only known when it runs), and whether they may become links, or
    (``below``) only what is below them."""

    owner: Argv | None
    paths: tuple[str | None, ...]
    link: bool = False
    below: bool = False


def of_command(argv: Argv, reading: Reading) -> list[Written]:
    """The paths ``argv`` (read as ``reading``) creates, deletes, moves or replaces."""
    program = os.path.basename(argv[0] or "") if argv else ""
    plain = [*(f.path for f in reading.flags if f.writes_path),
             *(argv[k] for k in (*reading.writes, *reading.deletes) if k < len(argv))]
    found = [Written(argv, tuple(plain))]
    found.append(Written(argv, reading.written, link=program not in NO_LINKS and not _plain_copy(program, argv)))
    # (what it writes anywhere below a folder may hold links: a tar member `l -> ~`)
    found.append(Written(argv, reading.written_below, link=True, below=_folders_stay(program, reading)))
    return [w for w in found if w.paths]


def _folders_stay(program: str, reading: Reading) -> bool:
    """Whether the folders ``reading`` writes anywhere below stay folders (``FOLDERS_STAY``),
    pip's alike, also run as ``python -m pip``."""
    form = reading.program_form
    return program in FOLDERS_STAY or PIP.fullmatch(program) is not None or (
        form is not None and bool(form) and PIP.fullmatch(form[0] or "") is not None)


def _plain_copy(program: str, argv: Argv) -> bool:
    """Whether ``argv`` is a ``cp`` whose every option copies plain files (its copies are files)."""
    if program != "cp":
        return False
    for word in argv[1:]:
        if word is None:
            return False  # known only when the line runs: it may be any option
        if word == "--":
            break
        if word.startswith("--"):
            if word not in _PLAIN_COPY_LONG:
                return False
        elif word.startswith("-") and word != "-" and not set(word[1:]) <= _PLAIN_COPY_LETTERS:
            return False
    return True


@dataclass(frozen=True)
class _Change:
    owner: Argv | None
    path: Path
    link: bool
    below: bool = False


@dataclass(frozen=True)
class Changes:
    """The paths the line's commands may change (absolute), and whether one is only known when
    the line runs (``unknown``)."""

    changes: tuple[_Change, ...] = ()
    unknown: bool = False

    def touches(self, path: Path, own: Argv | None = None) -> bool:
        """Whether a command of the line other than ``own`` may create, delete, move or replace
        ``path`` or a folder above it."""
        return self.unknown or any((own is None or c.owner != own) and (c.path == path or c.path in path.parents)
                                   for c in self.changes)

    def through_link(self, path: Path, own: Argv | None = None) -> bool:
        """Whether ``path`` is, or lies below, a path a command of the line other than ``own``
        may make a link: where it leads is only known when the line runs."""
        return any(c.link and (own is None or c.owner != own) and ((c.path == path and not c.below)
                                                                   or c.path in path.parents)
                   for c in self.changes)


def changes(written: Iterable[Written], cwds: Sequence[Path], cwd_known: bool, home: Path) -> Changes:
    """``written`` as absolute paths, from each folder the line may be in (``cwds``), as written
    and with the links already there followed."""
    found: list[_Change] = []
    unknown = False
    for item in written:
        for text in item.paths:
            if text is not None and (text == "~" or text.startswith("~/")):
                text = str(home) + text[1:]
            if text is None or text.startswith("~") or (not os.path.isabs(text) and not cwd_known):
                unknown = True
                continue
            for cwd in cwds[:1] if os.path.isabs(text) else cwds:
                joined = cwd / text
                for path in dict.fromkeys((Path(os.path.normpath(joined)), Path(os.path.realpath(joined)))):
                    found.append(_Change(item.owner, path, item.link, item.below))
    return Changes(tuple(dict.fromkeys(found)), unknown)
