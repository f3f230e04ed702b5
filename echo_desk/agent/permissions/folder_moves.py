"""The options by which a program changes into another folder before it does anything else, so
that the command is ``cd DIR && program rest``: git's ``-C`` (``git_repositories.moves``), ninja's,
make's and scons' ``-C`` (``--directory`` too), hg's ``--cwd``. Proven with strace (ninja 1.11,
make 4.3, hg 6.3, scons 4, under bash and dash): each calls ``chdir`` first, then opens what its other
words name from there (``ninja -C src -f ../out/x.ninja`` reads out/x.ninja; ``hg --cwd sub cat
-o ../out/c`` writes out/c), and hg takes ``-R`` from where ``--cwd`` leads.

Not every folder option is one: hg's ``-R`` names the repository, not the folder hg works in,
and cmake's, meson's (the build folder its commands work on) and the other ``FOLDER_OPTIONS``
are left to ``settings_files`` (the settings they read there) and to ``_moves_outside`` (a folder
outside the workspace asks).
"""

from __future__ import annotations

from collections.abc import Sequence

from echo_desk.agent.permissions import long_prefixes
from echo_desk.agent.permissions.git_repositories import Moves
from echo_desk.agent.permissions.git_repositories import moves as git_moves
from echo_desk.agent.permissions.runner_options import just_working_folder_words

__all__ = ["CHANGES_FOLDER", "moves", "working_folder_values", "working_folder_words"]

#: The options (short, long) that change a program's folder: ninja's -C is taken once (the last
#: wins), make's each relative to the one before, hg's --cwd once.
CHANGES_FOLDER: dict[str, tuple[str, str | None]] = {
    "ninja": ("-C", None),
    "make": ("-C", "--directory"),
    "hg": ("", "--cwd"),
    # scons changes into -C's folder before it reads SConstruct or -f's file, each -C from the
    # last (strace, scons 4, bash and dash: ``scons -C src -f ../x.py`` opened x.py; s235).
    "scons": ("-C", "--directory"),
}
#: The builtins whose folder word is where the rest of the line runs (``cd DIR``, ``pushd DIR``):
#: they open nothing there; what runs after them is judged from that folder (``shell_verdict``).
_CHANGES_DIRECTORY = frozenset({"cd", "pushd"})
#: Programs whose repeated option is read relative to the last (the others: not judged, asks).
_EACH_RELATIVE = frozenset({"make", "scons"})
_NOTHING = Moves(frozenset(), ())
#: What is not read here: the folder it works in is only known when it runs.
_UNKNOWN: tuple[str | None, ...] = (None,)


def moves(program: str | None, argv: Sequence[str | None]) -> Moves:
    """The change-folder options of the command ``argv`` run as ``program`` (its base name):
    the indexes of their words and the folders they name in turn. A word only known when it
    runs, a short option grouped with others, or an option given twice where the program does
    not read them in turn: the folder is not known here (a ``None`` folder)."""
    if program == "git":
        return git_moves(argv)
    spec = CHANGES_FOLDER.get(program or "")
    if spec is None:
        return _NOTHING
    short, long = spec
    words: set[int] = set()
    folders: list[str | None] = []
    k = 1
    while k < len(argv):
        word = argv[k]
        following = argv[k + 1] if k + 1 < len(argv) else None
        if word is None:
            words.add(k)
            folders.append(None)  # (it may be the option)
        elif word == "--":
            break
        elif word == short or (long is not None and "=" not in word and long_prefixes.named(program, word, (long,))):
            # (make's getopt takes a shortened long option: ``--dir sub`` is ``--directory sub``)
            words.update((k, k + 1))
            folders.append(following)
            k += 1
        elif long is not None and long_prefixes.named(program, word, (long,)):
            words.add(k)
            folders.append(word.partition("=")[2])
        elif short and word.startswith(short):
            words.add(k)
            folders.append(word[len(short):])
        elif short and word.startswith("-") and not word.startswith("--") and short[1] in word:
            words.add(k)
            folders.append(None)  # (`-kC out`: a group of short options, not read here)
        k += 1
    if len(folders) > 1 and program not in _EACH_RELATIVE:
        return Moves(frozenset(words), _UNKNOWN)
    # (an empty folder: git ignores it, these programs are not read here)
    return Moves(frozenset(words), tuple(f if f else None for f in folders))



def working_folder_words(program: str | None, argv: Sequence[str | None]) -> frozenset[int]:
    """The indexes of the words of ``argv`` that name the folder ``program`` works in, as a
    ``cd`` there would: the change-folder options of ``moves`` (git's aside, judged by git's own
    reading) and just's ``-d``. Such a folder is where the program runs, not a path it is given
    to read or write below: ``ninja -C ..`` run in src builds the workspace as ``ninja`` run at
    its top does (strace, ninja 1.11 and just 1.59, bash and dash, s254). ``cd DIR`` and
    ``pushd DIR`` too: the builtin opens nothing, it only changes the folder (s269)."""
    if program in _CHANGES_DIRECTORY:
        return frozenset(k for k, word in enumerate(argv) if k and word and not word.startswith("-"))
    if program == "just":
        return frozenset(k + 1 for k in just_working_folder_words(tuple(argv[1:])))
    if program == "git" or program not in CHANGES_FOLDER:
        return frozenset()
    return moves(program, argv).words


def working_folder_values(program: str | None, argv: Sequence[str | None]) -> tuple[str, ...]:
    """The folders ``working_folder_words`` name, as the program's option table gives them among
    its option values (``make -C ..``, ``make --directory=..``, ``-C..``: ``..``), so that those
    values are judged as the folder it works in as well, not as a path it reads below (s269)."""
    if program in CHANGES_FOLDER and program != "git":
        return tuple(f for f in moves(program, argv).folders if f)
    return tuple(word for k in working_folder_words(program, argv) if (word := argv[k]) and not word.startswith("-"))
