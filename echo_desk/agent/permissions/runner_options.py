"""The options of tox and just that run a command, load code or settings the engine does not
read, or write, which a rule's ``**`` never covers (a rule naming the option does): ``tox -x
'testenv:x.commands=touch ../other/P'`` (``--override``, any unique prefix) ran its command,
``just --dotenv-command 'touch ../other/P' x`` ran its command before the recipe (proven, tox
4.67 and just 1.59 under bash and dash, s229). Their variables (``TOX_OVERRIDE``,
``JUST_DOTENV_COMMAND``) ask as not understood (``option_variables``).

just's positional words before its recipe do more than name it (s240): ``NAME=VALUE`` words and
``--set NAME VALUE`` set the justfile's variables, which a rule names by the variable, and a
search folder (``just ../other/proj/x``) moves it as ``-d`` does (``just_search_folders``).
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["just_reading", "just_search_folders", "just_working_folder_words", "tox_flags"]

RUNS, WRITES, CODE, CONFIG = Does.RUNS, Does.WRITES, Does.READS_CODE, Does.CONFIG

#: tox's (argparse: any unique prefix of a long option, shortest here): ``--override`` sets any
#: setting (``commands``), ``--installpkg`` installs that package, ``--discover`` runs the
#: pythons it names, ``--runner`` picks the plugin that runs environments, ``--devenv`` creates
#: a virtual environment where it says.
_TOX_LONG = {"--override": ("--ov", RUNS), "--installpkg": ("--i", CODE), "--discover": ("--di", RUNS),
             "--runner": ("--ru", RUNS), "--devenv": ("--deven", WRITES)}
#: Its short options taking a value (the rest of a group is the value), and ``-x`` (--override).
_TOX_SHORT_VALUES = frozenset("cefmpsk")
_TOX_OVERRIDE = "x"


def tox_flags(words: Argv) -> list[Flag]:
    """The options of ``tox``'s words (after its name) a rule covers only by naming them."""
    found: list[Flag] = []
    for word in words:
        if word is None:
            found.append(Flag(frozenset(), "", None))  # (only known when it runs: any option)
            continue
        if word == "--":
            break
        if word.startswith("--"):
            name = word.partition("=")[0]
            found += [Flag(frozenset({option, word}), word, does) for option, (shortest, does) in _TOX_LONG.items()
                      if len(name) >= len(shortest) and option.startswith(name)]
        elif word.startswith("-"):
            for letter in word[1:]:
                if letter == _TOX_OVERRIDE:
                    found.append(Flag(frozenset({"-x", "--override", word}), word, RUNS))
                if letter in _TOX_SHORT_VALUES or letter == _TOX_OVERRIDE:
                    break
    return found


#: just 1.59's options (clap: exact names; short ones may be grouped, the last taking a value).
_JUST_DANGEROUS = {
    # commands it runs: before the recipes, instead of its shell, to choose, as asked
    "--dotenv-command": RUNS, "--shell": RUNS, "--shell-arg": RUNS, "--chooser": RUNS, "--cygpath": RUNS,
    "--command": RUNS, "-c": RUNS, "--shell-command": RUNS, "--edit": RUNS, "-e": RUNS,
    # files it loads the recipes' environment or its justfile from
    "--dotenv-path": CODE, "-E": CODE, "--dotenv-filename": CODE, "-F": CODE, "--justfile-name": CODE,
    "--global-justfile": CODE, "-g": CODE,
    # what it writes or deletes: temporary scripts, the justfile, its cache
    "--tempdir": WRITES, "--fmt": WRITES, "--format": WRITES, "--init": WRITES, "--initialize": WRITES,
    "--clean": WRITES,
}
_JUST_VALUES = frozenset({
    "--alias-style", "--ceiling", "--chooser", "--color", "--command-color", "--cygpath", "--dotenv-command",
    "--dotenv-filename", "-F", "--dotenv-path", "-E", "--dump-format", "--evaluate-format", "--group",
    "--indentation", "--jobs", "--justfile", "-f", "--justfile-name", "--list-heading", "--list-prefix",
    "--shell", "--shell-arg", "--tempdir", "--timestamp-format", "--working-directory", "-d", "--completions",
})
_JUST_SHORT_VALUES = frozenset("FEfd")
_JUST_SHORTS = frozenset("FEfdnqugvhVcels")


def just_reading(argv: Argv, program: str) -> Reading:
    """``just [options] [overrides] [search folder] [recipe and arguments]``: the options before
    the first recipe (the words after it are the recipes' arguments) and the variables the line
    sets that a rule covers only by naming them, and the options it does not know."""
    found, start = _just_options(argv[1:])
    if start is not None:
        found += _just_overrides(argv[1:], start)
    return Reading(program, known=False, flags=tuple(found))


def just_search_folders(words: Argv) -> list[str | None]:
    """The folders ``just``'s words (after its name) say to find the justfile from, its recipes
    then running in the justfile's folder, as ``-d`` does: the first word after the overrides
    that is ``.``, ``..`` or holds a ``/``, up to its last ``/`` (``just ../other/x`` ran
    ../other's recipe x there; proven, just 1.59, s240). ``None``: a word only known when it runs."""
    _, start = _just_options(words)
    if start is None:
        return [None]
    k = start + len(_just_overrides(words, start))
    folders: list[str | None] = []
    for word in words[k:]:
        if word is None:
            folders.append(None)  # (it may be one)
        elif word in (".", "..") or "/" in word:
            folders.append(word if word in (".", "..") else word[:word.rindex("/") + 1])
        else:
            break
    return folders


def just_working_folder_words(words: Argv) -> frozenset[int]:
    """Where among ``just``'s words (after its name) a word of its own names the folder it works
    in: the value of ``-d``/``--working-directory`` (``just -d .. x``). The justfile is found
    from there and the recipes run there, as after ``cd ..`` (strace, just 1.59, s254). Only its
    options count: a word after the first positional one is a recipe's argument."""
    found: set[int] = set()
    k = 0
    while k < len(words):
        word = words[k]
        if word is None or word == "--" or not word.startswith("-") or word == "-":
            break
        name, eq, _ = word.partition("=")
        if name == "--set":
            k += 2  # (a variable and its value)
        elif name.startswith("--"):
            if not eq and name in _JUST_VALUES:
                found.update({k + 1} if name == "--working-directory" else ())
                k += 1
        else:
            for n, letter in enumerate(word[1:], start=1):
                if letter in _JUST_SHORT_VALUES:
                    if not word[n + 1:]:
                        found.update({k + 1} if letter == "d" else ())
                        k += 1
                    break
        k += 1
    return frozenset(found)


def _just_overrides(words: Argv, start: int) -> list[Flag]:
    """The variables the positional words from ``start`` set (``just NAME=VALUE recipe``): just
    1.59 takes every leading word holding a ``=`` as one. Recipes paste variables into their shell
    lines (``echo {{NAME}}``), so ``just NAME='$(touch ../P)' test`` ran the command (proven, just
    1.59 under bash and dash, s240): a rule names one by its variable (``just NAME=* test``)."""
    found: list[Flag] = []
    for word in words[start:]:
        if word is None:
            found.append(Flag(frozenset(), "", None))  # (it may be one)
            break
        if "=" not in word:
            break
        found.append(Flag(frozenset(), word, CONFIG, setting=word))
    return found


def _just_options(words: Argv) -> tuple[list[Flag], int | None]:
    """The options among ``words`` (after just's name) a rule covers only by naming them, and
    where its positional words start (past a ``--``; ``None``: not known here)."""
    found: list[Flag] = []
    k = 0
    while k < len(words):
        word = words[k]
        if word is None:
            found.append(Flag(frozenset(), "", None))
            return found, None
        if word == "--":
            return found, k + 1
        if not word.startswith("-") or word == "-":
            return found, k
        name, eq, _ = word.partition("=")
        if name.startswith("--"):
            if name in _JUST_DANGEROUS or name not in _JUST_VALUES | _JUST_KNOWN_FLAGS | {"--set"}:
                # (one it does not know: a rule covers it only by naming it)
                found.append(Flag(frozenset({name, word}), word, _JUST_DANGEROUS.get(name)))
            if name == "--set":
                # (a variable and its value, pasted into the recipes as an override is: a rule
                # names both the option and the variable, ``just --set version * release``)
                variable = words[k + 1] if k + 1 < len(words) else ""
                found += [Flag(frozenset({name, word}), word, CONFIG),
                          Flag(frozenset() if variable is None else frozenset({variable}), variable or "", CONFIG)]
                k += 2
            elif not eq and name in _JUST_VALUES:
                k += 1
        else:
            for n, letter in enumerate(word[1:], start=1):
                short = f"-{letter}"
                if short in _JUST_DANGEROUS or letter not in _JUST_SHORTS:
                    found.append(Flag(frozenset({short, word}), word, _JUST_DANGEROUS.get(short)))
                if letter in _JUST_SHORT_VALUES:
                    k += 0 if word[n + 1:] else 1
                    break
        k += 1
    return found, len(words)


#: Its long options taking no value.
_JUST_KNOWN_FLAGS = frozenset({
    "--allow-missing", "--check", "--clear-shell-args", "--complete-aliases", "--default-list", "--dry-run",
    "--explain", "--global-justfile", "--highlight", "--list-submodules", "--no-aliases", "--no-cache", "--no-deps",
    "--no-dependencies", "--no-dotenv", "--no-highlight", "--one", "--quiet", "--shell-command", "--time",
    "--timestamp", "--unsorted", "--unstable", "--verbose", "--yes", "--help", "--version", "--changelog", "--choose",
    "--dump", "--edit", "--evaluate", "--fmt", "--format", "--groups", "--init", "--initialize", "--json", "--man",
    "--summary", "--variables", "--list", "--show", "--clean", "--usage", "--command",
})
