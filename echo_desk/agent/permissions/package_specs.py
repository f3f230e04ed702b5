"""The package specs of a package manager's installing command that name a folder or a file:
code that runs. ``npm install ./out/pkg`` (or ``file:out/pkg``, ``evil@file:./out/pkg``) and
``yarn add ./out/pkg`` ran the preinstall, install and postinstall scripts of out/pkg's
package.json (npm 11, yarn 1.22, under bash and dash, s268); pnpm 12 and bun 1.4 run no
dependency's scripts unless told to, but what they install is code a later command runs all the
same. A rule naming the package manager trusts it and its registry, not a folder of the agent's
choosing: each such spec counts as a folder whose every file is code, for the write rules to
judge (a spec naming what the agent may write asks).

A word counts as a path when it says so (``file:``, ``link:``, ``portal:``, ``git+file:``), starts
like one (``.``, ``/``, ``~``), names an archive (``.tgz``, ``.tar``, ``.tar.gz``) or holds a
``/`` without being a scoped name (``@scope/name``) or a URL: npm reads ``user/repo`` as a
GitHub project, other programs as a folder, so it is judged as a folder too. The package a
runner installs to run its bin (``npx --package ./out/pkg eslint``, ``npm exec -p``, ``pnpm dlx
--package``) is judged the same way. An alias's spec
(``name@spec``) is read after its ``@``. Words starting with ``-`` are options; an option's value
read as a spec only asks more.
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import read_options
from echo_desk.agent.permissions.wrappers import RUNNER_OPTIONS

#: The commands that install the packages their words name (npm 11, pnpm 12, yarn 1, bun 1.4).
_INSTALLING = {
    "npm": frozenset({"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
                      "add", "install-test", "it", "link", "ln"}),
    "pnpm": frozenset({"add", "install", "i", "link", "ln"}),
    "yarn": frozenset({"add", "global", "link", "upgrade"}),
    "bun": frozenset({"add", "a", "install", "i", "link"}),
}
#: The commands that install the package their ``--package``/``-p`` names and run its bin before
#: the command they run (npm 11: ``npx -p ./out/pkg eslint`` ran out/pkg's bin called eslint).
_RUNNING = {"npm": frozenset({"exec", "x"}), "pnpm": frozenset({"dlx"})}
_PACKAGE_OPTIONS = frozenset({"--package", "-p"})
_SAID = ("git+file://", "file://", "file:", "link:", "portal:")
_ARCHIVES = (".tgz", ".tar", ".tar.gz")


def local(program: str, argv: Sequence[str | None]) -> list[str | None]:
    """The folders and files the package specs of ``argv`` (``program``: npm, pnpm, yarn or
    bun) name, as written (``None``: a word only known when the line runs)."""
    if program == "npx":
        return _packages_run(argv[1:])
    commands = _INSTALLING.get(program)
    if commands is None:
        return []
    operands = read_options(argv[1:], table.NPM).operands
    if operands and operands[0][1] in _RUNNING.get(program, ()):
        return _packages_run(argv[2 + operands[0][0]:])
    if not operands or operands[0][1] not in commands:
        return [None] if operands and operands[0][1] is None else []
    words = argv[2 + operands[0][0]:]
    return list(dict.fromkeys(path for word in words for path in _paths(word)))


def _packages_run(words: Sequence[str | None]) -> list[str | None]:
    """The paths the ``--package`` options of a runner's ``words`` name (up to its command)."""
    parsed = read_options(words, RUNNER_OPTIONS)
    if parsed.dynamic:
        return [None]
    values = [s.value for s in parsed.seen if s.option is not None and _PACKAGE_OPTIONS & set(s.option.names)]
    return list(dict.fromkeys(path for value in values for path in _paths(value)))


def _paths(word: str | None) -> list[str | None]:
    if word is None:
        return [None]
    if word.startswith("-"):
        return []
    at = word.find("@", 1)
    spec = word[at + 1:] if at > 0 and not word.startswith((".", "/", "~")) else word
    path = _path(spec)
    return [path] if path else []


def _path(spec: str) -> str | None:
    """The path ``spec`` names, if it names one."""
    for prefix in _SAID:
        if spec.startswith(prefix):
            return spec[len(prefix):] or "."
    if spec.startswith((".", "/", "~")) or spec.endswith(_ARCHIVES):
        return spec
    if "/" in spec and not spec.startswith("@") and "://" not in spec and ":" not in spec.split("/")[0]:
        return spec
    return None
