"""A ``~`` the shell leaves as it is: quoted or escaped at the start of a word (``'~/bin'``,
``"~"``, ``\\~/x``).

bash and dash expand only an unquoted ``~``; a quoted one reaches the program as the character
``~``. The shell opens a redirection to it as a folder named ``~`` in the folder the line runs in
(``> '~/x'`` writes ./~/x), and so do most programs (``git clone . '~/bin'``, ``mkdir``, ``cp``:
proven with git 2.39), while some expand it themselves (hg reads ``hg init '~/r'`` as the home
folder). The engine's path readers read a leading ``~`` as the home folder, the shell's
expansion; for a path of the line that starts with such a word, both
spellings are judged — the home folder's (``~/x``) and the folder's named ``~`` (``./~/x``) —
so an allow needs both, and a deny or ask of either speaks.

Neither shell expands a ``~`` inside a word either, where an option's value is glued to it
(``install -D -t~/scratch/t F`` made ./~/scratch/t/F under bash and dash: strace, s201; the
engine read its folder as the home folder's). bash expands one after ``=`` or ``:`` only in a
word starting ``NAME=`` (``a=~/x``, ``a=b:~/x``; not ``--opt=~/x``, ``-o=~/x``, ``x:~/y``) and
dash never: the line parser leaves those not known (``plain``); every other ``~`` inside a word
reaches the program as it is, and the part of the word from it counts both ways.
"""

from __future__ import annotations

from echo_desk.agent.permissions.shell import Word


def _homeward(value: str | None) -> bool:
    """A value the path readers take for the home folder (``~`` alone or before ``/``)."""
    return value is not None and (value == "~" or value.startswith("~/"))


def left_by_shell(word: Word) -> bool:
    """Whether ``word`` reaches the program with the ``~`` it starts with (not expanded)."""
    return _homeward(word.value) and not word.raw.startswith("~")


def _inner(value: str | None) -> list[str]:
    """The parts of ``value`` from a ``~`` inside it (``-t~/x``: ``~/x``) that a path reader may
    take for the home folder: no shell expanded them."""
    if value is None:
        return []
    return [value[k:] for k in range(1, len(value)) if value[k] == "~" and _homeward(value[k:])]


class LiteralTildes:
    """The words of a line whose leading ``~`` the shell left (``note``), and the spellings of a
    path the line's programs write or read (``spellings``)."""

    def __init__(self) -> None:
        self._words: set[str] = set()

    def note(self, words: tuple[Word, ...]) -> None:
        self._words.update(w.value for w in words if w.value is not None and left_by_shell(w))
        self._words.update(tail for w in words for tail in _inner(w.value))

    def spellings(self, value: str) -> list[str]:
        """``value`` as the path readers should read it: as is (``~/x``: the home folder), and
        ``./~/x`` too when it starts with a word of the line the shell left alone (``cp a '~/d'``
        writes ``~/d/a``): which of the two the program opens, the engine does not know."""
        if _homeward(value) and any(value == w or value.startswith(w.rstrip("/") + "/") for w in self._words):
            return [value, "./" + value]
        return [value]
