"""The options of tox and just that run a command, load code or settings the engine does not
read, or write, which a rule's ``**`` never covers (a rule naming the option does): ``tox -x
'testenv:x.commands=touch ../other/P'`` (``--override``, any unique prefix) ran its command,
``just --dotenv-command 'touch ../other/P' x`` ran its command before the recipe (proven, tox
4.67 and just 1.59 under bash and dash, s229). Their variables (``TOX_OVERRIDE``,
``JUST_DOTENV_COMMAND``) ask as not understood (``option_variables``).
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["just_reading", "tox_flags"]

RUNS, WRITES, CODE = Does.RUNS, Does.WRITES, Does.READS_CODE

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
    """``just [options] [recipe and arguments]``: the options before the first recipe (the
    words after it are the recipes' arguments) that a rule covers only by naming them, and
    those it does not know."""
    found: list[Flag] = []
    words = argv[1:]
    k = 0
    while k < len(words):
        word = words[k]
        if word is None:
            found.append(Flag(frozenset(), "", None))
            break
        if word == "--" or not word.startswith("-") or word == "-":
            break
        name, eq, _ = word.partition("=")
        if name.startswith("--"):
            if name in _JUST_DANGEROUS or name not in _JUST_VALUES | _JUST_KNOWN_FLAGS | {"--set"}:
                # (one it does not know: a rule covers it only by naming it)
                found.append(Flag(frozenset({name, word}), word, _JUST_DANGEROUS.get(name)))
            if name == "--set":
                k += 2  # (a variable and its value)
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
    return Reading(program, known=False, flags=tuple(found))


#: Its long options taking no value.
_JUST_KNOWN_FLAGS = frozenset({
    "--allow-missing", "--check", "--clear-shell-args", "--complete-aliases", "--default-list", "--dry-run",
    "--explain", "--global-justfile", "--highlight", "--list-submodules", "--no-aliases", "--no-cache", "--no-deps",
    "--no-dependencies", "--no-dotenv", "--no-highlight", "--one", "--quiet", "--shell-command", "--time",
    "--timestamp", "--unsorted", "--unstable", "--verbose", "--yes", "--help", "--version", "--changelog", "--choose",
    "--dump", "--edit", "--evaluate", "--fmt", "--format", "--groups", "--init", "--initialize", "--json", "--man",
    "--summary", "--variables", "--list", "--show", "--clean", "--usage", "--command",
})
