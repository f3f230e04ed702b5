"""What the person's shell start-up files make the shell read or run at every start (``inventory``).

``~/.bashrc`` and the others are protected, but what they name is not theirs: rustup's and
pyenv's installers add ``. "$HOME/.cargo/env"``, ``export PATH="$PYENV_ROOT/bin:$PATH"`` and
``eval "$(pyenv init -)"``, fzf's ``[ -f ~/.fzf.bash ] && source ~/.fzf.bash``. A file such a line
sources, a folder it puts on ``PATH`` (a planted ``git`` there runs when the person types it) and
a program it runs are read or run by every terminal the person opens, without asking. So each of
them that lies in the workspace is watched as the start-up file is, as what an ``.envrc`` loads is
(``direnv``). Read from the words of each line, with ``$HOME``, ``~`` and the variables the files
set (``PYENV_ROOT``, in whichever file) put in: over-reading is safe (a word that names nothing
protects nothing). So is what a variable names that a program reads (``BASH_ENV``, ``ZDOTDIR``,
``PERL5LIB``: ``LOADED_BY_VARIABLE``). A part built at run time (``$(hostname)``, a variable no
file sets) fails closed: it stands for every name of the last folder known (``~/.bashrc.*``), or
for that folder whole; only a word of which no folder is known (``$(brew --prefix)/bin``) names
nothing.
"""

from __future__ import annotations

import fnmatch
import os
import re
from typing import NamedTuple

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
#: Reading passes: a variable one file sets (``~/.profile``) may name what another, read before
#: it here, sources (``~/.bashrc``); each pass starts with the variables of the one before.
PASSES = 3
#: Variables whose value names what a program reads or runs, by what it names: ``folders`` (a
#: ``:`` list of folders programs are found or loaded from: a planted ``git``, ``strict.pm``,
#: ``os.py``), ``files`` (files or programs a program reads or runs: bash reads ``BASH_ENV`` in
#: every script, dash ``ENV`` at every prompt, Python ``PYTHONSTARTUP``, the loader
#: ``LD_PRELOAD``), ``sourced`` (shell code, read in turn) and ``zdotdir`` (the folder zsh reads
#: its start-up files from in place of the home folder).
LOADED_BY_VARIABLE: dict[str, str] = {
    **dict.fromkeys(("PATH", "PERL5LIB", "PERLLIB", "PYTHONPATH", "PYTHONUSERBASE", "RUBYLIB", "NODE_PATH",
                     "LD_LIBRARY_PATH", "GEM_HOME", "GEM_PATH", "CARGO_HOME", "RUSTUP_HOME", "GRADLE_USER_HOME",
                     "PYENV_ROOT", "RBENV_ROOT", "NVM_DIR", "MISE_DATA_DIR", "ASDF_DATA_DIR",
                     "XDG_CONFIG_HOME"), "folders"),
    **dict.fromkeys(("PYTHONSTARTUP", "INPUTRC", "LD_PRELOAD", "PSQLRC", "SQLITE_INIT", "GIT_CONFIG_GLOBAL",
                     "NPM_CONFIG_USERCONFIG", "PIP_CONFIG_FILE", "CONDARC", "LESSKEY", "LESSOPEN", "EDITOR",
                     "VISUAL", "PAGER", "GIT_EDITOR", "GIT_PAGER", "MANPAGER", "SHELL", "PROMPT_COMMAND"), "files"),
    **dict.fromkeys(("BASH_ENV", "ENV"), "sourced"),
    "ZDOTDIR": "zdotdir",
}
#: The start-up files zsh reads from ``ZDOTDIR`` when it is set.
ZSH_FILES = (".zshenv", ".zprofile", ".zshrc", ".zlogin", ".zlogout")
_EXPANSION = re.compile(r"\$\{[^}]*\}")
_RUN_TIME = re.compile(r"\$\([^()]*(?:\([^()]*\)[^()]*)*\)|`[^`]*`|\$")


class Named(NamedTuple):
    """What the start-up files name: ``path`` (a folder when ``folder``); with a ``pattern``, the
    names of the folder ``path`` that match it (``~/.bashrc.$(hostname)``: ``.bashrc.*`` in the
    home folder; the folder itself when what is not known lies below it)."""

    path: str
    folder: bool
    pattern: str = ""


def loaded(home: str) -> list[Named]:
    """What the start-up files of the home folder ``home`` make the shell read or run, and what
    the files they source make it read in turn (absolute paths; a start-up file itself is not
    among them). A word built at run time names every name it could be (fail closed)."""
    variables = {"HOME": home}
    found: list[Named] = []
    for _ in range(PASSES):
        before = dict(variables)
        found = _read(home, variables)
        if variables == before:
            break
    inputrc = [variables["INPUTRC"]] if variables.get("INPUTRC") else []  # (readline reads it instead)
    return found + _readline_includes([f"{home}/.inputrc", *inputrc], home)


def _readline_includes(files: list[str], home: str) -> list[Named]:
    """The files readline's ``$include`` lines make it read too (``~`` as readline expands it),
    from ``files`` on (what each includes in turn): a macro there runs as one of ``~/.inputrc``."""
    queue = list(files)
    seen = set(queue)
    found: list[Named] = []
    while queue and len(seen) <= MAX_FILES:
        path = queue.pop(0)
        text = _text_of(path)
        if text is None:
            continue
        for line in text.splitlines():
            words = line.split(None, 1)
            if len(words) < 2 or words[0] != "$include":
                continue
            name = words[1].strip()
            name = home + name[1:] if name == "~" or name.startswith("~/") else name
            if not name.startswith("/"):
                name = f"{os.path.dirname(path)}/{name}"
            named = os.path.normpath(name)
            found.append(Named(named, False))
            if named not in seen:
                seen.add(named)
                queue.append(named)
    return found


def _text_of(path: str) -> str | None:
    """The start of a file as text (``None``: it cannot be read, so it loads nothing)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(direnv.MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None


def _read(home: str, variables: dict[str, str]) -> list[Named]:
    queue = [f"{home}/{name}" for name in START_UP_FILES]
    seen = set(queue)
    found: list[Named] = []
    read = 0
    while queue and read < MAX_FILES:
        path = queue.pop(0)
        text = _text_of(path)
        if text is None:
            continue
        read += 1
        for line in text.splitlines():
            # (unquoted, ${HOME}'s braces would end the word: the reader takes them for a group's)
            line = _BRACED.sub(r"$\1", line)
            for words in direnv.commands(line):
                for named in _named(words, variables, home):
                    found.append(named)
                    for sourced in _sourced_by(named):
                        if sourced not in seen:
                            seen.add(sourced)
                            queue.append(sourced)
    return found


def _sourced_by(named: Named) -> list[str]:
    """The files a sourced ``named`` stands for that exist now and can be read in turn."""
    if named.folder and not named.pattern:
        return []
    if not named.pattern:
        return [named.path]
    try:
        names = sorted(os.listdir(named.path))
    except OSError:
        return []
    return [f"{named.path}/{n}" for n in names if fnmatch.fnmatchcase(n, named.pattern)]


def _named(words: list[str], variables: dict[str, str], home: str) -> list[Named]:
    while words and words[0] in ("export", "local", "declare", "typeset", "readonly", "command", "builtin",
                                 "exec", "if", "then", "while", "until", "!", "-x", "-g", "-gx"):
        words = words[1:]
    found: list[Named] = []
    assigned = False
    for word in words:  # NAME=value (PATH=… with its folders)
        match = _ASSIGNMENT.fullmatch(word)
        if not match:
            break
        assigned = True
        name, value = match.groups()
        found += _by_variable(name, value, variables, home)
        if (path := _resolve(value, variables, home)):
            variables[name] = path
        elif (partly := _expanded(value, variables, home)).startswith("/"):
            # Known up to a part built at run time (``~/.config/$(hostname)``): where it is used,
            # that part stands for any name (fail closed).
            variables[name] = partly
    if assigned or not words:
        return found
    # A file pattern (``for rc in ~/.bashrc.d/*; do . "$rc"``, Fedora's own .bashrc): the folder
    # whose files it names, all of them (over-reading is safe).
    found += [named for word in words if any(c in word for c in "*?[")
              for named in _closed(word, variables, home, folder=False) if "/" in word]
    name, args = words[0], words[1:]
    if name in _SOURCED and args:
        # (a name without a folder: bash looks for it on PATH, then in the folder it starts in, home)
        return found + _closed(args[0], variables, home, folder=False, relative=True)
    if name == "eval":  # eval "$(pyenv init -)": the program it runs
        inner = " ".join(args).strip()
        if inner.startswith("$(") and inner.endswith(")"):
            return found + [p for c in direnv.commands(inner[2:-1]) for p in _named(c, variables, home)]
        return found
    if name == "fish_add_path" or (name == "set" and "PATH" in args):
        return found + [n for arg in args for n in _closed(arg, variables, home, folder=True)]
    if "/" in name:
        return found + _closed(name, variables, home, folder=False)  # a program run by its path
    return found


def _by_variable(name: str, value: str, variables: dict[str, str], home: str) -> list[Named]:
    """What the variable ``name`` set to ``value`` names (``LOADED_BY_VARIABLE``)."""
    kind = LOADED_BY_VARIABLE.get(name)
    if kind is None:
        return []
    if kind == "zdotdir":
        folder = _resolve(value, variables, home)
        if not folder:  # not known: the zsh start-up files of whatever folder (fail closed)
            return _closed(value, variables, home, folder=True)
        return [Named(f"{folder}/{file}", False) for file in ZSH_FILES]
    if kind == "folders":
        # (``${PERL5LIB:+:$PERL5LIB}``, as local::lib writes it: the rest of the list, or nothing)
        value = _EXPANSION.sub(":", value)
        return [n for part in value.split(":") for n in _closed(part, variables, home, folder=True)]
    # A list of files (LD_PRELOAD: spaces or colons) or a command line (EDITOR="~/bin/vi -f"):
    # every word that is a path.
    parts = [p for p in re.split(r"[\s:]+", value) if p]
    if kind == "files":
        parts = [p for p in parts if p.startswith(("/", "~", "$"))]
    return [n for part in parts for n in _closed(part, variables, home, folder=False)]


def _closed(word: str, variables: dict[str, str], home: str, *, folder: bool, relative: bool = False) -> list[Named]:
    """What ``word`` names, failing closed on what is built at run time or a file pattern: the
    names it could be in the last folder that is known (``~/.bashrc.$(hostname)``: ``.bashrc.*``
    in the home folder), or that folder whole when what is not known is a folder below it
    (``~/projects/$X/env.sh``: ``~/projects``). Nothing when no folder of it is known
    (``$(brew --prefix)/bin``)."""
    word = _expanded(word, variables, home)
    if not word:
        return []
    if not word.startswith("/"):
        if not relative or word.startswith("*"):
            return []
        word = f"{home}/{word}"
    at = min((i for i, c in enumerate(word) if c in "*?["), default=-1)
    if at < 0:
        return [Named(os.path.normpath(word), folder)]
    known, _, rest = word[:at].rpartition("/")
    rest += word[at:]
    known = os.path.normpath(known or "/")
    if "/" in rest.rstrip("/"):
        return [Named(known, True)]  # what is not known is a folder below ``known``: all of it
    return [Named(known, folder, rest.rstrip("/"))]


def _expanded(word: str, variables: dict[str, str], home: str) -> str:
    """``word`` with ``~`` and the known variables put in, and ``*`` for each part built at run time."""
    if word == "~" or word.startswith("~/"):
        word = home + word[1:]
    word = _VARIABLE.sub(lambda m: variables.get(m.group(1) or m.group(2), "*"), word)
    return _RUN_TIME.sub("*", word)


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
