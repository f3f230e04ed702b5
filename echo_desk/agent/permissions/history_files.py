"""bash's ``history`` builtin writes the file its line names: ``-w`` and ``-a`` write the history
list there, and ``-s`` puts any text in that list first, so ``history -s 'cmd'; history -w
~/.bashrc`` writes a command into a start-up file (s289). Without a file it writes
``$HISTFILE``, which ``bash -c`` leaves unset: then readline's ``~/.history``.

``-r`` and ``-n`` read a file; a word naming a path a read rule denies is judged as for any
command. Options are read as bash's ``internal_getopt`` does (``acd:npsrw``); a word only known
when the line runs (a glob) may be an option or a file, so it is judged as a file written.
"""

from __future__ import annotations

from echo_desk.agent.permissions.reading import Argv, Reading

#: What ``history -w`` writes when the line names no file and ``$HISTFILE`` is unset.
DEFAULT_FILE = "~/.history"
_WRITING = frozenset("aw")
_TAKES_VALUE = frozenset("d")
_OPTIONS = frozenset("acdnpsrw")


def history_reading(argv: Argv, program: str) -> Reading:
    """Which of ``history``'s words it writes (``Reading.writes``), or ``~/.history``."""
    given: set[str] = set()
    i = 1
    while i < len(argv):
        word = argv[i]
        if word is None:
            break
        if word == "--":
            i += 1
            break
        if word == "-" or not word.startswith("-"):
            break
        for k, c in enumerate(word[1:], start=2):
            if c not in _OPTIONS:
                return Reading(program)  # bash prints its usage and does nothing
            given.add(c)
            if c in _TAKES_VALUE:
                i += 0 if word[k:] else 1  # the value is glued or the next word
                break
        i += 1
    operands = range(i, len(argv))
    unknown = [k for k in operands if argv[k] is None]
    if not given & _WRITING and not unknown:
        return Reading(program)
    if given & _WRITING and not operands:
        return Reading(program, written=(DEFAULT_FILE,))
    return Reading(program, writes=tuple(operands))
