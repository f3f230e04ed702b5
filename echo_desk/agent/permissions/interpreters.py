"""Interpreters read as they read their options: python (``-c``, ``-m``, ``-W``, ``-X``, a
program from its input), pytest (also as ``python -m pytest``), node, perl and ruby."""

from __future__ import annotations

import re
from collections.abc import Callable

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions import settings_commands
from echo_desk.agent.permissions.options import Does, OptionSet, Parsed, Takes, read_options
from echo_desk.agent.permissions.reading import Argv, Flag, Reading, flags_of

V = Takes.VALUE
PYTHON = re.compile(r"python(3(\.\d+)?)?")
#: Options after which an interpreter prints something and runs no program.
_INFORMATION = frozenset({"-V", "--version", "-v", "-h", "--help", "-c", "--check", "--help-all", "--help-env",
                          "--help-xoptions"})


def pytest_flags(argv: Argv, program: str, offset: int = 1) -> list[Flag]:
    parsed = read_options(argv[offset:], table.PYTEST)
    found = flags_of(parsed, table.PYTEST)
    for seen in parsed.seen:
        names = set(seen.option.names) if seen.option is not None else set()
        if "-p" in names and not (seen.value or "").startswith("no:"):
            found.append(Flag(frozenset({"-p", seen.token}), seen.token, Does.RUNS))
        if "-W" in names and _imports_a_warning_category(seen.value):
            found.append(Flag(frozenset({"-W", seen.token}), seen.token, Does.RUNS))
    for token in argv[offset:]:
        if token is not None and token.startswith("@"):  # arguments read from a file
            found.append(Flag(frozenset({token}), token, Does.READS_CODE))
    return found


def pytest_reading(argv: Argv, program: str) -> Reading:
    return Reading(program, flags=tuple(pytest_flags(argv, program)))


def mypy_flags(argv: Argv, offset: int = 1) -> list[Flag]:
    """mypy's options that write (reports, ``--junit-xml``, ``--cache-dir``), run (``--python-
    executable``, ``--install-types``) or load code (``--config-file``), and ``@file``, which
    reads more arguments from a file."""
    parsed = read_options(argv[offset:], table.MYPY)
    return flags_of(parsed, table.MYPY) + _argument_files(argv, offset)


def mypy_reading(argv: Argv, program: str) -> Reading:
    return Reading(program, flags=tuple(mypy_flags(argv)))


def ruff_flags(argv: Argv, offset: int = 1) -> list[Flag]:
    """``ruff [global options] check …``: the options of ``check`` (``--output-file``,
    ``--cache-dir`` write, ``--config`` changes the settings). Another subcommand's options are
    not known here: each must be named by the rule. ruff expands ``@file`` anywhere on its
    line into the file's words before it reads its options (``ruff check @out/args`` takes
    ``--output-file=…`` from out/args), so each ``@`` word is a file of options."""
    parsed = read_options(argv[offset:], table.RUFF_GLOBAL)
    found = flags_of(parsed, table.RUFF_GLOBAL) + _argument_files(argv, offset)
    if parsed.rest is None:
        return found
    at = offset + parsed.rest
    rest = argv[at + 1:]
    if argv[at] == "check":
        return found + flags_of(read_options(rest, table.RUFF_CHECK), table.RUFF_CHECK)
    return found + [Flag(frozenset({w or ""} - {""}), w or "", None) for w in (argv[at], *rest)
                    if w is None or w.startswith("-")]


def ruff_reading(argv: Argv, program: str) -> Reading:
    return Reading(program, flags=tuple(ruff_flags(argv)), rewritten=ruff_rewritten(argv))


#: ``ruff check``'s options that stop it fixing (it prints a diff instead), unless a fixing one
#: is given too; without any, its settings (``fix = true``) may make it fix.
_RUFF_NO_FIX = frozenset({"--no-fix", "--diff"})
_RUFF_FIX = frozenset({"--fix", "--fix-only"})


def ruff_rewritten(argv: Argv, offset: int = 1) -> tuple[str | None, ...]:
    """What ``ruff check`` may rewrite: each file or folder it checks (the folder it runs in
    when none is given), with ``--fix`` or a settings file's ``fix = true``: ``ruff check --fix
    ~/proj`` emptied ~/proj/a.py of its unused import (proven, ruff 0.17, s221)."""
    parsed = read_options(argv[offset:], table.RUFF_GLOBAL)
    if parsed.rest is None or argv[offset + parsed.rest] != "check":
        return ()
    check = read_options(argv[offset + parsed.rest + 1:], table.RUFF_CHECK)
    given = {name for s in check.seen if s.option is not None for name in s.option.names}
    if given & _RUFF_NO_FIX and not given & _RUFF_FIX:
        return ()
    operands = tuple(value for _, value in check.operands)
    return operands or (".",)


PIP = re.compile(r"pip(3(\.\d+)?)?")


def pip_options(argv: Argv, offset: int = 1) -> tuple[list[Flag], tuple[str | None, ...]]:
    """``pip [general options] SUBCOMMAND [options]``: the general options that write
    (``--log``, ``--cache-dir``), run (``--python``) or read a key (``--cert``) wherever they
    stand; the read-only subcommands (list, freeze, show, check) read strictly, so an option
    of theirs not known asks; those that install or fetch (``table.PIP_WRITERS``) with the
    options that choose where they write. Also the folders ``pip install|download|wheel``
    writes anywhere below, for the write rules to judge: the value of ``--target``,
    ``--prefix``, ``--root``, ``--src``, ``-d``, ``-w``, and the user's base (~/.local) for
    ``--user``."""
    parsed = read_options(argv[offset:], table.PIP_BEFORE)
    found = flags_of(parsed, table.PIP_BEFORE)
    if parsed.rest is None:
        return found, ()
    at = offset + parsed.rest
    sub = argv[at] or ""
    spec = table.PIP_READERS.get(sub) or table.PIP_WRITERS.get(sub) or table.PIP_GENERAL
    options = read_options(argv[at + 1:], spec)
    below: list[str | None] = []
    for seen in options.seen:
        names = set(seen.option.names) if seen.option is not None else set()
        if names & table.PIP_FOLDERS:
            below.append(seen.value)
        elif "--user" in names:
            below.append(table.PIP_USER_BASE)
    return found + flags_of(options, spec), tuple(below)


def pip_reading(argv: Argv, program: str) -> Reading:
    found, below = pip_options(argv)
    return Reading(program, flags=tuple(found), written_below=below)


def _argument_files(argv: Argv, offset: int) -> list[Flag]:
    """``@file`` words: the program reads more arguments from the file (argparse's
    ``fromfile_prefix_chars``), which the rule cannot see."""
    return [Flag(frozenset({w}), w, Does.READS_CODE) for w in argv[offset:] if w is not None and w.startswith("@")]


def _imports_a_warning_category(value: str | None) -> bool:
    """``-W action:message:category``: a dotted category is imported (a module runs)."""
    if value is None:
        return True
    fields = value.split(":")
    return len(fields) >= 3 and "." in fields[2]


def python_reading(argv: Argv, program: str) -> Reading:
    """``python [options] (-c code | -m module | script | -) [args]``: options end at the code."""
    found: list[Flag] = []
    spec = table.PYTHON
    i, n = 1, len(argv)
    while i < n:
        token = argv[i]
        if token is None:
            return Reading(program, flags=(*found, Flag(frozenset(), "", None)))
        if token == "--":
            i += 1
            break
        if not token.startswith("-") or token == "-":
            break
        if token.startswith("--"):
            option, _ = spec.long(token.partition("=")[0])
            if option is None:
                found.append(Flag(frozenset({token}), token, None))
            i += 2 if option is not None and option.takes is V and "=" not in token else 1
            continue
        letter, value, i = _python_cluster(argv, i, found)
        if letter in ("c", "m"):
            found.append(Flag(frozenset({"-" + letter, token}), token, Does.RUNS))
            if letter == "m" and value in ("pytest", "py.test"):
                found += pytest_flags(argv, program, i)
            elif letter == "m" and value == "mypy":
                found += mypy_flags(argv, i)
            elif letter == "m" and value == "ruff":
                found += ruff_flags(argv, i)
            elif letter == "m" and value is not None and PIP.fullmatch(value):
                pip_found, below = pip_options(argv, i)
                settings, _ = settings_commands.written(argv, settings_commands.COMMANDS["pip"], i)
                return Reading(program, flags=(*found, *pip_found), written_below=below, written=settings,
                               program_form=_program_form(argv, i, value))
            form = _program_form(argv, i, value) if letter == "m" else None
            rewritten = ruff_rewritten(argv, i) if letter == "m" and value == "ruff" else ()
            return Reading(program, flags=tuple(found), program_form=form, rewritten=rewritten)
    if (i >= n or argv[i] == "-") and not set(argv[1:i]) & _INFORMATION:  # the program comes from its input
        found.append(Flag(frozenset({"-"}), "-", Does.READS_CODE))
    return Reading(program, flags=tuple(found))


#: Modules whose ``python -m MODULE`` runs the same entry as the program of that name (its
#: console script calls the function the module's ``__main__`` calls). Only the folders python
#: looks in for modules differ: ``-m`` puts the current folder first (``./pip.py`` ran under
#: ``python -m pip``: s175), which ``settings_files`` counts for ``python -m`` as it counts
#: ``$PYTHONPATH`` for both.
MODULE_PROGRAMS = {"pip": "pip", "pytest": "pytest", "mypy": "mypy"}
#: Options of python's own that change nothing a module could be made to run (``-i`` is not
#: one: after the module, python reads code from its input).
_PLAIN_PYTHON = re.compile(r"-[bBdEIOPqsSuvR]+")


def _program_form(argv: Argv, at: int, module: str | None) -> Argv | None:
    """``python [plain options] -m MODULE args`` (``at``: where args start) as ``PROGRAM
    args`` for a module of ``MODULE_PROGRAMS``; ``None`` for anything else."""
    name = MODULE_PROGRAMS.get(module or "")
    if name is None or module is None:
        return None
    before = argv[1:at - 1] if argv[at - 1] == module else argv[1:at]
    if not all(w is not None and (w in ("-m", "-m" + module) or _PLAIN_PYTHON.fullmatch(w)) for w in before):
        return None
    return (name, *argv[at:])


def _python_cluster(argv: Argv, i: int, found: list[Flag]) -> tuple[str, str | None, int]:
    """One word of short options (``-Bu``, ``-Wignore``, ``-m mod``): the letter that took a
    value with its value (``""`` for none), and where the next word is. Flags what it must."""
    token = argv[i] or ""
    for k in range(1, len(token)):
        letter = token[k]
        option = table.PYTHON.short(letter)
        if option is None:
            found.append(Flag(frozenset({token}), token, None))
            return "", None, i + 1
        if option.takes is not V:
            continue
        glued = token[k + 1:]
        value = glued or (argv[i + 1] if i + 1 < len(argv) else None)
        following = i + 1 if glued else i + 2
        if letter == "W" and _imports_a_warning_category(value):
            found.append(Flag(frozenset({"-W", token}), token, Does.RUNS))
        if letter == "X" and (value or "").partition("=")[0] not in table.PYTHON_X_SAFE \
                and value not in table.PYTHON_X_SAFE:
            found.append(Flag(frozenset({"-X", token}), token, Does.CONFIG))
        return letter, value, following
    return "", None, i + 1


def interpreter(spec: OptionSet, code_options: frozenset[str], *,
                magic_open: bool = False) -> Callable[[Argv, str], Reading]:
    """node, perl, ruby: options, then the script (or code given with ``code_options``), then
    its arguments. ``-i`` (perl, ruby) edits the files it reads in place: each is a path it
    writes (``Reading.written``), judged by the write rules even where a rule names ``-i``.
    ``magic_open`` (perl): ``<>``, the loop of ``-n``/``-p`` and ``-i``, opens each argument
    with perl's two-argument open, which reads ``>FILE`` as a file to write and ``CMD|`` as a
    command to run: such an argument, or one only known when the line runs, is flagged."""
    def reader(argv: Argv, program: str) -> Reading:
        parsed = read_options(argv[1:], spec)
        found = flags_of(parsed, spec)
        has_code = any(s.option is not None and set(s.option.names) & code_options for s in parsed.seen)
        informational = any(s.token in _INFORMATION for s in parsed.seen)
        if not has_code and not informational and (parsed.rest is None or argv[1 + parsed.rest] == "-"):
            found.append(Flag(frozenset({"-"}), "-", Does.READS_CODE))
        # the words after the code, or after the script when none was given
        arguments = argv[1 + parsed.rest + (not has_code):] if parsed.rest is not None else ()
        if magic_open:
            found += [Flag(frozenset({w or ""} - {""}), w or "", Does.RUNS if w is not None else None)
                      for w in arguments if w is None or _MAGIC_OPEN.search(w)]
        return Reading(program, flags=tuple(found), written=_edited_in_place(parsed, arguments))
    return reader


#: What perl's two-argument open reads as a mode (``>``, ``>>``, ``+<``, ``<``), a pipe (``|CMD``,
#: ``CMD|``), rather than the name of a file to read.
_MAGIC_OPEN = re.compile(r"^\s*[<>+|&]|\|\s*$")


def _edited_in_place(parsed: Parsed, arguments: Argv) -> tuple[str | None, ...]:
    """What ``-i[SUFFIX]`` writes: each argument (a file it edits) and its backup, ``FILE``
    followed by the suffix. A suffix with ``/`` or ``*`` (perl: ``-i'old/*'``, each ``*`` the
    file's name) puts the backup elsewhere: only known when it runs."""
    in_place = [s for s in parsed.seen if s.option is not None and "-i" in s.option.names
                and s.option.does is Does.WRITES]
    if not in_place:
        return ()
    suffixes = [s.value for s in in_place if s.value]
    written: list[str | None] = list(arguments)
    for suffix in suffixes:
        if "/" in suffix or "*" in suffix:
            written.append(None)
        else:
            written += [w + suffix if w is not None else None for w in arguments]
    return tuple(written)
