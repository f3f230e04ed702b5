"""What a workspace's ``.envrc`` makes direnv load besides itself (``inventory``).

``direnv allow`` is bound to the ``.envrc``'s content only. What that file reads at every ``cd``
into its folder — a file it sources (``source_env_if_exists .envrc.local``, ``source``), a
``.env`` it loads (``dotenv``: ``PROMPT_COMMAND``, ``PATH`` or ``LD_PRELOAD`` there run code), a
folder it puts first on ``PATH`` (``PATH_add bin``: a planted ``bin/git`` runs when the person
types ``git``), the Nix file ``use nix`` evaluates — runs without a new ``direnv allow``. So each
of them is watched as the ``.envrc`` is. Read from the words of each line (over-reading is safe:
a word that names no such file protects nothing); an argument built at run time, other than
``$PWD``, cannot be known and is left out.
"""

from __future__ import annotations

import os
import shlex

#: Files it sources (a folder: its ``.envrc``).
_SOURCED = frozenset({"source_env", "source_env_if_exists", "source", "."})
#: ``.env``-style files it loads (without an argument: ``.env``).
_DOTENV = frozenset({"dotenv", "dotenv_if_exists"})
#: Folders it puts on ``PATH`` (``path_add VARIABLE folder…``: the variable's name first).
_ON_PATH = frozenset({"PATH_add", "load_prefix"})
#: What ``use nix`` / ``use flake`` evaluate (their shellHook runs).
_NIX = {"nix": ("shell.nix", "default.nix"), "flake": ("flake.nix",)}
_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "{", "}", "then", "do", "else", "!"})
#: Larger ``.envrc`` files are not read (nobody writes one; it would only slow every command).
MAX_BYTES = 256 * 1024
#: At most this many files are read and watched for all the workspace's .envrc files together.
MAX_FILES = 200


def loaded(envrc: str) -> list[tuple[str, bool]]:
    """The absolute paths (and whether each is a folder) the ``.envrc`` at ``envrc`` makes direnv
    read or run, as it would resolve them from the ``.envrc``'s folder; [] when it cannot be read."""
    try:
        with open(envrc, "rb") as handle:
            text = handle.read(MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return []
    folder = os.path.dirname(envrc)
    found: list[tuple[str, bool]] = []
    for line in text.splitlines():
        for words in commands(line):
            found += _named(words, folder)
    return found


def commands(line: str) -> list[list[str]]:
    """The commands of a shell ``line``, each as its words (separators and a comment left out)."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|(){}")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        words = list(lexer)
    except ValueError:  # an unclosed quote: read the words of the line as they are
        words = line.split()
    commands: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS or set(word) <= set(";&|(){}"):
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _named(words: list[str], folder: str) -> list[tuple[str, bool]]:
    name, args = words[0], words[1:]
    if name in ("if", "while", "until", "exec", "command", "builtin") and args:
        return _named(args, folder)
    if name in _SOURCED and args:
        return [p for arg in args[:1] for p in _as_file(arg, folder)]
    if name in _DOTENV:
        return [(path, False) for arg in (args[:1] or [".env"]) if (path := _resolve(arg, folder))]
    if name in _ON_PATH or name == "path_add":
        folders = args[1:] if name == "path_add" else args
        return [(path, True) for arg in folders if (path := _resolve(arg, folder))]
    if name == "use" and args and args[0] in _NIX:
        return [(f"{folder}/{nix}", False) for nix in _NIX[args[0]]]
    if name in ("use_nix", "use_flake"):
        return [(f"{folder}/{nix}", False) for nix in _NIX[name[4:]]]
    return []


def _as_file(arg: str, folder: str) -> list[tuple[str, bool]]:
    path = _resolve(arg, folder)
    # direnv's source_env takes a folder for its .envrc: either may be planted.
    return [(path, False), (f"{path}/.envrc", False)] if path else []


def _resolve(arg: str, folder: str) -> str:
    """``arg`` as a path from ``folder`` ('' when it is built at run time: unknown)."""
    for pwd in ("$(pwd)", "${PWD}", "$PWD"):
        if arg.startswith(pwd):
            arg = folder + arg[len(pwd):]
    if any(c in arg for c in "$`*?[") or arg.startswith("~") or not arg:
        return ""
    return os.path.normpath(arg if arg.startswith("/") else f"{folder}/{arg}")
