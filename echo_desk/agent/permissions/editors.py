"""Editors whose words and input are a command language: vim (and nvim) and ed.

A person who names one (``vim **``) trusts it to open files, not the commands it may be given:
- their options that run commands, source scripts or write (``table.VIM``, ``table.ED``) are
  covered only by a rule naming them;
- vim runs a ``+cmd`` word as an Ex command (``vim +'!touch PWNED'``); only ``+`` and ``+N``
  (go to a line) are plain words;
- ed reads a file operand starting with ``!`` as a shell command;
- both read commands from their input when it is not a terminal (ed always, vim keys or Ex
  commands): ``Reading.commands_from_input`` tells the verdict, which asks where the line may give them
  any (``printf '!cmd\\n' | ed a.txt``).
"""

from __future__ import annotations

import re

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import Does, read_options
from echo_desk.agent.permissions.reading import Argv, Flag, Reading, flags_of, spellings_of

__all__ = ["PROGRAMS", "ed_reading", "vim_reading"]

#: ``+`` (the last line) and ``+N`` (line N): the only ``+`` words that run no Ex command.
_GO_TO_LINE = re.compile(r"\+[0-9]*")


def vim_reading(argv: Argv, program: str) -> Reading:
    spec = table.NVIM if program in table.NVIM_NAMES else table.VIM
    parsed = read_options(argv[1:], spec)
    found = flags_of(parsed, spec)
    for _, word in parsed.operands:
        if word is None or (word.startswith("+") and not _GO_TO_LINE.fullmatch(word)):
            found.append(Flag(frozenset({word or ""} - {""}), word or "", Does.RUNS))
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed), commands_from_input=True)


def ed_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.ED)
    found = flags_of(parsed, table.ED)
    for _, word in parsed.operands:
        if word is None or word.startswith("!"):
            found.append(Flag(frozenset({word or ""} - {""}), word or "", Does.RUNS))
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed), commands_from_input=True)


PROGRAMS = {**dict.fromkeys(table.VIM_NAMES | table.NVIM_NAMES, vim_reading),
            **dict.fromkeys(table.ED_NAMES, ed_reading)}
