"""pre-commit's subcommand that runs hooks from another repository: ``pre-commit try-repo
REPO`` runs the hooks REPO's ``.pre-commit-hooks.yaml`` lists (a ``language: system`` hook is
any command), from a folder or a URL the line names, not from the repository in front of it:
``pre-commit try-repo ../other/hooks x -a`` ran a hook of that folder (proven, pre-commit 3.0
under bash and dash, s223). A rule naming pre-commit (``pre-commit **``) trusts the hooks of
the project's own settings file (judged as code: ``settings_files``), not every repository a
line may name: only a rule naming ``try-repo`` covers it."""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Reading

__all__ = ["pre_commit_reading"]

_OTHER_REPOSITORY = "try-repo"
_UNKNOWN = Flag(frozenset(), "", None)  # a word only known when the line runs


def pre_commit_reading(argv: Argv, program: str) -> Reading:
    """``pre-commit [-h|-V] SUBCOMMAND …``: argparse takes the first word that is not an
    option as the subcommand, and never a prefix of one."""
    for word in argv[1:]:
        if word is None:
            return Reading(program, flags=(_UNKNOWN,), known=False)
        if word.startswith("-"):
            continue  # (its own options before a subcommand only print: --help, --version)
        if word == _OTHER_REPOSITORY:
            return Reading(program, flags=(Flag(frozenset({word}), word, Does.RUNS),), known=False)
        break
    return Reading(program, known=False)
