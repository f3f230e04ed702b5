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
folder (its words only filter them by pattern).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options

#: npm's commands that run a script of package.json with the words after them (npm 10-11);
#: ``run`` and its spellings take the script's name first.
_NPM_SCRIPTS = frozenset({"test", "t", "tst", "start", "stop", "restart"})
_NPM_RUN = frozenset({"run", "run-script", "rum", "urn"})
#: pnpm and yarn run a script by its own name too (``pnpm lint``): every command counts.
_ANY_COMMAND = frozenset({"pnpm", "yarn"})
_PROJECT_FILE = "package.json"
#: Test runners whose every word may name code they load, and the words they act as if given.
_TEST_RUNNERS: dict[str, tuple[str, ...]] = {"mocha": ("test",), "jest": (".",)}


def passed(program: str, argv: Sequence[str | None]) -> list[str | None]:
    """The words ``argv`` (``program``: npm, pnpm or yarn) passes to the script it runs (none
    for a command that runs none), or the words of a test runner (mocha, jest) with the folders
    it looks for tests in; ``None``: a word only known when the line runs."""
    if program in _TEST_RUNNERS:
        return [*argv[1:], *_TEST_RUNNERS[program]]
    if program != "npm" and program not in _ANY_COMMAND:
        return []
    parsed = read_options(argv[1:], table.NPM)
    if not parsed.operands:
        return []
    at, command = parsed.operands[0]
    if command is None:
        return [None]
    if program == "npm":
        if command in _NPM_RUN and len(parsed.operands) > 1:
            at = parsed.operands[1][0]
        elif command not in _NPM_SCRIPTS:
            return []
    return list(argv[2 + at:])


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
    to the nearest holding package.json (none: every folder above)."""
    found: list[Path] = []
    for cwd in cwds:
        for folder in (cwd, *cwd.parents):
            found.append(folder)
            if (folder / _PROJECT_FILE).exists():
                break
    return list(dict.fromkeys(found))
