"""What the person's shell start-up files make the shell read or run at every start (``inventory``).

``~/.bashrc`` and the others are protected, but what they name is not theirs: rustup's and
pyenv's installers add ``. "$HOME/.cargo/env"``, ``export PATH="$PYENV_ROOT/bin:$PATH"`` and
``eval "$(pyenv init -)"``, fzf's ``[ -f ~/.fzf.bash ] && source ~/.fzf.bash``. A file such a line
sources, a folder it puts on ``PATH`` (a planted ``git`` there runs when the person types it) and
a program it runs are read or run by every terminal the person opens, without asking. So each of
them that lies in the workspace is watched as the start-up file is, as what an ``.envrc`` loads is
(``direnv``). Read from the words of each line, with ``$HOME``, ``~`` and the variables the files
set before (``PYENV_ROOT``) put in: over-reading is safe (a word that names nothing protects
nothing); a word built at run time otherwise cannot be known and is left out.
"""

from __future__ import annotations

import os
import re

from echo_desk.sandbox import direnv

#: The start-up files of the shells (bash, zsh, sh) and of the session that source shell code,
#: in the home folder (fish's folder is protected whole).
START_UP_FILES = (".bashrc", ".bash_profile", ".bash_login", ".profile", ".bash_aliases", ".bash_logout",
                  ".zshenv", ".zprofile", ".zshrc", ".zlogin", ".xprofile", ".xsessionrc")
_SOURCED = frozenset({"source", "."})
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_BRACED = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}(?![A-Za-z0-9_])")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
#: At most this many files are read (the start-up files and what they source).
MAX_FILES = 50


def loaded(home: str) -> list[tuple[str, bool]]:
    """The absolute paths (and whether each is a folder) that the start-up files of the home
    folder ``home`` make the shell read or run, and what the files they source make it read in
    turn; a start-up file itself is not among them."""
    variables = {"HOME": home}
    queue = [f"{home}/{name}" for name in START_UP_FILES]
    seen = set(queue)
    found: list[tuple[str, bool]] = []
    read = 0
    while queue and read < MAX_FILES:
        path = queue.pop(0)
        try:
            with open(path, "rb") as handle:
                text = handle.read(direnv.MAX_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        read += 1
        for line in text.splitlines():
            # (unquoted, ${HOME}'s braces would end the word: the reader takes them for a group's)
            line = _BRACED.sub(r"$\1", line)
            for words in direnv.commands(line):
                for named, folder in _named(words, variables, home):
                    found.append((named, folder))
                    if not folder and named not in seen:
                        seen.add(named)
                        queue.append(named)
    return found


def _named(words: list[str], variables: dict[str, str], home: str) -> list[tuple[str, bool]]:
    while words and words[0] in ("export", "local", "declare", "typeset", "readonly", "command", "builtin",
                                 "exec", "if", "then", "while", "until", "!", "-x", "-g", "-gx"):
        words = words[1:]
    found: list[tuple[str, bool]] = []
    assigned = False
    for word in words:  # NAME=value (PATH=… with its folders)
        match = _ASSIGNMENT.fullmatch(word)
        if not match:
            break
        assigned = True
        name, value = match.groups()
        if name == "PATH":
            found += [(path, True) for part in value.split(":") if (path := _resolve(part, variables, home))]
        elif (path := _resolve(value, variables, home)):
            variables[name] = path
    if assigned or not words:
        return found
    # A file pattern (``for rc in ~/.bashrc.d/*; do . "$rc"``, Fedora's own .bashrc): the folder
    # whose files it names, all of them (over-reading is safe).
    found += [(path, True) for word in words if (path := _globbed_folder(word, variables, home))]
    name, args = words[0], words[1:]
    if name in _SOURCED and args:
        # (a name without a folder: bash looks for it on PATH, then in the folder it starts in, home)
        return found + [(path, False) for path in [_resolve(args[0], variables, home, relative=True)] if path]
    if name == "eval":  # eval "$(pyenv init -)": the program it runs
        inner = " ".join(args).strip()
        if inner.startswith("$(") and inner.endswith(")"):
            return found + [p for c in direnv.commands(inner[2:-1]) for p in _named(c, variables, home)]
        return found
    if name == "fish_add_path" or (name == "set" and "PATH" in args):
        return found + [(path, True) for arg in args if (path := _resolve(arg, variables, home))]
    if "/" in name and (path := _resolve(name, variables, home)):
        return [*found, (path, False)]  # a program run by its path (~/.local/bin/mise activate)
    return found


def _globbed_folder(word: str, variables: dict[str, str], home: str) -> str:
    """The folder of the file pattern ``word`` (``~/.bashrc.d/*.sh``: ``~/.bashrc.d``), '' when it
    is none or that folder is not known."""
    at = min((i for i, c in enumerate(word) if c in "*?["), default=-1)
    if at < 0 or "/" not in word[:at]:
        return ""
    return _resolve(word[:at].rsplit("/", 1)[0], variables, home)


def _resolve(word: str, variables: dict[str, str], home: str, *, relative: bool = False) -> str:
    """``word`` as an absolute path ('' when part of it is built at run time: unknown); ``relative``:
    a relative one is taken from the home folder (where a login shell starts)."""
    if word == "~" or word.startswith("~/"):
        word = home + word[1:]
    word = _VARIABLE.sub(lambda m: variables.get(m.group(1) or m.group(2), "$?"), word)
    if not word or any(c in word for c in "$`*?["):
        return ""
    if not word.startswith("/"):
        if not relative:
            return ""
        word = f"{home}/{word}"
    return os.path.normpath(word)
