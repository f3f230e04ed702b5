"""deno's options that load or run code given on the line, and its commands that run code the
line gives (s295). deno was read as a program whose words a rule for it covers: ``deno run
--preload ./out/x.js a.js`` and ``deno eval CODE`` ran what the agent chose under ``deno **``.
Those options, wherever they stand (deno reads options after the script as the script's, but
which word is the script is not known here), and ``deno eval`` are now covered only by a rule
naming them, as node's ``-r`` and ``-e`` are. deno's other options are let through unread:
``javascript_lookups.deno_places`` says which of its files count as code.
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does, OptionSet, Takes, opt, read_options
from echo_desk.agent.permissions.reading import Argv, Flag, Reading, flags_of, spellings_of

__all__ = ["deno_reading"]

_CODE = OptionSet((
    opt("--preload --require --import", Takes.VALUE, Does.RUNS),
    opt("--env-file --env", Takes.OPTIONAL, Does.READS_CODE),
    opt("--inspect --inspect-brk --inspect-wait", Takes.OPTIONAL, Does.RUNS),
), strict=False, abbreviations=False)
#: deno's commands that run code written on the line (``deno eval "…"``) or read from its input.
_CODE_COMMANDS = frozenset({"eval", "repl", "jupyter"})


def deno_reading(argv: Argv, program: str) -> Reading:
    """``deno [COMMAND] [options] …``: its code options and code commands must be named."""
    parsed = read_options(argv[1:], _CODE)
    command = argv[1] if len(argv) > 1 else ""
    named = [Flag(frozenset({command}) if command is not None else frozenset(), command or "", None)] if (
        command is None or command in _CODE_COMMANDS) else []
    return Reading(program, flags=(*flags_of(parsed, _CODE), *named), spellings=spellings_of(argv, parsed))
