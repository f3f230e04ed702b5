"""The local projects pip builds, and the files that may name them.

``pip install|wheel|download|lock`` given a local project (``.``, ``./pkg``, ``-e DIR``, a
``file:`` URL, ``x @ file:…``, an archive such as ``x-1.tar.gz``, a folder ``-f`` finds archives
in) builds it, and building runs the project's build backend: its ``setup.py``, or a backend the
project ships itself (``[build-system] backend-path`` in pyproject.toml may name any folder of
it). That is code, so every file of such a project counts as code pip runs. A requirements or
constraints file (``-r``, ``-c``) may name any such path, an index or a folder of archives, so
the file itself counts too (the agent may write it earlier in the same line), and the paths it
names now are read from it; one that cannot be read (or read as pip reads it) counts as naming
every folder (``/``). ``python -m build`` builds the folder it is given (``.`` when none).

Which words pip takes as a local path follows pip 23's ``install_req_from_line``: a word with a
``/``, one starting with ``.``, an archive file name, a ``file:`` URL; a bare name (``pkg``) is a
package name even when a folder of that name exists.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlsplit

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

#: Stands for every folder: what a word only known when the line runs, or a file not read, may name.
EVERYWHERE = "/"
#: The files of a project pip builds; with them, anything under its folder counts.
PROJECT_FILES = ("setup.py", "setup.cfg", "pyproject.toml")
_ARCHIVES = (".zip", ".whl", ".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tlz",
             ".tar.lz", ".tar.lzma")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
#: The options of a requirements file that name a file to read, a requirement, or where to find archives.
_FILE_OPTIONS = {"-r": "file", "--requirement": "file", "-c": "file", "--constraint": "file",
                 "-e": "req", "--editable": "req", "-f": "find", "--find-links": "find", "-i": "find",
                 "--index-url": "find", "--extra-index-url": "find"}
#: How deep requirements files may name each other before every folder counts.
_DEPTH = 8


def pip_sources(args: Sequence[str | None], cwd: Path) -> list[Path] | None:
    """What ``pip ARGS`` (the words after ``pip``), run in ``cwd``, builds or reads requirements
    from: local project folders or archives and requirements files (``None``: a subcommand that
    builds nothing). A path may be a folder or a file; the caller counts it both ways."""
    before = read_options(args, table.PIP_BEFORE)
    if before.rest is None:
        return None
    sub = args[before.rest]
    spec = table.PIP_WRITERS.get(sub or "")
    if spec is None:
        return None if sub is not None else [Path(EVERYWHERE)]
    parsed = read_options(args[before.rest + 1:], spec)
    words: list[str] = []
    for _, word in parsed.operands:
        words += _local(word)
    for seen in parsed.seen:
        if seen.option is None:
            # An option pip may read with its next word: that word, not read here, may be a path.
            words.append(EVERYWHERE)
            continue
        kind = next((_FILE_OPTIONS[n] for n in seen.option.names if n in _FILE_OPTIONS), None)
        if kind == "file":
            value = seen.value
            words += [value] if value is not None else [EVERYWHERE]
            words += _requirements(cwd, value, 0) if value is not None else []
        elif kind is not None:
            words += _local(seen.value, find=kind == "find")
    if parsed.dynamic:
        words.append(EVERYWHERE)
    return [_path(cwd, w) for w in dict.fromkeys(words)]


def build_sources(args: Sequence[str | None], cwd: Path) -> list[Path]:
    """What ``python -m build ARGS`` builds: its operand, ``.`` when none. Every word not an
    option counts (an option's value among them: more places, never fewer)."""
    words = [w for w in args if w is None or not w.startswith("-")]
    return [_path(cwd, w if w is not None else EVERYWHERE) for w in (words or ["."])]


def _path(cwd: Path, word: str) -> Path:
    return Path(os.path.normpath(cwd / word))


def _local(word: str | None, *, find: bool = False) -> list[str]:
    """The local path a requirement word names, as pip reads it (none: a package name or a
    remote URL). ``find``: a value of ``-f`` or an index option, a path when not a URL."""
    if word is None:
        return [EVERYWHERE]
    text = word.split(";")[0].strip() if not find else word.strip()
    name, at, url = text.partition("@")
    if at and not _looks_like_path(name):
        text = url.strip()  # `x @ file:./pkg`, `x @ https://…`
    if "file:" in text:
        path = unquote(urlsplit(text[text.index("file:"):]).path)
        return [path or EVERYWHERE]
    if _SCHEME.match(text):
        return []
    if find or _looks_like_path(text) or text.lower().endswith(_ARCHIVES):
        return [text or "."]
    return []


def _looks_like_path(word: str) -> bool:
    return "/" in word or word.startswith(".")


def _requirements(cwd: Path, name: str, depth: int) -> list[str]:
    """The local paths a requirements or constraints file names (the files it names with ``-r``
    and ``-c`` too, relative to it); a file not read, or a line not read as pip reads it (an
    environment variable, a continued line), gives every folder."""
    path = cwd / name
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return [EVERYWHERE]
    if depth >= _DEPTH or "${" in text or "\\\n" in text:
        return [EVERYWHERE]
    found: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if not line:
            continue
        if not line.startswith("-"):
            found += _local(line.split(" --")[0])  # (a requirement's own options: `x --hash=…`)
            continue
        if line.startswith("--"):
            option, value = [*re.split(r"\s+|=", line, maxsplit=1), ""][:2]
        else:
            option, value = line[:2], line[2:]  # `-r other.txt`, `-rother.txt`
        kind = _FILE_OPTIONS.get(option)
        value = value.strip()
        if kind == "file":
            nested = os.path.join(os.path.dirname(name), value)
            found += [nested, *_requirements(cwd, nested, depth + 1)]
        elif kind is not None:
            found += _local(value, find=kind == "find")
    return found
