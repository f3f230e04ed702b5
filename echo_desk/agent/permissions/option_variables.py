"""Options a program takes from its environment by a naming scheme, not from a fixed list: tox
reads every option ``--x`` from ``TOX_<DEST>`` (or ``TOX<DEST>``: ``TOXENV``), pip every long
option ``--x-y`` from ``PIP_X_Y``, just and uv most of theirs from ``JUST_<OPTION>`` and
``UV_<OPTION>``, cargo every
setting of its config files from ``CARGO_<SECTION>_<KEY>`` (``cargo_variables``). Echo Desk
started with ``TOX_CONFIG_FILE=out/t.ini`` made ``tox -e x`` run the commands of out/t.ini, with
``TOX_ROOT_DIR=../other`` run them in ../other, ``PIP_TARGET``/``PIP_LOG`` made ``pip install``
write where they say, ``JUST_WORKING_DIRECTORY=../other`` made ``just x`` run the recipe of
../other's justfile there (proven, tox 4.67, pip 23.2, just 1.59 under bash and dash, s229).

Such a variable, in the environment the command runs with (``line_environment``: the
allow-list of Echo Desk's own that ``run_command`` passes, where of these only ``CARGO_HOME``
is, with what the line gives on top), is judged as the option it stands for would be:

- tox's, just's and uv's are given to the command as its own option words (``--conf=out/t.ini``,
  ``--working-directory=../other``), so the engine judges them where it judges the line's: the
  file and folder it works from, where it writes;
- pip's are judged by what its option tables say the option does: a plain value (``PIP_INDEX_URL``,
  ``PIP_FIND_LINKS``, ``PIP_DEFAULT_TIMEOUT``) changes nothing the engine judges; a place it
  writes (``--target``, ``--log``, ``--user``; ``--cache-dir`` where the line gives it) is judged
  by the write rules, as ``TOX_WORK_DIR`` and ``CARGO_TARGET_DIR`` are; a file read as a key (``--cert``) counts as
  its settings (a file the agent may write asks);
- cargo's home counts by its config files (its settings), a compiler or wrapper Echo Desk's
  own environment names by a path as a file of code; where the line gives them, its home and
  install root are judged by the write rules and a compiler it names asks;
- one that matches the scheme but maps to no option the engine knows, or to one that runs a
  program or changes what tox runs (``TOX_OVERRIDE``, ``TOX_INSTALLPKG``, ``PIP_PYTHON``,
  ``JUST_DOTENV_COMMAND``), is not understood: the command asks.

The variables a reader already looks up (``TOX_WORK_DIR``: ``tox_writes``; ``PIP_CONFIG_FILE``,
``JUST_JUSTFILE``: ``settings_files``) and those tox sets for the commands it runs (Echo Desk started from ``tox
-e dev``) are left to them.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from echo_desk.agent.permissions import cargo_variables, line_environment
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import Does, Option, OptionSet, Takes, read_options
from echo_desk.agent.permissions.reading import Argv

__all__ = ["FromEnvironment", "from_environment"]

_PIP = re.compile(r"pip(3(\.\d+)?)?")


@dataclass(frozen=True)
class FromEnvironment:
    """What a program's option variables make of a command: ``words``, option words judged as
    the line's own (put right after the program's name); places written (``written``) and
    folders written below (``written_below``), judged by the write rules; ``files`` read as its
    settings; ``unknown``, the variables not understood (the command asks). ``read``: the
    variables looked up to find it, which count as read wherever it is used
    (``line_environment.reading``), as if looked up there."""

    words: tuple[str, ...] = ()
    written: tuple[str, ...] = ()
    written_below: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    read: frozenset[str] = frozenset()


_NOTHING = FromEnvironment()

#: tox 4.67's options by the name it reads them from the environment with (their ``dest``),
#: those the engine judges on the line as the option word they are given as: the file it
#: takes its settings from (its commands), the folder it works in, the file its results go to.
_TOX_JUDGED = {"CONFIG_FILE": "--conf", "ROOT_DIR": "--root", "RESULT_JSON": "--result-json"}
#: Its options that only choose among what the project holds or how tox reports (which
#: environments, recreate them or not, parallel runs, colour): nothing the engine judges.
_TOX_INERT = frozenset({
    "ENV", "FACTORS", "LABELS", "SKIP_ENV", "COLORED", "STDERR_COLOR", "QUIET", "VERBOSE", "PARALLEL",
    "PARALLEL_LIVE", "PARALLEL_NO_SPINNER", "RECREATE", "NO_RECREATE_PKG", "NO_RECREATE_PROVISION",
    "SKIP_MISSING_INTERPRETERS", "SKIP_ENV_INSTALL", "SKIP_PKG_INSTALL", "FAIL_FAST", "HASH_SEED", "NO_TEST",
    "PACKAGE_ONLY", "LIST_ENVS", "LIST_ENVS_ALL", "LIST_DEFAULT_ONLY", "LIST_KEYS_ONLY", "LIST_NO_DESCRIPTION",
    "LIST_DEPENDENCIES", "SHOW_CONFIG", "SHOW_CORE", "CONFIG_FORMAT", "DEVELOP", "PRE", "ALWAYS_COPY",
    "SITE_PACKAGES", "STRICT", "NO_CAPTURE", "EXIT_AND_DUMP_AFTER", "HELP", "VERSION",
})
#: What tox puts in the environment of the commands it runs, which it does not read back as
#: options, and ``WORK_DIR``, read by ``tox_writes``. (``TOX_USER_CONFIG_FILE`` names a file
#: of defaults for any option: not understood.)
_TOX_LEFT = frozenset({"ENV_NAME", "ENV_DIR", "ENV_BIN_DIR", "ENV_PYTHON", "PACKAGE", "PARALLEL_ENV", "WORK_DIR"})

#: just 1.59's variables (its clap options' ``env``): ``JUST_WORKING_DIRECTORY`` is ``-d``, the
#: folder its recipes run in and its justfile is found from (``JUST_WORKING_DIRECTORY=../other
#: just x`` ran ../other's justfile there; with ``JUST_JUSTFILE`` it ran this one's recipes
#: there: proven, bash and dash); ``JUST_JUSTFILE`` is read by ``settings_files``.
_JUST_JUDGED = {"WORKING_DIRECTORY": "--working-directory"}
#: Its options that only choose how it lists, prints or which recipes run.
_JUST_INERT = frozenset({
    "ALIAS_STYLE", "ALLOW_MISSING", "COLOR", "COMMAND_COLOR", "COMPLETE_ALIASES", "DEFAULT_LIST", "DRY_RUN",
    "DUMP_FORMAT", "EVALUATE_FORMAT", "EXPLAIN", "GROUP", "HIGHLIGHT", "INDENTATION", "JOBS", "LIST_HEADING",
    "LIST_PREFIX", "LIST_SUBMODULES", "NO_ALIASES", "NO_CACHE", "NO_DEPS", "NO_DOTENV", "NO_HIGHLIGHT", "ONE",
    "QUIET", "TIME", "TIMESTAMP", "TIMESTAMP_FORMAT", "UNSORTED", "UNSTABLE", "VERBOSE", "YES",
})
# (Not understood, so asking: JUST_DOTENV_COMMAND runs a command before any recipe, proven;
# JUST_CHOOSER and JUST_CYGPATH name programs, JUST_JUSTFILE_NAME the file it takes as its
# justfile, JUST_TEMPDIR where it writes.)

#: uv 0.13's variables (its clap options' ``env``): ``UV_PROJECT`` is ``--project``, the project
#: it works on, ``UV_WORKING_DIR`` (also read as ``UV_WORKING_DIRECTORY``) ``--directory``, the
#: folder it changes into (``UV_WORKING_DIRECTORY=../other uv run x.py`` ran ../other/x.py and
#: wrote ../other/uv.lock: proven, uv 0.13.9, bash and dash).
_UV_JUDGED = {"PROJECT": "--project", "WORKING_DIR": "--directory", "WORKING_DIRECTORY": "--directory"}
#: Its options that only choose where packages come from, how strictly the lock is kept, how it
#: links, caches or reports.
_UV_INERT = frozenset({
    "COMPILE_BYTECODE", "DEFAULT_INDEX", "INDEX", "INDEX_URL", "EXTRA_INDEX_URL", "INDEX_STRATEGY", "FORK_STRATEGY",
    "FROZEN", "LOCKED", "LINK_MODE", "MANAGED_PYTHON", "NO_MANAGED_PYTHON", "NO_BINARY", "NO_BUILD", "NO_CACHE",
    "NO_CONFIG", "ISOLATED", "NO_DEFAULT_GROUPS", "DEV", "NO_DEV", "NO_EDITABLE", "NO_ENV_FILE", "NO_INSTALL_LOCAL",
    "NO_INSTALL_PROJECT", "NO_PROGRESS", "NO_SOURCES", "NO_SYNC", "OFFLINE", "PRERELEASE", "RESOLUTION",
    "REQUIRE_HASHES", "NO_VERIFY_HASHES", "HTTP_TIMEOUT", "CONCURRENT_DOWNLOADS", "CONCURRENT_BUILDS",
    "CONCURRENT_INSTALLS", "NATIVE_TLS", "PYTHON_DOWNLOADS", "PYTHON_PREFERENCE", "VENV_SEED", "VENV_RELOCATABLE",
    "TORCH_BACKEND", "INSECURE_HOST", "NO_BUILD_ISOLATION",
})
# (Not understood, so asking: UV_ENV_FILE loads variables into what `uv run` runs (PYTHONPATH=out
# ran out/sitecustomize.py), UV_CONFIG_FILE names its settings, UV_PROJECT_ENVIRONMENT is where
# `uv sync` builds the environment (../other/venv, proven), UV_PYTHON and UV_KEYRING_PROVIDER
# name programs, UV_SYSTEM_PYTHON and UV_PYTHON_INSTALL_DIR where it installs, UV_FIND_LINKS a
# folder of packages it installs.)
#: What ``uv run`` sets for what it runs (Echo Desk started with ``uv run``), and its cache: one
#: in Echo Desk's own environment is the person's, as ~/.cache/uv is (one the line gives asks).
_UV_LEFT = frozenset({"RUN_RECURSION_DEPTH"})
_PERSONAL = {"uv": frozenset({"CACHE_DIR"})}

_PREFIX = {"tox": "TOX_", "just": "JUST_", "uv": "UV_"}
_JUDGED = {"tox": _TOX_JUDGED, "just": _JUST_JUDGED, "uv": _UV_JUDGED}
_INERT = {"tox": _TOX_INERT, "just": _JUST_INERT, "uv": _UV_INERT}
_LEFT = {"tox": _TOX_LEFT, "just": frozenset({"JUSTFILE"}), "uv": _UV_LEFT}

#: What pip does not take as an option (``configuration.ENV_NAMES_IGNORED``) or reads itself.
_PIP_LEFT = frozenset({"VERSION", "HELP", "CONFIG_FILE"})
_PIP_FALSE = frozenset({"0", "false", "no", "off"})
_PIP_TABLES = (table.PIP_GENERAL, *table.PIP_READERS.values(), *table.PIP_WRITERS.values())


def from_environment(argv: Argv) -> FromEnvironment:
    """What the option variables of the program ``argv`` runs, in the environment it runs with,
    make of it."""
    program = (argv[0] or "").rsplit("/", 1)[-1] if argv else ""
    program = "uv" if program == "uvx" else program  # (uv tool run: the same variables)
    judged: Callable[[], FromEnvironment]
    if program in _PREFIX:
        judged = functools.partial(_as_words, program)
    elif _PIP.fullmatch(program):
        judged = functools.partial(_pip, argv)
    elif program == "cargo":
        judged = _cargo
    else:
        return _NOTHING
    with line_environment.reading() as read:
        found = judged()
    return replace(found, read=frozenset(read))


def _cargo() -> FromEnvironment:
    """cargo's variables (``cargo_variables``): its home's config files count as its settings
    and, where the line names the home, a folder it writes below; a program Echo Desk's own
    environment names by a path counts as a file of code (a bare name is found on the PATH, as
    cargo itself is); one the line names, and any variable not understood, asks."""
    below: list[str] = []
    files: list[str] = []
    unknown: list[str] = []
    for name in line_environment.names():
        kind = cargo_variables.kind(name)
        if kind in (cargo_variables.Kind.NOT_CARGO, cargo_variables.Kind.INERT):
            continue
        value = line_environment.get(name)
        by_line = _given_by_line(name)
        if kind is cargo_variables.Kind.HOME:
            if name == "CARGO_HOME":
                files += [f"{value}/config.toml", f"{value}/config"]
            if by_line:
                below.append(value)
        elif kind is cargo_variables.Kind.PROGRAM and not by_line:
            files += [value] if "/" in value else []
        else:
            unknown.append(name)
    return FromEnvironment(written_below=tuple(below), files=tuple(files), unknown=tuple(unknown))


def _as_words(program: str) -> FromEnvironment:
    """tox's, just's and uv's variables: those of ``_JUDGED`` as option words, the inert and the ones
    left to other readers skipped, the rest not understood."""
    judged, inert, left = _JUDGED[program], _INERT[program], _LEFT[program]
    words: dict[str, str] = {}
    unknown: list[str] = []
    for name in line_environment.names():
        key = _key(program, name)
        if key is None or key in inert or key in left:
            continue
        if key in _PERSONAL.get(program, ()) and not _given_by_line(name):
            continue
        if key not in judged:
            unknown.append(name)
        elif name.startswith(_PREFIX[program]) or key not in words:
            # (tox reads TOX_<DEST> before TOX<DEST>)
            words[key] = f"{judged[key]}={line_environment.get(name)}"
    return FromEnvironment(words=tuple(words.values()), unknown=tuple(unknown))


def _key(program: str, name: str) -> str | None:
    """The option ``name`` sets for ``program`` (after its prefix), or ``None``: not its."""
    prefix = _PREFIX[program]
    if name.startswith(prefix):
        return name[len(prefix):]
    # (tox also reads TOX<DEST>: TOXENV)
    if program == "tox" and name.startswith("TOX") and len(name) > len("TOX"):
        return name[len("TOX"):]
    return None


def _pip(argv: Argv) -> FromEnvironment:
    before = read_options(argv[1:], table.PIP_BEFORE)
    subcommand = argv[1 + before.rest] if before.rest is not None else None
    own = table.PIP_READERS.get(subcommand or "") or table.PIP_WRITERS.get(subcommand or "")
    written: list[str] = []
    below: list[str] = []
    files: list[str] = []
    unknown: list[str] = []
    for name in line_environment.names():
        if not name.startswith("PIP_") or name[len("PIP_"):] in _PIP_LEFT:
            continue
        long = "--" + name[len("PIP_"):].lower().replace("_", "-")
        option = _pip_option(long, own)
        if option is None:
            continue  # (an option of other subcommands only: pip does not take it here)
        value = line_environment.get(name)
        if option.does is Does.NOTHING:
            continue
        if option.takes is Takes.NOTHING:
            # (a flag: pip reads the value as yes or no)
            if value.strip().lower() in _PIP_FALSE:
                continue
            if long == "--user":
                below.append(table.PIP_USER_BASE)
                continue
            unknown.append(name)
            continue
        entries = value.split()
        if long == "--cache-dir" and not _given_by_line(name):
            continue  # (the person's own cache, as the one pip uses by default: see _given_by_line)
        if option.does is Does.WRITES:
            (below if set(option.names) & table.PIP_FOLDERS or long == "--cache-dir" else written).extend(entries)
        elif option.does is Does.CONFIG:
            files.extend(entries)
        else:
            unknown.append(name)
    return FromEnvironment(written=tuple(written), written_below=tuple(below), files=tuple(files),
                           unknown=tuple(unknown))


def _given_by_line(name: str) -> bool:
    """Whether the line gives ``name`` (``env NAME=value pip``), rather than Echo Desk's own
    environment, where a person who moved pip's cache (``PIP_CACHE_DIR=/data/pip``) or cargo's
    home (``CARGO_HOME=/data/cargo``) chose it as they would the default ~/.cache/pip or
    ~/.cargo, which is not judged either: that must not make every ``pip install`` or ``cargo
    build`` ask. A folder the line names for it is judged by the write rules."""
    given = line_environment.given()
    return given is not None and name in given.values


def _pip_option(long: str, own: OptionSet | None) -> Option | None:
    """The option ``PIP_…`` stands for with this subcommand (pip takes only the exact name):
    one of another subcommand's only, for a subcommand whose options are all known (``own``),
    is not taken; one pip's tables do not know is not understood (an option that asks)."""
    if own is not None and (own.strict or own.exact(long) is not None):
        return own.exact(long)
    found = next((option for t in _PIP_TABLES if (option := t.exact(long)) is not None), None)
    return found if found is not None else Option((long,), Takes.VALUE, Does.RUNS)
