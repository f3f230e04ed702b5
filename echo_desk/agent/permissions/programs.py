"""What a program does with its arguments, read as the program reads them (``read(argv)``):

- the options a rule's ``**`` never covers (``Reading.flags``): those that run a program, write
  a file, read code or change configuration, and — for programs that have such options — any
  option the engine does not know; a rule covers them only by naming them;
- the commands it runs (``Reading.inners``): wrappers (``env``, ``timeout``, ``xargs``, ``find
  -exec``, ``sudo``, ``bash -c``, ``flock -c``, ``watch``…) are unwrapped, so deny rules see the
  inner command and an allow needs a rule for the wrapper *and* for what it runs;
- spellings of the same command for deny rules (``/bin/rm`` is ``rm``, ``sort --o=F`` is
  ``sort -o F``, ``git -C . push`` is ``git push``);
- programs that are never allowed by a rule (``eval``, ``source``, ``sudo``…).

Option tables are data (``program_options``, ``git_options``); this module is how they are read.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

from echo_desk.agent.permissions import (
    archivers,
    editors,
    file_programs,
    hg_file_writes,
    hg_folder_writes,
    hg_moves,
    hg_runners,
    line_environment,
    npm_settings_writes,
    program_names,
    settings_commands,
)
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions import searcher_options as searchers
from echo_desk.agent.permissions.binutils import objcopy_reading, strip_reading
from echo_desk.agent.permissions.build_tools import (
    COMPILER,
    PREPROCESSOR,
    cargo_reading,
    compiler_reading,
    cpp_reading,
    go_reading,
    java_reading,
    javac_reading,
    mvn_reading,
)
from echo_desk.agent.permissions.bun_commands import bun_reading, bunx_reading
from echo_desk.agent.permissions.cmake_modes import cmake_reading
from echo_desk.agent.permissions.deno_options import deno_reading
from echo_desk.agent.permissions.download_reads import NETRC, curl_value_reads, file_url_path, upload_globbed
from echo_desk.agent.permissions.downloads import curl_output, wget_written
from echo_desk.agent.permissions.editor_starts import hg_editors
from echo_desk.agent.permissions.git_reading import git_reading
from echo_desk.agent.permissions.history_files import history_reading
from echo_desk.agent.permissions.interpreters import (
    PIP,
    PYTHON,
    interpreter,
    mypy_reading,
    pip_reading,
    pytest_reading,
    python_reading,
    ruff_reading,
)
from echo_desk.agent.permissions.meson_modes import meson_reading
from echo_desk.agent.permissions.model import Opaque
from echo_desk.agent.permissions.options import Does, OptionSet, Parsed, read_options
from echo_desk.agent.permissions.pre_commit_repos import pre_commit_reading
from echo_desk.agent.permissions.program_scripts import awk_is_harmless, sed_is_harmless
from echo_desk.agent.permissions.reading import (
    Argv,
    Flag,
    Inner,
    Reading,
    flags_of,
    read_generic,
    spellings_of,
    with_changes,
    written_of,
)
from echo_desk.agent.permissions.runner_options import just_reading
from echo_desk.agent.permissions.tox_writes import tox_reading
from echo_desk.agent.permissions.uv_options import uv_reading, uvx_reading
from echo_desk.agent.permissions.wrappers import (
    ELEVATORS,
    PACKAGE_MANAGERS,
    RUNNER_OPTIONS,
    RUNNERS,
    SHELLS,
    WRAPPERS,
    Wrapper,
    command_reading,
    env_reading,
    flock_reading,
    runner,
    rustup_reading,
    script_reading,
    shell_reading,
    ssh_reading,
    su_reading,
    watch_reading,
    wrapper_reading,
    xargs_reading,
)
from echo_desk.sandbox.shell import Grammar

__all__ = ["ELEVATORS", "SHELLS", "Argv", "Flag", "Inner", "Reading", "base", "name_of", "read"]

#: Run text as shell code, or change how later commands are found or read: never allowed.
EVALUATORS = frozenset({"eval", "source", ".", "trap", "alias", "unalias", "enable", "shopt", "hash", "fc", "coproc",
                        "bind", "complete", "compgen"})


def base(program: str | None) -> str | None:
    """``/usr/bin/git`` → ``git`` (a path does not escape a deny)."""
    if program is None:
        return None
    return program.rsplit("/", 1)[-1]


@lru_cache(maxsize=4096)
def name_of(program: str | None) -> str | None:
    """The name the engine's tables know ``program`` (a word, maybe with its folder) by:
    ``perl5.36.0`` is ``perl``, ``nodejs`` is ``node`` (``program_names``). Every lookup of a
    program in a table goes through it."""
    word = base(program)
    if not word:
        return word
    return program_names.table_name(word, _has_entry, _has_checks)


def read(argv: Argv) -> Reading:
    """How ``argv``'s program reads it (see the module doc). Never raises.

    Where a settings command writes depends on the environment as well as the words
    (``rustup default``: ``$RUSTUP_HOME``), so a reading is kept with the values the variables
    it looked up had, and is good only while Echo Desk's own environment still gives them
    (s195: a reading kept by the words alone judged the file an earlier environment named).
    A command the line gives variables to is read again every time (``line_environment``)."""
    if line_environment.given() is not None:
        return _read_fresh(argv)
    kept = _KEPT.get(argv)
    if kept is not None and line_environment.values(name for name, _ in kept[0]) == kept[0]:
        return kept[1]
    with line_environment.reading() as names:
        reading = _read_fresh(argv)
    kept = (line_environment.values(names), reading)
    with _KEEPING:
        if len(_KEPT) >= _KEEP:
            del _KEPT[next(iter(_KEPT))]  # (the oldest: a dict keeps its order)
        _KEPT[argv] = kept
    return reading


def _read_fresh(argv: Argv) -> Reading:
    name = name_of(argv[0]) if argv else None
    if name is not None and name != base(argv[0]):
        # Another name of a program the engine knows: read as that program. Allow rules still
        # match the words as written; deny and ask rules naming the program see it too.
        reading = read((name, *argv[1:]))
        matched = (argv[0], *reading.matched[1:]) if reading.matched else None
        return with_changes(reading, matched=matched, spellings=(*reading.spellings, (name, *argv[1:])))
    reading = _read(argv)
    files = file_programs.written(argv) if reading.program in file_programs.PROGRAMS else \
        archivers.written(argv) if reading.program in archivers.PROGRAMS else None
    if files is not None:
        reading = with_changes(reading, written=(*reading.written, *files[0]),
                               written_below=(*reading.written_below, *files[1]))
    reading = _own_settings(argv, reading)
    values = _option_values(argv, reading.program)
    if values:
        reading = with_changes(reading, values=(*reading.values, *values))
    too_long = _long_cluster(argv, reading.program)
    if too_long is not None:
        reading = with_changes(reading, flags=(*reading.flags, too_long))
    if reading.program in table.READS_ONLY and not (reading.flags or reading.inners or reading.writes):
        return with_changes(reading, reads_only=True)
    return reading


#: The readings kept (see ``read``): the words, with the variables looked up and their values.
_KEPT: dict[Argv, tuple[tuple[tuple[str, str | None], ...], Reading]] = {}
_KEEP = 4096
_KEEPING = threading.Lock()


def _own_settings(argv: Argv, reading: Reading) -> Reading:
    """``reading`` with the settings files the program's own settings command writes (``npm
    config set``: ``npm_settings_writes``; ``pip config set``, ``hg config --edit``, ``rustup
    default``…: ``settings_commands``; ``python -m pip``'s: python's reader), for the write rules."""
    settings: tuple[str | None, ...] = ()
    below: tuple[str | None, ...] = ()
    if reading.program in PACKAGE_MANAGERS:
        settings = npm_settings_writes.written(argv, reading.program)
    commands = settings_commands.COMMANDS.get("pip" if PIP.fullmatch(reading.program) else reading.program)
    if commands:
        settings, below = settings_commands.written(argv, commands)
    if not settings and not below:
        return reading
    return with_changes(reading, written=(*reading.written, *settings), written_below=(*reading.written_below, *below))


def _option_values(argv: Argv, program: str) -> tuple[str, ...]:
    """The values of ``argv``'s options, read with the program's table where there is one
    (``-fPATH``), else every value a word could hold (``_possible_values``)."""
    spec = _VALUE_TABLES.get(program)
    if spec is not None:
        parsed = read_options(argv[1:], spec)
        return tuple(s.value for s in parsed.seen if s.value)
    return tuple(dict.fromkeys(v for w in argv[1:] if w for v in _possible_values(w)))


#: A short-option word longer than this is not split into its possible values (see ``read``).
_MAX_CLUSTER_CHARS = 256


def _possible_values(word: str) -> tuple[str, ...]:
    """The values ``word`` may give an option when the program's options are not known here:
    ``--name=value``'s value, and for a short-option word every tail after its first letter —
    which letter takes the rest as its value is the program's secret (``du -X../secret``, ``git
    diff -O../secret``, ``git ls-files -oX../secret``). Extra tails only make the engine ask."""
    if word.startswith("--"):
        name, eq, value = word.partition("=")
        return (value,) if eq and name else ()
    if word.startswith("-") and 2 < len(word) <= _MAX_CLUSTER_CHARS:
        return tuple(word[k:] for k in range(2, len(word)))
    return ()


def _long_cluster(argv: Argv, program: str) -> Flag | None:
    """A short-option word too long to check each of its tails as a path, for a program whose
    options are not known here: a rule's ``**`` does not cover it."""
    if program in _VALUE_TABLES:
        return None
    for word in argv[1:]:
        if word and word.startswith("-") and not word.startswith("--") and len(word) > _MAX_CLUSTER_CHARS:
            return Flag(frozenset({word}), word, None)
    return None


def _read(argv: Argv) -> Reading:
    program = base(argv[0]) if argv else None
    if not program:
        return Reading(program="", unreadable=True)
    if program in SHELLS:
        return shell_reading(argv, program)
    if PYTHON.fullmatch(program):
        return python_reading(argv, program)
    if PIP.fullmatch(program):
        return pip_reading(argv, program)
    reader = _READERS.get(program)
    if reader is not None:
        return reader(argv, program)
    if PREPROCESSOR.fullmatch(program):
        return cpp_reading(argv, program)
    if COMPILER.fullmatch(program):
        return compiler_reading(argv, program)
    spec = _TABLES.get(program)
    if spec is not None:
        return read_generic(argv, spec, program)
    wrapper = WRAPPERS.get(program)
    if wrapper is not None:
        return wrapper_reading(argv, program, wrapper)
    if program in EVALUATORS:
        inner = (Inner(line=" ".join(a for a in argv[1:] if a is not None), grammar=Grammar.BASH),) \
            if program in ("eval", "trap") and argv[1:] and all(a is not None for a in argv[1:]) else ()
        return Reading(program, inners=inner, never=Opaque.EVAL)
    if program in table.NAME_BUILTINS:
        return _names(argv, program)
    return Reading(program, known=program in table.READS_ONLY)


# -- programs with scripts, output operands and odd parsers ----------------------------------------
def _sed(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.SED)
    found = flags_of(parsed, table.SED)
    scripts = [(s.token, s.value) for s in parsed.seen if s.option is not None and s.option.does is Does.SCRIPT]
    from_file = any(s.option is not None and s.option.does is Does.READS_CODE for s in parsed.seen)
    if not scripts and not from_file:
        first = parsed.operands[0][1] if parsed.operands else None
        scripts = [(first or "", first)]
    texts = [v for _, v in scripts]
    if any(v is None for v in texts) or not all(sed_is_harmless(v or "") for v in texts) \
            or not sed_is_harmless("\n".join(v or "" for v in texts)):
        for token, text in scripts:
            found.append(Flag(frozenset({token, text or ""} - {""}), token, Does.RUNS))
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed),
                   written=_sed_written(parsed))


def _sed_written(parsed: Parsed) -> tuple[str | None, ...]:
    """What ``sed -i`` writes: each file it edits (the operands after the script, all of them
    when ``-e``/``-f`` gave it), and a backup where ``-iSUFFIX`` names a folder (``-i'bak/*'``:
    only known when it runs)."""
    in_place = [s for s in parsed.seen if s.option is not None and "--in-place" in s.option.names]
    if not in_place:
        return ()
    scripted = any(s.option is not None and s.option.does in (Does.SCRIPT, Does.READS_CODE) for s in parsed.seen)
    files = [v for _, v in (parsed.operands if scripted else parsed.operands[1:])]
    backups: list[str | None] = [None for s in in_place if s.value is not None and "/" in s.value]
    return (*files, *backups)


def _awk(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.AWK)
    found = flags_of(parsed, table.AWK)
    texts = [(s.token, s.value) for s in parsed.seen if s.option is not None and s.option.does is Does.SCRIPT]
    from_file = any(s.option is not None and s.option.does is Does.READS_CODE for s in parsed.seen)
    rest = parsed.rest
    if not texts and not from_file:
        text = argv[1 + rest] if rest is not None else None
        texts = [(text or "", text)]
    for token, text in texts:
        if text is None or not awk_is_harmless(text):
            found.append(Flag(frozenset({token, text or ""} - {""}), token, Does.RUNS))
    return Reading(program, flags=tuple(found))


def _find(argv: Argv, program: str) -> Reading:
    found: list[Flag] = []
    inners: list[Inner] = []
    n = len(argv)
    i = 1
    while (i < n and argv[i] in table.FIND_GLOBAL) or (i < n and (argv[i] or "").startswith(("-O", "-D"))):
        i += 2 if argv[i] == "-D" else 1
    starts: list[int] = []
    while i < n and not ((argv[i] or "x").startswith("-") or argv[i] in ("(", "!", ")", ",")):
        starts.append(i)
        i += 1
    deletes = False
    while i < n:
        token = argv[i]
        if token is None:
            found.append(Flag(frozenset(), "", None))
            i += 1
        elif token in table.FIND_NONE:
            i += 1
        elif token in table.FIND_ONE or re.fullmatch(r"-newer[aBcmt][aBcmt]", token):
            i += 2
        elif token in table.FIND_WRITES:
            writes_file = table.FIND_WRITES[token] > 0  # -fprint FILE, -fprintf FILE FORMAT
            found.append(Flag(frozenset({token}), token, Does.WRITES, writes_path=writes_file,
                              path=argv[i + 1] if writes_file and i + 1 < n else None))
            deletes = deletes or token == "-delete"
            i += 1 + table.FIND_WRITES[token]
        elif token in table.FIND_RUNS:
            end = next((k for k in range(i + 1, n) if argv[k] in (";", "+")), None)
            found.append(Flag(frozenset({token}), token, Does.RUNS))
            if end is None:
                return Reading(program, flags=tuple(found), inners=tuple(inners), unreadable=True)
            inners.append(Inner(start=i + 1, end=end, placeholder="{}"))
            i = end + 1
        else:
            found.append(Flag(frozenset({token}), token, None))
            i += 1
    return Reading(program, flags=tuple(found), inners=tuple(inners), deletes=tuple(starts) if deletes else (),
                   deletes_here=deletes and not starts)


def tar_new_style(args: Sequence[str | None]) -> list[str | None]:
    """tar's arguments with an old-style first word spelled out: ``tar tvf a.tar`` is ``tar -t
    -v -f a.tar`` (each letter of ``TAR_OLD_STYLE_VALUES`` takes the next word)."""
    words = list(args)
    if not words or words[0] is None or words[0].startswith("-"):
        return words
    letters, rest = words[0], words[1:]
    new: list[str | None] = []
    for letter in letters:
        new.append("-" + letter)
        if letter in table.TAR_OLD_STYLE_VALUES and rest:
            new.append(rest.pop(0))
    return [*new, *rest]


def _tar(argv: Argv, program: str) -> Reading:
    args = tar_new_style(argv[1:])
    reading = read_generic((argv[0], *args), table.TAR, program)
    remote = _tar_remote(args)
    if remote:
        reading = with_changes(reading, flags=(*reading.flags, *remote))
    return with_changes(reading, spellings=(*reading.spellings, (argv[0], *args)), **_tar_written(args))


#: tar's modes that write the archive ``-f`` names, and those that write the files it holds.
_TAR_WRITES_ARCHIVE = frozenset({"--create", "--append", "--update", "--catenate", "--delete"})
_TAR_EXTRACTS = frozenset({"--extract"})


def _tar_written(args: list[str | None]) -> dict[str, tuple[str | None, ...]]:
    """Where tar writes: the archive ``-f`` names when it creates or changes one (none named:
    its output, or ``$TAPE``: only known when it runs), and when it extracts, everything below
    the folder ``-C`` names (the one it runs in without; several ``-C``, or ``-P`` keeping
    absolute and ``..`` names: only known when it runs)."""
    parsed = read_options(args, table.TAR)
    names = [set(s.option.names) if s.option is not None else set() for s in parsed.seen]
    written: list[str | None] = []
    below: list[str | None] = []
    if any(n & _TAR_WRITES_ARCHIVE for n in names):
        archives = [s.value for s, n in zip(parsed.seen, names, strict=True) if "--file" in n]
        written += [a for a in archives if a != "-"] if archives else [None]
    if any(n & _TAR_EXTRACTS for n in names):
        folders = [s.value for s, n in zip(parsed.seen, names, strict=True) if "--directory" in n]
        if len(folders) > 1 or any("--absolute-names" in n for n in names):
            below.append(None)
        else:
            below.append(folders[0] if folders else ".")
    return {"written": tuple(written), "written_below": tuple(below)}


def _tar_remote(args: list[str | None]) -> list[Flag]:
    """An archive named ``host:file`` (a ':' before any '/') is on another machine: tar runs
    the remote shell (/usr/bin/rsh host /usr/sbin/rmt) to reach it, unless ``--force-local``."""
    parsed = read_options(args, table.TAR)
    if any(s.option is not None and "--force-local" in s.option.names for s in parsed.seen):
        return []
    return [Flag(frozenset({s.value or ""} - {""}), s.value or s.token, Does.RUNS) for s in parsed.seen
            if s.option is not None and "--file" in s.option.names
            and (s.value is None or ":" in s.value.split("/", 1)[0])]


def _rm(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.RM)
    recursive = any(s.option is not None and "--recursive" in s.option.names for s in parsed.seen)
    operands = tuple(1 + i for i, _ in parsed.operands)
    dynamic = any(v is None for _, v in parsed.operands)
    return Reading(program, spellings=spellings_of(argv, parsed), deletes=operands if recursive or dynamic else (),
                   maybe_recursive=dynamic and not recursive)


def _rsync(argv: Argv, program: str) -> Reading:
    """rsync's ``--delete`` empties what of the destination the source lacks: a recursive delete."""
    parsed = read_options(argv[1:], table.RSYNC)
    deleting = any(s.option is not None and any(n.startswith("--delete") for n in s.option.names)
                   for s in parsed.seen)
    destination = (1 + parsed.operands[-1][0],) if deleting and len(parsed.operands) > 1 else ()
    remote = [Flag(frozenset({value}), value, Does.RUNS) for _, value in parsed.operands
              if value is not None and _remote(value)]
    unknown = [Flag(frozenset(), "", None) for _, value in parsed.operands if value is None]
    copies_to = parsed.operands[-1][1] if len(parsed.operands) > 1 else None
    below = (copies_to,) if len(parsed.operands) > 1 and not (copies_to and _remote(copies_to)) else ()
    return Reading(program, flags=(*flags_of(parsed, table.RSYNC), *remote, *unknown),
                   spellings=spellings_of(argv, parsed), deletes=destination,
                   written=_rsync_relative(parsed, copies_to), written_below=below)


def _rsync_relative(parsed: Parsed, destination: str | None) -> tuple[str | None, ...]:
    """rsync puts a relative ``--backup-dir``, ``--partial-dir``, ``-T``… below the destination:
    the write rules judge it there too (as an option's value, from where it runs)."""
    out: list[str | None] = []
    for path in written_of(parsed):
        if path is not None and not os.path.isabs(path) and not path.startswith("~"):
            out.append(None if destination is None or _remote(destination) else os.path.join(destination, path))
    return tuple(out)


def _remote(word: str) -> bool:
    """A source or destination on another machine: ``host:path`` (a ':' before any '/'), which
    rsync reaches by running the remote shell (ssh, with the settings and ``ProxyCommand`` of
    ~/.ssh/config), ``host::module`` and ``rsync://host/…`` (an rsync daemon)."""
    return ":" in word.split("/", 1)[0] or word.startswith("rsync://")


def _zip(argv: Argv, program: str) -> Reading:
    """zip 3.0 reads ``-TT CMD`` (also glued and in a cluster: ``-qTTCMD``) and any unique prefix
    of ``--unzip-command``: the command it runs to test the archive. Its other options are left
    to the rule (they choose what goes into the archive it writes)."""
    found = [Flag(frozenset({word}), word, Does.RUNS) for word in argv[1:] if word is not None and _zip_runs(word)]
    unknown = [Flag(frozenset(), "", None) for word in argv[1:] if word is None]
    return Reading(program, flags=(*found, *unknown))


def _zip_runs(word: str) -> bool:
    """``-TT…`` anywhere in a short-option word, or a prefix of ``--unzip-command`` longer than
    ``--u`` (ambiguous: zip refuses it)."""
    if word.startswith("--"):
        name = word.partition("=")[0]
        return len(name) > len("--u") and "--unzip-command".startswith(name)
    return word.startswith("-") and "TT" in word


def _uniq(argv: Argv, program: str) -> Reading:
    """``uniq [INPUT [OUTPUT]]``: the second file is written."""
    parsed = read_options(argv[1:], table.UNIQ)
    output = (1 + parsed.operands[1][0],) if len(parsed.operands) > 1 else ()
    return Reading(program, flags=tuple(flags_of(parsed, table.UNIQ)), writes=output,
                   spellings=spellings_of(argv, parsed))


def _less(argv: Argv, program: str) -> Reading:
    """less's options (``table.LESS``) and ``+cmd`` words: commands run at the start (``+!cmd``
    runs a shell where there is a terminal), which a rule must name."""
    parsed = read_options(argv[1:], table.LESS)
    found = flags_of(parsed, table.LESS)
    found += [Flag(frozenset({value or ""} - {""}), value or "", Does.CONFIG) for _, value in parsed.operands
              if value is None or value.startswith("+")]
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed))


def _xxd(argv: Argv, program: str) -> Reading:
    """``xxd [options] [INFILE [OUTFILE]]`` writes OUTFILE (``-r``: patches it). xxd matches
    its options by prefix in its own way: every operand after the first is taken as one it may
    write, so a misread option value can only make the engine ask."""
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        if word is None or word == "-" or not word.startswith("-"):
            break
        i += 1
        if word == "--":
            break
        if word in table.XXD_VALUES:
            i += 1
    operands = list(range(i, n))
    written = tuple(k for k in operands[1:] if argv[k] != "-")  # `-`: its output
    unknown = tuple(Flag(frozenset(), "", None) for k in operands if argv[k] is None)
    return Reading(program, writes=written, flags=unknown)


def _tsc(argv: Argv, program: str) -> Reading:
    """tsc's options that choose where it writes or which project file it reads
    (``table.TSC_WRITES``, ``table.TSC_CONFIG``; any letter case, one dash or two), ``@file``
    words, which read more options from a file, and the files it compiles: unless ``--noEmit``,
    tsc writes each one's output next to it (``tsc src/a.ts``, and ``tsc src/a``, write
    ``src/a.js``, through a link there too), a word whose options' values are not known here,
    so every word that is no option counts."""
    found: list[Flag] = []
    emits = not _tsc_no_emit(argv)
    for word in argv[1:]:
        if word is None:
            found.append(Flag(frozenset(), "", None))
        elif word.startswith("@"):
            found.append(Flag(frozenset({word}), word, Does.READS_CODE))
        elif word.startswith("-"):
            name = word.lstrip("-").partition("=")[0].lower()
            if name in table.TSC_WRITES:
                found.append(Flag(frozenset({word}), word, Does.WRITES))
            elif name in table.TSC_CONFIG:
                found.append(Flag(frozenset({word}), word, Does.CONFIG))
        elif emits and word.lower() not in ("true", "false"):
            found.append(Flag(frozenset({word}), word, Does.WRITES))
    return Reading(program, flags=tuple(found))


def _tsc_no_emit(argv: Argv) -> bool:
    """Whether tsc is told to write nothing: ``--noEmit`` (any case, one dash or two), not
    followed by ``false`` (tsc reads a boolean option's next word when it is true or false; the
    last one counts)."""
    no_emit = False
    for k, word in enumerate(argv[1:], start=1):
        if word is None:
            no_emit = False  # only known when it runs: it may be `--noEmit false`'s false
        elif word.startswith("-") and word.lstrip("-").lower() == "noemit":
            if k + 1 == len(argv):
                no_emit = True
            else:
                following = argv[k + 1]
                no_emit = following is not None and following.lower() != "false"
    return no_emit


#: Builtins whose operands are names of variables they assign.
_ASSIGNS = frozenset({"read", "mapfile", "readarray", "getopts"})
_SPECIAL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[.*|[A-Za-z0-9_]*[A-Z][A-Za-z0-9_]*")
#: An array subscript bash evaluates as arithmetic (anything but a plain number): a variable named
#: in it is evaluated in turn, its value's own subscripts expanded (``$_`` is the last word of the
#: command before: ``echo 'a[$(cmd)]'; test -v 'b[_]'`` runs cmd).
_EVALUATED_SUBSCRIPT = re.compile(r"\[(?![0-9]*\])")
#: A name in an arithmetic expression: ``let _`` evaluates the variable's value the same way.
_ARITHMETIC_NAME = re.compile(r"[A-Za-z_]")
#: Options whose value is a name the builtin assigns, and options taking another value, for the
#: builtins where that value may be glued to the option (``read -aPS4``).
_NAME_OPTIONS = {"read": ("a", "dinNptu"), "wait": ("p", "")}
_OWN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def _glued_names(argv: Argv, program: str) -> list[tuple[str, str]]:
    """The names glued to an option of ``read``/``wait``, each with its word (``read -raPS4``
    assigns PS4)."""
    if program not in _NAME_OPTIONS:
        return []
    takes_name, takes_value = _NAME_OPTIONS[program]
    found: list[tuple[str, str]] = []
    i = 1
    while i < len(argv):
        word = argv[i]
        i += 1
        if word is None or word == "--" or not word.startswith("-") or word == "-":
            break
        for k, c in enumerate(word[1:], start=2):
            if c in takes_name or c in takes_value:
                if word[k:] and c in takes_name:
                    found.append((word, word[k:]))
                elif not word[k:]:
                    i += 1  # the value is the next word (a name there is judged as a word)
                break
    return found


def _printf_format_index(argv: Argv) -> int:
    """Where printf's format is: after its options, read as bash reads them (getopt ``v:``:
    ``-v NAME`` or ``-vNAME``, again and again; ``--`` ends them; any other option stops it
    with an error, so the words from there are counted as names, the safe side)."""
    i = 1
    while i < len(argv):
        word = argv[i]
        if word is None or word == "-" or not word.startswith("-"):
            return i
        if word == "--":
            return i + 1
        if word == "-v":
            i += 2
        elif word.startswith("-v"):
            i += 1
        else:
            return len(argv)
    return len(argv)


def _names(argv: Argv, program: str) -> Reading:
    """bash builtins that take variable names: an array subscript in one is evaluated, so a word
    with ``[`` and an expansion in it runs code (``printf -v 'a[$(cmd)]'``); ``let`` evaluates
    all its words; ``mapfile -C`` runs a callback."""
    found: list[Flag] = []
    first = argv[1] if len(argv) > 1 else ""
    if program == "printf" and (first is None or first.startswith("-v")):
        # `printf -v NAME` assigns a variable, as `NAME=value` does: BASH_CMDS[ls] (which file
        # `ls` runs), HOME, PATH, PS4… change what later commands do.
        found.append(Flag(frozenset({first or ""} - {""}), first or "", Does.CONFIG))
    for glued, name in _glued_names(argv, program):
        # `read -aPS4`: only a name plainly the caller's own (lower case, no subscript) passes.
        if not _OWN_NAME.fullmatch(name):
            found.append(Flag(frozenset({glued}), glued, Does.CONFIG))
    # printf's format and arguments are data: it prints them (``%b`` and ``\\`` escapes make
    # bytes, never code); only a name its ``-v`` assigns is evaluated as an array element.
    names_end = _printf_format_index(argv) if program == "printf" else len(argv)
    for k, word in enumerate(argv[1:], start=1):
        if word is None:
            found.append(Flag(frozenset(), "", None))
        elif k >= names_end:
            continue
        elif program in _ASSIGNS and _SPECIAL_NAME.fullmatch(word):
            # `read HOME`, `mapfile BASH_CMDS`: a name not plainly the caller's own (upper case,
            # or an array element) may be one the shell or a later program reads.
            found.append(Flag(frozenset({word}), word, Does.CONFIG))
        elif any(c in word for c in "$`") and ("[" in word or program == "let"):
            found.append(Flag(frozenset({word}), word, Does.RUNS))
        elif program != "printf" and (_EVALUATED_SUBSCRIPT.search(word) or (
                program == "let" and _ARITHMETIC_NAME.search(word))):
            # No expansion in the word itself, but a variable it names may hold one, set earlier
            # in the line by a plain command (`$_`, `read x < file`).
            found.append(Flag(frozenset({word}), word, Does.RUNS))
        elif program in ("mapfile", "readarray") and word.startswith("-") and "C" in word:
            found.append(Flag(frozenset({word}), word, Does.RUNS))
    return Reading(program, flags=tuple(found), reads_only=not found and program in ("printf", "test", "["))


def _tee(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.TEE)
    return Reading(program, flags=tuple(flags_of(parsed, table.TEE)), writes=tuple(1 + i for i, _ in parsed.operands))


def _curl(argv: Argv, program: str) -> Reading:
    """curl's options (``table.CURL``), where it writes (``downloads.curl_output``) and the files
    it reads and sends (``download_reads``): each judged as the read or write it is."""
    parsed = read_options(argv[1:], table.CURL)
    found = flags_of(parsed, table.CURL)
    names = {n for s in parsed.seen if s.option is not None for n in s.option.names}
    reads: list[str | None] = [NETRC] if names & {"--netrc", "--netrc-optional"} else []
    uploads: list[str] = []
    for seen in parsed.seen:
        if seen.option is None or seen.value is None:
            continue
        value = seen.value
        reads += curl_value_reads(seen.option.names, value)
        if "--cert" in seen.option.names and ":" in value:
            reads.append(value.split(":", 1)[0])  # FILE:PASSWORD
        if "--upload-file" in seen.option.names:
            uploads.append(value)
            if upload_globbed(value):
                reads.append(None)
        if "--write-out" in seen.option.names and "%output{" in value:
            found.append(Flag(frozenset({seen.token, value}), seen.token, Does.WRITES))  # a file it names
    urls = [v for _, v in parsed.operands if v is not None]
    urls += [s.value for s in parsed.seen if s.option is not None and "--url" in s.option.names and s.value]
    written: list[str | None] = []
    upload_below: list[str | None] = []
    for url in urls:
        local, path = file_url_path(url)
        if not local:
            continue
        reads.append(path)
        if uploads:  # -T to a file: address writes it (to FOLDER/ the upload file's name)
            (upload_below if path is None or path.endswith("/") else written).append(path)
    found += [Flag(frozenset(), "", None) for path in reads if path is None]
    folders = [s.value for s in parsed.seen if s.option is not None and "--output-dir" in s.option.names]
    # -o's file is in --output-dir, its '#1' text from the address: judged where it lands.
    found = [replace(f, path=curl_output(f.path, folders)) if f.writes_path and "--output" in f.names else f
             for f in found]
    # -O names the file after the address (-J: after what the server says) in --output-dir.
    below = tuple(folders or ["."]) if names & {"--remote-name", "--remote-name-all"} else ()
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed), written=tuple(written),
                   written_below=(*below, *upload_below), values=tuple(p for p in reads if p is not None))


def _wget(argv: Argv, program: str) -> Reading:
    """wget's options (``table.WGET``), where it writes (``downloads.wget_written``), and the
    netrc file it reads (``download_reads.NETRC``)."""
    parsed = read_options(argv[1:], table.WGET)
    written, below = wget_written(parsed)
    # wget reads ~/.netrc on every run (its passwords go to a server asking for them).
    netrc = any(s.option is not None and "--no-netrc" in s.option.names for s in parsed.seen)
    return Reading(program, flags=tuple(flags_of(parsed, table.WGET)), spellings=spellings_of(argv, parsed),
                   written=written, written_below=below, values=() if netrc else (NETRC,))


def _make(argv: Argv, program: str) -> Reading:
    """make, and rake, read the same way with its own options (``table.RAKE``): a ``VAR=value``
    operand sets a variable the recipes (rake: the tasks' environment) see, and each target
    after the first is a command of its own."""
    spec = table.RAKE if program == "rake" else table.MAKE
    parsed = read_options(argv[1:], spec)
    found = flags_of(parsed, spec)
    targets: list[str | None] = []
    for i, value in parsed.operands:
        if value is not None and "=" in value:  # `make CC=./evil`: a variable the recipes run
            found.append(Flag(frozenset({value, value.split("=")[0] + "=*"}), value, Does.CONFIG))
        elif not (value is not None and value.isdigit() and argv[i] in _MAKE_NUMBER_NEXT):
            targets.append(value)
    found += _further_targets(targets)
    return Reading(program, flags=tuple(found), spellings=spellings_of(argv, parsed))


#: make's options whose optional number may be the next word (`make test -j 4`): not a target.
_MAKE_NUMBER_NEXT = frozenset({"-j", "--jobs", "-l", "--load-average", "--max-load"})


def _further_targets(targets: list[str | None]) -> list[Flag]:
    """Each target is a command of its own: ``make test deploy`` runs deploy's recipe, and for a
    file make's built-in rules compile, link or copy what is there (``make test out/k.o`` runs
    the C compiler on out/k.c). The first target is the one a rule names (``make test **``);
    the others are covered only by naming them. A target known only when the line runs is
    never covered."""
    return [Flag(frozenset({target or ""} - {""}), target or "", Does.RUNS)
            for k, target in enumerate(targets) if k > 0 or target is None]



def _set(argv: Argv, program: str) -> Reading:
    found: list[Flag] = []
    i = 1
    while i < len(argv):
        token = argv[i] or ""
        if token == "--" or not token.startswith(("-", "+")):
            break
        if token in ("-o", "+o"):
            value = argv[i + 1] if i + 1 < len(argv) else None
            if value is not None and value not in table.SET_SAFE_NAMES:
                found.append(Flag(frozenset({token}), token, Does.CONFIG))
            i += 2
            continue
        if token[0] == "-" and any(c not in table.SET_SAFE for c in token[1:]):
            found.append(Flag(frozenset({token}), token, Does.CONFIG))
        i += 1
    return Reading(program, flags=tuple(found))


def _yarn(argv: Argv, program: str) -> Reading:
    """yarn, read as npm's options are, and ``yarn workspace NAME …``/``yarn workspaces …``:
    they run the scripts of the workspace's other package.json files (``yarn workspace out run
    test`` runs out/package.json's test script: proven with yarn 1), not the project's own."""
    reading = _YARN_RUNNER(argv, program)
    parsed = read_options(argv[1:], table.NPM)
    first = parsed.operands[0][1] if parsed.operands else None
    if first in ("workspace", "workspaces"):
        reading = with_changes(reading, flags=(*reading.flags, Flag(frozenset({first}), first, Does.CONFIG)))
    return reading


def _hg(argv: Argv, program: str) -> Reading:
    """hg's options that run code under any subcommand (``table.HG_RUNS``): a rule covers them
    only by naming them. hg reads them anywhere on the line before ``--``, and takes no
    abbreviation of them; a word known only when the line runs may be one. The folders hg creates
    and fills (``hg clone``, ``init``, ``share``, ``archive``: ``hg_folder_writes``) and the files
    its words name (``hg cat -o``, ``bundle``, ``serve --pid-file``…: ``hg_file_writes``), and
    where ``hg copy`` and ``hg rename`` put what they copy or move (``hg_moves``) are judged by
    the write rules. Its commands that run what an option names (``hg bisect -c``,
    ``hg merge --tool``) or code they read (``hg debugshell``): ``hg_runners``."""
    found: list[Flag] = []
    for word in argv[1:]:
        if word is None:
            found.append(Flag(frozenset(), "", None))
        elif word == "--":
            break
        elif (name := word.partition("=")[0]) in table.HG_RUNS:
            found.append(Flag(frozenset({name, word}), word, Does.CONFIG))
        elif _hg_ssh(word):
            found.append(Flag(frozenset({*table.HG_SSH, word}), word, Does.RUNS))
    found += hg_runners.hg_runner_flags(argv)
    moved = hg_moves.moved(argv)
    # (``hg commit`` without a message runs the editor: judged as the program it is)
    return Reading(program, flags=tuple(found), inners=hg_editors(argv),
                   written=(*hg_file_writes.files_written(argv), *moved.written),
                   written_below=hg_folder_writes.folders_written(argv), removed=moved.removed, landed=moved.landed)


def _hg_ssh(word: str) -> bool:
    """hg's ``-e``/``--ssh`` (``table.HG_SSH``): a prefix of ``--ssh`` (hg takes one), or ``e``
    in a word of short options (``-e CMD``, ``-eCMD``, ``-qe CMD``; a letter of a glued value
    counts too: the engine does not know which short options take one)."""
    short, long = table.HG_SSH
    if word.startswith("--"):
        name = word.partition("=")[0]
        return len(name) > len("--") and long.startswith(name)
    return word.startswith("-") and short[1] in word[1:]


def _gdb(argv: Argv, program: str) -> Reading:
    """gdb's options that run commands (``table.GDB_RUNS``): a rule covers them only by naming
    them. A word known only when the line runs may be one."""
    found: list[Flag] = []
    for word in argv[1:]:
        if word is None:
            found.append(Flag(frozenset(), "", None))
        elif word == "--":
            break
        elif _gdb_runs(word):
            found.append(Flag(frozenset({word.partition("=")[0], word}), word, Does.RUNS))
    return Reading(program, flags=tuple(found))


def _gdb_runs(word: str) -> bool:
    """Whether gdb reads ``word`` as one of its options that run commands: a prefix of one of
    their long names (an ambiguous one makes gdb stop: counting it costs nothing), or ``-x``
    (with its value glued on too: getopt reads ``-xF`` so when no long name starts ``xF``)."""
    if not word.startswith("-") or word in ("-", "--"):
        return False
    single = not word.startswith("--")
    name = word[1 if single else 2:].partition("=")[0]
    if single and len(name) == 1:
        # (`-e`, `-c`: short options of their own, the program and the core file; `-d` the
        # folders of source files, `-D` the data folder)
        return name in ("x", "D")
    return any(n.startswith(name) for n in table.GDB_RUNS) or (single and name.startswith("x"))


_YARN_RUNNER = runner(RUNNERS["yarn"], table.NPM)
_READERS: dict[str, Callable[[Argv, str], Reading]] = {
    "sed": _sed, "awk": _awk, "find": _find, "tar": _tar, "rm": _rm, "rsync": _rsync, "tee": _tee, "uniq": _uniq,
    "curl": _curl, "wget": _wget, "make": _make, "rake": _make, "git": git_reading,
    "pytest": pytest_reading, "py.test": pytest_reading, "mypy": mypy_reading, "ruff": ruff_reading,
    "tsc": _tsc, "env": env_reading, "xargs": xargs_reading,
    "set": _set, "xxd": _xxd, "less": _less, "command": command_reading, "flock": flock_reading, "script": script_reading,
    "watch": watch_reading, "zip": _zip, "su": su_reading, "runuser": su_reading, "ssh": ssh_reading,
    "cargo": cargo_reading, "javac": javac_reading, "java": java_reading, "go": go_reading, "mvn": mvn_reading,
    "cmake": cmake_reading, "meson": meson_reading, "objcopy": objcopy_reading, "strip": strip_reading,
    "node": interpreter(table.NODE, frozenset({"-e", "-p", "--eval", "--print"})),
    "perl": interpreter(table.PERL, frozenset({"-e", "-E"}), magic_open=True),
    "ruby": interpreter(table.RUBY, frozenset({"-e"})),
    "npx": lambda argv, program: wrapper_reading(argv, program, Wrapper(RUNNER_OPTIONS)),
    "bun": bun_reading, "bunx": bunx_reading, "deno": deno_reading,
    **{name: runner(subs, table.NPM if name in PACKAGE_MANAGERS else OptionSet((), strict=False))
       for name, subs in RUNNERS.items()},
    "yarn": _yarn, "hg": _hg, "gdb": _gdb, "rustup": rustup_reading, "tox": tox_reading, "just": just_reading,
    "pre-commit": pre_commit_reading, "uv": uv_reading, "uvx": uvx_reading, "history": history_reading,
    **editors.PROGRAMS,
}
_TABLES: dict[str, OptionSet] = {
    "sort": table.SORT, "grep": table.GREP, "rg": table.RG,
    "file": table.FILE, "date": table.DATE, "tree": table.TREE, "man": table.MAN,
    "sdiff": table.SDIFF, "diff3": table.DIFF3, "scp": table.SCP, "sftp": table.SFTP,
    "ag": searchers.AG, "ack": searchers.ACK, "fd": searchers.FD,
}
#: Tables to read option values with (words that may name files), by program.
_VALUE_TABLES: dict[str, OptionSet] = {
    **_TABLES, "sed": table.SED, "awk": table.AWK, "tar": table.TAR,
    "curl": table.CURL, "wget": table.WGET, "rsync": table.RSYNC, "make": table.MAKE, "rake": table.RAKE, "uniq": table.UNIQ, "tee": table.TEE, "less": table.LESS,
    "pytest": table.PYTEST, "mypy": table.MYPY,
}
#: The programs whose reading adds checks (a reader, an option table, a wrapper, a shell, the
#: files it writes or the settings it reads): a versioned form of one is read as it
#: (``program_names``). Programs only known to read (``table.READS_ONLY``) are not guessed.
_CHECKED = frozenset({
    *SHELLS, *_READERS, *_TABLES, *_VALUE_TABLES, *WRAPPERS, *ELEVATORS, *file_programs.PROGRAMS,
    *archivers.PROGRAMS, *table.FOLDER_SETTINGS, *table.HOME_SETTINGS, *table.CONFIG_HOME_SETTINGS,
    *table.OPERAND_SETTINGS, *table.PYTHON_PROGRAMS, *table.SUBCOMMAND_CODE,
})
_ENTRIES = _CHECKED | EVALUATORS | table.NAME_BUILTINS | table.READS_ONLY


def _has_entry(word: str) -> bool:
    """Whether the engine knows ``word`` as it is."""
    return word in _ENTRIES or _named_by_pattern(word)


def _has_checks(word: str) -> bool:
    """Whether reading ``word`` as a program adds checks (``_CHECKED``)."""
    return word in _CHECKED or _named_by_pattern(word)


def _named_by_pattern(word: str) -> bool:
    """python, pip, the C compilers and cpp, whose tables are found by a pattern of their names."""
    return any(p.fullmatch(word) for p in (PYTHON, PIP, COMPILER, PREPROCESSOR))
