"""cmake's command mode, ``cmake -E COMMAND [ARGS]``: a small set of portable commands built
into cmake. A rule naming cmake (``cmake **``) trusts it to configure and build the project;
its commands are read here as the programs they stand for, so the rule does not stretch to
them (each proven with cmake 3.25, the version read):

- ``env``, ``time`` and ``chdir`` run a command, as ``env`` and ``time`` do (``cmake -E env sh
  -c …``): the command is judged in its own right (``Reading.inners``) and needs its own rule;
  ``chdir`` runs it in another folder, a ``cd`` the line does not show (like ``env -C``), so a
  rule must name it; an assignment other than the inert ones counts as for ``env``;
- ``copy``, ``rename``, ``rm``, ``touch``, ``make_directory``, ``create_symlink``… write, create
  or delete the paths they are given (``cmake -E copy x ~/.bashrc``): those go to the write rules
  as cp/mv/rm/touch/mkdir/ln's do (``file_programs``); ``rename`` moves a folder whole as mv
  does, so each file below it is judged where it lands (``removed_folders.landings``: ``cmake
  -E rename src prod`` put src/main.py at prod/main.py beside ``@workspace/prod/*.py``
  write-denied, s326); ``tar x`` writes where the archive's members say, ``../`` included, so
  what it writes is only known when it runs;
- ``cat``, ``compare_files`` and the checksums read the files they are given, which the read
  rules judge as for any program's words;
- any other command (cmake has hidden ones, and later versions add more) is not known here:
  a rule's ``**`` does not cover it, so the line asks.

``-E`` is only read as the first word after ``cmake`` (anywhere else cmake does not take it).
It reads no build file of the project (``settings_files`` looks for none).

cmake's other options that write a file they name go to the write rules too (s164, each proven
with cmake 3.25: ``cmake --version ~/.bashrc`` overwrote it): ``--graphviz``,
``--trace-redirect`` and ``--profiling-output`` (``=F`` or the next word) while it configures,
``--system-information [F]``, the help options ``--version``/``-version``/``/V [F]`` and
``--help-…  [NAME] [F]``, and ``--install DIR --prefix P``, which installs below P. Where a plain
``cmake --install`` installs (the prefix and destinations the build folder's cmake_install.cmake
holds) is read by ``install_records`` (s280); the configure that stores a prefix there
(``-D CMAKE_INSTALL_PREFIX=P``, ``CMAKE_STAGING_PREFIX``, ``--install-prefix P``) is judged as
writing below P, since the later install writes there without naming it (s172, proven: a
project's ``install(FILES rc DESTINATION . RENAME .bashrc)`` replaced ~/.bashrc).
"""

from __future__ import annotations

import re

from echo_desk.agent.permissions import build_variables, file_programs, install_records, line_environment
from echo_desk.agent.permissions.options import Does
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading

__all__ = ["cmake_reading"]

#: Commands that only print, wait or compare what they are given (their words the read rules
#: judge as any program's).
_PRINTS = frozenset({"echo", "echo_append", "capabilities", "environment", "true", "false", "sleep", "cat",
                     "compare_files", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum"})
#: Commands that write each of their words, read as the file program they stand for, with the
#: options that program takes from cmake (every word after them is a path).
_EACH = {"touch": ("touch",), "touch_nocreate": ("touch", "-c"), "make_directory": ("mkdir", "-p"),
         "remove": ("rm",), "remove_directory": ("rm", "-r")}
#: Commands whose last word is where they copy, move or link the ones before it.
_COPIES = {"copy": ("cp",), "copy_if_different": ("cp",), "rename": ("mv",), "create_symlink": ("ln", "-s", "-T"),
           "create_hardlink": ("ln", "-T")}
#: Of those, the ones that take exactly two words.
_PAIRS = frozenset({"rename", "create_symlink", "create_hardlink"})
#: Commands that copy folders' contents anywhere below their last word.
_COPIES_BELOW = frozenset({"copy_directory"})
#: Commands that run the rest of their words as a command.
_RUNS = frozenset({"env", "time", "chdir"})
#: cmake -E rm's options (3.25: ``rm [-rRf] [--] <file/dir>...``).
_RM_OPTION = re.compile(r"-[rRf]+")
#: cmake -E tar's action letters (``tar [cxt][vf][zjJ] file.tar …``; a ``-`` may lead).
_TAR_ACTION = re.compile(r"-?[cxtvfzjJ]+")
#: cmake -E tar's options after the archive (3.25); ``--files-from=F`` reads F (its value is a
#: word the read rules see).
_TAR_OPTIONS = re.compile(r"--(?:format=\w+|mtime=.*|files-from=.+|zstd|touch)")

_UNKNOWN_WORD = Flag(frozenset(), "", None)  # a word only known when the line runs


def cmake_reading(argv: Argv, program: str) -> Reading:
    """``cmake -E COMMAND …`` read by its command (see the module doc); any other cmake line is
    a program whose words the engine does not know, with the files its options write."""
    if len(argv) < 2 or argv[1] != "-E":
        written, below = _option_writes(argv)
        if len(argv) > 1 and argv[1] is None:
            return Reading(program, flags=(_UNKNOWN_WORD,), known=False, written=written, written_below=below)
        return Reading(program, known=False, written=written, written_below=below)
    command = argv[2] if len(argv) > 2 else "help"
    if command is None:
        return Reading(program, flags=(_UNKNOWN_WORD,), unreadable=True)
    words = list(argv[3:])
    if command in _PRINTS:
        return Reading(program)
    if command in _RUNS:
        return _runs(argv, program, command)
    if command in _EACH or command in _COPIES or command in _COPIES_BELOW or command == "rm":
        return _writes(program, command, words)
    if command == "tar":
        return _tar(program, words)
    # Not a command read here: a rule covers it only by naming it (`cmake -E server **`).
    return Reading(program, flags=(Flag(frozenset({command, f"-E {command}"}), command, None),))


def _runs(argv: Argv, program: str, command: str) -> Reading:
    """``env [--unset=NAME]… [NAME=VALUE]… [--] CMD…``, ``time CMD…``, ``chdir DIR CMD…``."""
    from echo_desk.agent.permissions.shell import INERT_ASSIGNMENTS, inert_value

    found: list[Flag] = []
    given: list[tuple[str, str | None]] = []  # (see line_environment)
    start = 3
    if command == "chdir":
        # The command runs in DIR: its relative words name paths there, not where the line is.
        found.append(Flag(frozenset({"chdir", "-E chdir"}), "chdir", Does.CONFIG))
        start = 4
    elif command == "env":
        while start < len(argv):
            word = argv[start]
            if word is None:
                return Reading(program, flags=(*found, _UNKNOWN_WORD), unreadable=True)
            if word == "--":
                start += 1
                break
            if word.startswith("--unset="):
                given.append((word.partition("=")[2], None))
                if word == "--unset=PATH":  # see env -u PATH: bash then runs ./NAME
                    found.append(Flag(frozenset({word}), word, Does.CONFIG))
            elif word.startswith("-"):
                # cmake refuses an option it does not know; a later version may take it.
                return Reading(program, flags=(*found, Flag(frozenset({word}), word, None)), unreadable=True)
            elif "=" in word:
                name, _, value = word.partition("=")
                if name not in INERT_ASSIGNMENTS or not inert_value(value):
                    found.append(Flag(frozenset({word}), word, Does.CONFIG))
                given.append((name, value))
            else:
                break
            start += 1
    inners = (Inner(start=start, environment=tuple(given)),) if start < len(argv) else ()
    return Reading(program, flags=tuple(found), inners=inners)


def _writes(program: str, command: str, words: list[str | None]) -> Reading:
    """A command that writes files, read as its file program (every word a path after ``--``):
    the write rules judge what it writes, and a recursive delete is one (``Reading.deletes``)."""
    stands_for = _EACH.get(command) or _COPIES.get(command) or ()
    after = range(3, 3 + len(words))  # where the command's words stand in the line
    if command == "rm":
        # cmake reads an option anywhere before `--` (`rm a -r` is recursive for the words after).
        given: list[str] = []
        operands: list[str | None] = []
        options_end = False
        for word in words:
            if options_end or word is None or not word.startswith("-"):
                operands.append(word)
            elif word == "--":
                options_end = True
            elif _RM_OPTION.fullmatch(word):
                given.append(word)
            else:
                return Reading(program, written=(None,))  # cmake refuses it; a later version may not
        words, stands_for = operands, ("rm", *given)
    elif command == "remove":
        words = [w for w in words if w != "-f"]  # remove takes -f anywhere; every other word is a file
    elif command not in _EACH and any(w is None or w.startswith("-") for w in words):
        # Later versions give the copying commands options (`copy -t DIR`): which word is the
        # destination is not known here (nor where a word only known when it runs ends).
        return Reading(program, written=(None,))
    if command in _PAIRS and len(words) != 2:
        return Reading(program, written=(None,))  # cmake takes exactly two words
    if command in _COPIES_BELOW:
        destination = words[-1] if len(words) >= 2 else None
        return Reading(program, written=(destination,), written_below=(destination,))
    files = file_programs.written((*stands_for, "--", *words))
    written, below = files if files is not None else ((None,), ())
    # (rename moves a folder whole, as mv does: what it takes away and where it lands, s326)
    moved = (*stands_for, "--", *words)
    removed, landed = file_programs.moved_away(moved), file_programs.moved_into(moved)
    recursive = command == "remove_directory" or any("r" in o.lower() for o in stands_for[1:] if command == "rm")
    dynamic = command in ("rm", "remove") and None in words
    # Which of the line's words name what it deletes: every one after the command that is not
    # an option (a word that only looks like one only makes more words count).
    deleted = tuple(after) if recursive or dynamic else ()
    return Reading(program, written=written, written_below=below, deletes=deleted,
                   maybe_recursive=dynamic and not recursive, removed=removed, landed=landed)


def _tar(program: str, words: list[str | None]) -> Reading:
    """``tar ACTION ARCHIVE [options] [files]``: ``c`` writes the archive; ``x`` writes the members
    where they say (``../home/.bashrc`` too: cmake's extraction keeps ``..``), only known when it
    runs; ``t`` lists."""
    if len(words) < 2 or words[0] is None:
        return Reading(program, flags=(_UNKNOWN_WORD,))
    action, archive = words[0], words[1]
    if not _TAR_ACTION.fullmatch(action):
        return Reading(program, flags=(Flag(frozenset({action}), action, None),))
    for word in words[2:]:
        if word is None:
            break
        if word == "--":
            break
        if word.startswith("--") and not _TAR_OPTIONS.fullmatch(word):
            return Reading(program, flags=(Flag(frozenset({word}), word, None),))
    written: list[str | None] = []
    if "c" in action:
        written.append(archive)
    if "x" in action:
        written.append(None)
    return Reading(program, written=tuple(written))


#: Options whose value is a file cmake writes (``--graphviz=F`` or ``--graphviz F``).
_WRITES_VALUE = frozenset({"--graphviz", "--trace-redirect", "--profiling-output"})
#: Options after which the next word that is no option is a file cmake writes what it prints to.
_PRINTS_TO_FILE = re.compile(r"--help-[\w-]+|--version|-version|/V|--system-information")
#: Of those, the ones that take a name before the file (``--help-command include FILE``).
#: The cache variables naming where the build installs (``make install`` and ``cmake --install``
#: write below them; the staging prefix takes the install prefix's place when set).
_INSTALL_PREFIXES = frozenset({"CMAKE_INSTALL_PREFIX", "CMAKE_STAGING_PREFIX"})
_NAMED_HELP = frozenset({"--help-command", "--help-module", "--help-policy", "--help-property", "--help-variable",
                         "--help-manual"})


def _option_writes(argv: Argv) -> tuple[tuple[str | None, ...], tuple[str | None, ...]]:
    """The files cmake's options write (``None``: a word only known when it runs), and the
    folders installs write below: ``--install``'s ``--prefix``, and the install prefix a
    configure stores (``-D CMAKE_INSTALL_PREFIX=P``, ``--install-prefix P``)."""
    written: list[str | None] = []
    below: list[str | None] = []
    words = list(argv[1:])
    installs = "--install" in words
    # (an install step DESTDIR puts below it, which install_records joins to the prefix named)
    staged = install_records.DESTDIR in install_records.destination_variables(argv) \
        and bool(line_environment.get(install_records.DESTDIR))
    # Where a later `cmake --install` or `make install` of this build writes: the install (or
    # staging) prefix this configure stores in the build's cache (``-D`` or --install-prefix).
    below += [value for name, value in build_variables.cmake_settings(words) if name in _INSTALL_PREFIXES or name is None]
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else None
        if word is None:
            continue
        name, equals, value = word.partition("=")
        if name in _WRITES_VALUE:
            written.append(value if equals else following)
        elif installs and name == "--prefix" and staged:
            continue  # (it installs below DESTDIR + P: judged there by install_records, s300)
        elif (installs and name == "--prefix") or name == "--install-prefix":
            below.append(value if equals else following)
        elif _PRINTS_TO_FILE.fullmatch(word):
            # (a word only known when it runs may be the file; an option word ends the look)
            rest = words[i + 1 + (word in _NAMED_HELP):]
            target = rest[0] if rest else ""
            if target is None or not target.startswith("-"):
                written += [target] if target != "" else []
    return tuple(written), tuple(below)
