"""hg's commands that run a program or code the line gives them, whatever the rules say of hg:
a rule covers each only by naming it (``hg bisect --command **``), as hg's ``--config`` and
``--ssh`` (``program_options.HG_RUNS``, ``HG_SSH``). Proven with hg 6.3 under bash and dash,
in a scratch home (s201):

- ``hg bisect -c CMD`` / ``--command`` runs CMD with the shell (at once, even with no good or
  bad revision known: ``hg -R ../r bisect -c 'touch PWNED'``);
- ``hg debugshell`` runs the Python it reads from its input (``echo 'import os; …' | hg
  debugshell``): the command itself runs code;
- ``-t``/``--tool`` of the commands that merge (merge, update, resolve, backout, graft,
  unshelve) names the merge program hg runs on a conflict: a path (``hg merge --tool
  out/evil``) or ``python:FILE:FUNCTION`` (Python hg loads and calls), or a program on
  ``PATH``; only hg's own tools (``:merge``, ``internal:local``…) run nothing.

The command is read as hg reads it (``hg_commands``: global options, a unique prefix of a
command or of one of its other names, ``hg co``); an option not known here, or a word known
only when the line runs where the command or an option could be, is a flag no rule covers
without naming it. Version read: hg 6.3 (``mercurial/commands.py``, ``debugcommands.py``,
``filemerge.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from echo_desk.agent.permissions.hg_commands import command_at, command_of, spec
from echo_desk.agent.permissions.options import Does, OptionSet, Seen, Takes, flags, opt, read_options, values
from echo_desk.agent.permissions.reading import Flag, flags_of

_TOOL = opt("-t --tool", Takes.VALUE, Does.RUNS)
#: What a merge program's ``--tool`` value is when it is one of hg's own: it runs nothing.
_OWN_TOOL = (":", "internal:")
_DATED = values("-d|--date -u|--user")
#: Each command that runs what an option names (hg 6.3's tables).
_RUNNERS: dict[str, OptionSet] = {
    "bisect": spec(flags("-r|--reset -g|--good -b|--bad -s|--skip -e|--extend -U|--noupdate"),
                   (opt("-c --command", Takes.VALUE, Does.RUNS),)),
    "update": spec(flags("-C|--clean -c|--check -m|--merge"), values("-d|--date -r|--rev"), (_TOOL,)),
    "merge": spec(flags("-P|--preview --abort"), values("-r|--rev"), (_TOOL,)),
    "resolve": spec(flags("-a|--all -l|--list -m|--mark -u|--unmark -n|--no-status --re-merge"),
                    values("-I|--include -X|--exclude -T|--template"), (_TOOL,)),
    "backout": spec(flags("--merge --no-commit -e|--edit"),
                    values("-r|--rev -I|--include -X|--exclude -m|--message -l|--logfile"), _DATED, (_TOOL,)),
    "graft": spec(flags("-c|--continue --stop --abort -e|--edit --log --no-commit -f|--force -D|--currentdate "
                        "-U|--currentuser -n|--dry-run"), values("-r|--rev --base"), _DATED, (_TOOL,)),
    "unshelve": spec(flags("-a|--abort -c|--continue -i|--interactive -k|--keep"), values("-n|--name"), (_TOOL,)),
}
#: Commands that run code whatever their words: ``hg debugshell`` reads Python from its input.
_CODE = frozenset({"debugshell"})
_NAMES = frozenset({*_RUNNERS, *_CODE})
_UNKNOWN = Flag(frozenset(), "", None)


def hg_runner_flags(argv: Sequence[str | None]) -> list[Flag]:
    """The flags of the hg command ``argv`` that run what the line gives (see the module doc)."""
    at = command_at(argv)
    if at == len(argv):
        return []
    word = None if at is None else argv[at]
    if at is None or word is None:
        return [_UNKNOWN]
    command = command_of(word, _NAMES)
    if command is None:
        return []
    if command in _CODE:
        return [Flag(frozenset({command, word}), word, Does.RUNS)]
    options = _RUNNERS[command]
    parsed = read_options(argv[at + 1:], options)
    parsed = replace(parsed, seen=[s for s in parsed.seen if not _own_tool(s)])
    return flags_of(parsed, options)


def _own_tool(seen: Seen) -> bool:
    """Whether ``seen`` is a ``--tool`` naming one of hg's own merge tools."""
    return seen.option is _TOOL and seen.value is not None and seen.value.startswith(_OWN_TOOL)
