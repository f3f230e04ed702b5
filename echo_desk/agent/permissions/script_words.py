"""The words a package manager passes to the script it runs, as paths that script may load as
code. ``npm test -- --require ./out/x.js`` runs the test script with ``--require ./out/x.js``
added: where the script is ``node --test`` (or mocha, jest…) the runner loads the file of the
agent's choosing, and ``npm test out/x.js`` (npm passes every word after the script's name, with
or without ``--``) runs it as a test (proven with npm 11 and node 20 under bash and dash). A rule
naming the script (``npm test **``) trusts the project's script, not what the line adds to it:
what those words mean is the script's business, so each may name a file (the word, the value
after ``=``, the rest of a short option: ``--require=x``, ``-rx``), or a folder and everything
below it where that folder is (``node --test out``), relative to the folder the script runs
in. (A folder not there yet holds only what the line makes in it: a file the write rules let
the agent make in a new folder of ``out/`` is one they let it make as ``out/new``.)

The script runs in the folder of the nearest package.json (npm's project root), which may be
above the folder the line runs in: every folder from there up to it counts.

The test runners such a script names take the same words from a rule naming them: ``npx mocha
-r ./out/x.js`` loaded the agent's module and ``npx jest --config out/j.js`` (``-c``) ran the
agent's settings file, a module too, under ``npx mocha **`` and ``npx jest **`` (mocha 11, jest
30, node 20, under bash and dash, s255). Every word of theirs may name code, and so do the
tests they find given none: mocha's ./test folder, and for jest every test below its project's
folder (its words only filter them by pattern). vitest, ava and tap are read the same way
(s270): ``npx vitest run --config out/v.cjs`` and ``npx ava --config out/a.config.mjs`` loaded
the agent's module, ``npx tap out/x.js`` ran it and ``npx tap --before=out/b.js`` ran it first,
and a plain ``npx vitest run``, ``npx ava`` or ``npx tap`` ran a test the agent wrote into
``out/`` (vitest 4, ava 7, tap 21, node 20, under bash and dash): each finds tests anywhere
below its project's folder.

The same words may name where the script's program writes: with the build script ``tsc`` (or
any program taking an output option), ``npm run build -- --outDir ../x`` wrote ../x under ``npm
**`` (a script ``node b.js`` writing where its ``--outDir`` says, npm 11 and node 20, under bash
and dash, s262). Which word is an output option is the unseen program's business, so every path
a passed word may name (``paths``, less an option's own spelling) counts as a folder it may write
anything below, for the write rules to judge. Only the words ``true``, ``false`` and numbers are
taken to name nothing (``--watch=false``).

A scaffolder is such a program: ``npm create demo ../made`` (and ``npm init demo ../made``) ran
create-demo with ``../made``, which made its project there under ``npm **``; ``bun create demo
../made`` did the same under ``bun **``, and ``pnpm create``/``yarn create`` pass their words the
same way (npm 11, bun 1.4.5, a create-demo of the project's node_modules, bash and dash, s276).
The words after the scaffolder's name count as a script's words do: places it may write below
and files it may load. Given no folder, it makes its project in the folder the line runs in
(``npm create demo`` made demo-app/ there, ``npm init -y`` rewrote its package.json: s287), which
``written_here`` gives.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from echo_desk.agent.permissions import bun_commands, this_verdict
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

#: A word, or what stands for one only known when the line runs.
_W = TypeVar("_W", str, "str | None")

#: npm's commands that run a script of package.json with the words after them (npm 10-11);
#: ``run`` and its spellings take the script's name first.
_NPM_SCRIPTS = frozenset({"test", "t", "tst", "start", "stop", "restart"})
_NPM_RUN = frozenset({"run", "run-script", "rum", "urn"})
#: npm's commands that run a scaffolder (``npm init vite ../app`` runs create-vite with ``../app``;
#: npm 11) when given one: its name comes first, as a script's does.
_NPM_SCAFFOLDERS = frozenset({"init", "create", "innit"})
#: pnpm and yarn run a script by its own name too (``pnpm lint``): every command counts.
_ANY_COMMAND = frozenset({"pnpm", "yarn"})
#: pnpm's and yarn's own commands whose words are names, not paths (each wins over a script of
#: its name: pnpm 12.26 and yarn 1.22, checked by a package.json with a script of every name):
#: no write of an unseen program is counted for them. Not here: the commands that run a script
#: with the words (pnpm's ``tst``, ``restart``, ``install-test``, ``recursive``; ``yarn ls``,
#: ``yarn rm``, ``yarn view``… run scripts of those names), that run a package (``create``), or
#: that write where a word says (``pack``, ``deploy``, ``patch``, ``store``…).
_OWN_COMMANDS = {
    "pnpm": frozenset({
        "add", "approve-builds", "audit", "bin", "bugs", "c", "cache", "cat-index", "ci", "completion", "config",
        "dedupe", "deprecate", "dist-tag", "dlx", "docs", "doctor", "env", "exec", "find-hash", "get", "help",
        "home", "i", "ignored-builds", "info", "install", "la", "licenses", "link", "list", "ll", "login", "logout",
        "ls", "outdated", "owner", "prune", "publish", "rb", "rebuild", "remove", "repo", "rm", "root", "runtime",
        "sbom", "search", "self-update", "set", "setup", "show", "un", "undeprecate", "uninstall", "unlink",
        "unpublish", "up", "update", "upgrade", "v", "version", "view", "whoami", "why",
    }),
    "yarn": frozenset({
        "add", "audit", "autoclean", "bin", "cache", "check", "config", "dedupe", "exec", "generate-lock-entry",
        "global", "help", "import", "info", "install", "licenses", "link", "list", "login", "logout", "outdated",
        "owner", "prune", "publish", "remove", "tag", "unlink", "upgrade", "upgrade-interactive", "version", "why",
    }),
}
_PROJECT_FILE = "package.json"
#: The commands that make a project in the folder the line runs in, whatever its words say: with
#: a scaffolder's name, the scaffolder runs there (``npm create demo`` ran create-demo, which made
#: demo-app/ there), without one they write package.json there (``npm init -y`` rewrote the
#: project's, ``cd src && yarn init -y`` made src/package.json; npm 11, yarn 1.22, pnpm 10).
_SCAFFOLDING = {"npm": _NPM_SCAFFOLDERS, "pnpm": frozenset({"create"}), "yarn": frozenset({"create"})}
_INITIALIZING = {"npm": _NPM_SCAFFOLDERS, "pnpm": frozenset({"init"}), "yarn": frozenset({"init"})}
#: Test runners whose every word may name code they load, and the words they act as if given.
_TEST_RUNNERS: dict[str, tuple[str, ...]] = {"mocha": ("test",), "jest": (".",), "vitest": (".",), "ava": (".",),
                                             "tap": (".",)}


@functools.lru_cache(maxsize=512)
def _kept(words_of: Callable[[str, Sequence[str | None]], list[_W]], program: str,
          argv: tuple[str | None, ...]) -> tuple[_W, ...]:
    """What ``words_of`` makes of a command's words, kept: worked out from the words alone
    (every command of a line is asked about several times a verdict, most of them no package
    manager's)."""
    return tuple(words_of(program, argv))


def passed(program: str, argv: Sequence[str | None]) -> list[str | None]:
    """The words ``argv`` (``program``: npm, pnpm or yarn) passes to the script it runs (none
    for a command that runs none), or the words of a test runner (mocha, jest, vitest, ava, tap) with the folders
    it looks for tests in; ``None``: a word only known when the line runs."""
    return list(_kept(_passed, program, tuple(argv)))


def _passed(program: str, argv: Sequence[str | None]) -> list[str | None]:
    if program in _TEST_RUNNERS:
        return [*argv[1:], *_TEST_RUNNERS[program]]
    if program == "bun":
        return bun_commands.script_words(tuple(argv))
    if program != "npm" and program not in _ANY_COMMAND:
        return []
    parsed = read_options(argv[1:], table.NPM)
    if not parsed.operands:
        return []
    at, command = parsed.operands[0]
    if command is None:
        return [None]
    if program == "npm" and command in _NPM_SCAFFOLDERS and len(parsed.operands) > 1:
        at = parsed.operands[1][0]
    elif command in _NPM_RUN and len(parsed.operands) > 1:
        at = parsed.operands[1][0]
    elif program == "npm" and command not in _NPM_SCRIPTS:
        return []
    return list(argv[2 + at:])


def written_here(program: str, argv: Sequence[str | None]) -> list[str]:
    """What a command making a project (npm, pnpm, yarn or bun: ``program``) writes in the folder
    the line runs in: ``"."`` (anything below it) where a scaffolder runs, package.json where the
    package manager makes the project itself; nothing for another command."""
    return list(_kept(_written_here, program, tuple(argv)))


def _written_here(program: str, argv: Sequence[str | None]) -> list[str]:
    if program == "bun":
        return ["."] if bun_commands.scaffolds(tuple(argv)) else []
    if program not in _SCAFFOLDING:
        return []
    operands = read_options(argv[1:], table.NPM).operands
    command = operands[0][1] if operands else None
    if command in _SCAFFOLDING[program] and (len(operands) > 1 or program != "npm"):
        return ["."]
    return [_PROJECT_FILE] if command in _INITIALIZING[program] else []


#: Values taken to name no path: an option's switch or count (``--watch=false``, ``--retries=2``).
_NOT_PATHS = re.compile(r"true|false|[0-9]+")


def written(program: str, argv: Sequence[str | None]) -> list[str | None]:
    """The paths the words npm, pnpm or yarn (``program``) passes to its script may name for the
    script's program to write (``None``: one only known when the line runs); the words of a
    test runner (mocha, jest, vitest, ava, tap) are its own, judged where its options are."""
    return list(_kept(_written, program, tuple(argv)))


def _written(program: str, argv: Sequence[str | None]) -> list[str | None]:
    if program in _TEST_RUNNERS or _command(argv) in _OWN_COMMANDS.get(program, ()):
        return []
    words = passed(program, argv)
    found = [p for before, word in zip([None, *words], words, strict=False) for p in paths(word)
             if not (p == word and _option_name(word) and not _takes_next(before))]
    return [p for p in dict.fromkeys(found) if p is None or not _NOT_PATHS.fullmatch(p)]


def _command(argv: Sequence[str | None]) -> str | None:
    """The command of a package manager's line (its first word not an option)."""
    operands = read_options(argv[1:], table.NPM).operands
    return operands[0][1] if operands else None


def _option_name(word: str | None) -> bool:
    return word is not None and word.startswith("-") and word != "-"


def _takes_next(before: str | None) -> bool:
    """Whether the word after ``before`` may be its value: after an option without ``=`` (an
    option spelled whole is then a place too: ``-o --x``)."""
    if before is None:
        return False
    return before != "--" and _option_name(before) and "=" not in before


def paths(word: str | None) -> list[str | None]:
    """What one passed word may name as a path: the word itself, the value after an option's
    ``=`` and the rest of a short option (``--require=x``, ``-rx``)."""
    if word is None:
        return [None]
    found = [word]
    if word.startswith("-") and "=" in word:
        found.append(word.partition("=")[2])
    if word.startswith("-") and not word.startswith("--") and len(word) > 2:
        found.append(word[2:])
    return [p for p in dict.fromkeys(found) if p]


def script_folders(cwds: Sequence[Path]) -> list[Path]:
    """The folders the script may run in: each folder the line runs in and those above it, up
    to the nearest holding package.json (none: every folder above). Looked at once a verdict
    (``this_verdict``): every command of a line asks, several times each."""
    at = tuple(cwds)
    return list(this_verdict.remembered(("script folders", at), lambda: _script_folders(at)))


def _script_folders(cwds: tuple[Path, ...]) -> tuple[Path, ...]:
    found: list[Path] = []
    for cwd in cwds:
        for folder, project_file in _folders_up(cwd):
            found.append(folder)
            if this_verdict.exists(project_file):
                break
    return tuple(dict.fromkeys(found))


@functools.lru_cache(maxsize=256)
def _folders_up(cwd: Path) -> tuple[tuple[Path, Path], ...]:
    """``cwd`` and each folder above it, with the package.json it would hold (words alone: kept)."""
    return tuple((folder, folder / _PROJECT_FILE) for folder in (cwd, *cwd.parents))
