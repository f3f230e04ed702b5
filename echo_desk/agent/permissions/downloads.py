"""Where the downloaders write, for the write rules to judge (``Reading.written``, and a folder
they write anywhere below: ``Reading.written_below``). A rule naming the program (``wget **``)
trusts the program, not every place it may write: ``wget -O ~/.bashrc``, ``wget -P ~``, a log
``-o ~/.bashrc`` (written even when the download fails), ``curl --output-dir ~ -o .bashrc``.

``None`` stands for a path only known when the line runs: the write rules cannot allow it, so
it asks. Versions read: wget 1.21, curl 8.
"""

from __future__ import annotations

import os
import re

from echo_desk.agent.permissions.options import Parsed

Paths = tuple[str | None, ...]

#: wget's options writing the file their value names (``-O -``: its output).
_WGET_FILES = frozenset({"--output-document", "--output-file", "--append-output", "--rejected-log",
                         "--save-cookies", "--hsts-file"})
#: wget's options that make one address fetch many files (with ``-O`` they still land below
#: the folder: ``-k`` and ``-K`` rewrite and back up what it saved, ``--delete-after`` removes).
_WGET_MANY = frozenset({"--recursive", "--mirror", "--page-requisites", "--convert-links", "--backup-converted",
                        "--delete-after"})


def _names(parsed: Parsed) -> set[str]:
    return {n for s in parsed.seen if s.option is not None for n in s.option.names}


def _values(parsed: Parsed, name: str) -> list[str | None]:
    return [s.value for s in parsed.seen if s.option is not None and name in s.option.names]


def wget_written(parsed: Parsed) -> tuple[Paths, Paths]:
    """What wget writes: the files its options name, and every file it downloads, named after
    the address or by the server (``--content-disposition``, a redirect, ``-x``'s folders):
    anything below ``-P DIR`` (the folder it runs in without), unless ``-O`` takes it all.
    ``--warc-file NAME`` writes NAME with suffixes; ``-b`` without a log writes wget-log in the
    folder it runs in. An address only known when it runs may be an option: unknown."""
    names = _names(parsed)
    written: list[str | None] = []
    for name in _WGET_FILES:
        written += [v for v in _values(parsed, name) if v != "-"]
    for base in _values(parsed, "--warc-file"):
        written += [base, None if base is None else base + ".any-suffix"]
    if "--background" in names and not names & {"--output-file", "--append-output"}:
        written += ["wget-log", "wget-log.any-suffix"]
    if any(v is None or "/" in v for v in _values(parsed, "--default-page")):
        written.append(None)  # the name of a folder's index page: a '/' in it climbs
    if any(v is None for _, v in parsed.operands):
        written.append(None)
    below: list[str | None] = [*_values(parsed, "--warc-tempdir")]
    documents = [v for v in _values(parsed, "--output-document")]
    if not documents or names & _WGET_MANY:
        prefixes = _values(parsed, "--directory-prefix")
        below.append(prefixes[-1] if prefixes else ".")
    return tuple(written), tuple(below)


#: A ``#N`` in an output name is replaced by the text the address's N-th glob (``{a,b}``,
#: ``[1-9]``) matched: ``-o '#1'`` with ``file:///x?{../home/.bashrc}`` writes ../home/.bashrc.
_GLOB_REFERENCE = re.compile(r"#[0-9]")


def curl_output(path: str | None, folders: list[str | None]) -> str | None:
    """Where ``curl -o PATH`` writes: PATH in ``--output-dir`` when given (curl 7.88 puts an
    absolute PATH there too: ``out//tmp/x``), ``None`` when a ``#N`` in it takes text from the
    address, or more than one output folder leaves which one to the order of the addresses."""
    if path is None or _GLOB_REFERENCE.search(path):
        return None
    if not folders or path == "-":
        return path
    if len(folders) > 1 or folders[0] is None:
        return None
    return os.path.join(folders[0], path.lstrip("/"))
