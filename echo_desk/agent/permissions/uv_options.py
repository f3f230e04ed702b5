"""uv's own options (uv 0.13: clap, long names exact, its global options anywhere before the
command ``uv run`` runs). The engine read uv with the options of a generic runner, which did
not know that ``--config-file`` takes a value: ``uv --config-file out/uv.toml run touch
../other/P`` was read as ``uv`` with the operands ``out/uv.toml run touch …``, which a rule for
uv covered, and the command ran unjudged. Options that run or load what a value names were
covered by the rule too: ``uv run -p out/py x`` ran out/py (uv runs the interpreter it is given
to ask it what it is), ``--with ./out/pkg``, ``--with-requirements out/r.txt`` and ``-f out/w``
built the agent's package, running its build backend, and ``--cache-dir ../other/c`` and
a ``--config-file`` naming another cache wrote outside the workspace (all proven, uv 0.13.9
under bash and dash, s239).

Now a global option before the subcommand must be known, or the command asks; ``uv run``'s and
``uv tool run``'s (``uvx``'s) must all be known; the options naming a program, a local package,
a list of packages or settings ask unless a rule names them, and so do those that write (the
cache, ``-o``, ``--target``…), whose place the write rules judge too. ``uv run -m mod`` and ``uv
run -s file`` are judged as the ``python -m mod`` and ``python file`` uv runs. Other subcommands'
own options are not all known here: the global ones, ``--python``, where packages come from and
where they write are judged there, and the folder ``uv venv`` and ``uv init`` create. ``uv tool``
subcommands other than ``run``, ``list`` and ``dir`` install programs into ~/.local/bin or
change shell startup files: a rule covers them only by naming ``tool``; so do ``uv python``'s
other than ``list``, ``find`` and ``dir`` (named by ``python``), and ``uv pip install``, ``sync``
and ``uninstall`` change the first python on PATH with ``--system``, which a rule covers only
by naming it (s255).
"""

from __future__ import annotations

import re
import shlex

from echo_desk.agent.permissions.options import (
    Does,
    Option,
    OptionSet,
    Parsed,
    Takes,
    flags,
    opt,
    read_options,
    values,
)
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading, flags_of
from echo_desk.sandbox.shell import Grammar

__all__ = ["uv_reading", "uvx_reading"]

V = Takes.VALUE

#: The global options (``uv --help``; clap marks them ``global``: they may follow the
#: subcommand too), and the hidden ones uv 0.13.9 still takes. ``--directory`` and
#: ``--project`` are judged as the folders they are (``program_options.FOLDER_OPTIONS``);
#: ``--cache-dir`` writes where it says, as pip's does; a settings file may name another cache,
#: a program for credentials (``keyring-provider``): they ask unless named.
_GLOBAL = (
    *flags("-n|--no-cache --managed-python --no-managed-python --no-python-downloads --allow-python-downloads "
           "-q|--quiet -v|--verbose --system-certs --native-tls --no-native-tls --offline --no-offline --no-progress "
           "--no-config --preview --no-preview --isolated --show-settings --no-installer-metadata --no-color "
           "-h|--help -V|--version"),
    *values("--color --allow-insecure-host --trusted-host --preview-features --python-preference --python-fetch "
            "--directory --project"),
    opt("--config-file", V, Does.CONFIG), opt("--cache-dir", V, Does.WRITES),
)
#: The options whose value may name something the agent wrote that uv then runs or builds: an
#: interpreter (``--python``), a local package or a folder or index of packages. A value that
#: is a version, a package's name or a remote address changes nothing the engine judges.
_LOCAL_CODE = frozenset({"-p", "--python", "-w", "--with", "--with-editable", "--from", "-f", "--find-links",
                         "-i", "--index-url", "--extra-index-url", "--index", "--default-index"})
#: Options whose value is always a file of packages or settings uv reads (a requirements file
#: names local packages as well as remote ones; an environment file sets PYTHONPATH).
_FILES_OF_CODE = "--with-requirements -c|--constraints --overrides -b|--build-constraints --env-file"
#: What ``uv run`` and ``uv tool run`` take besides the global options (``uv help run``).
_RESOLVING = (
    *flags("--no-index -U|--upgrade --no-sources --reinstall --compile-bytecode --no-build-isolation --no-build "
           "--no-binary --require-build-hashes --no-require-build-hashes --refresh --no-env-file --isolated "
           "--exact --no-editable --no-sync --locked --frozen --active --no-project --all-packages --all-extras "
           "--no-dev --only-dev --no-default-groups --all-groups"),
    *values("--python-platform --index-strategy -P|--upgrade-package --upgrade-group --resolution "
            "--prerelease --prerelease-package --fork-strategy --exclude-newer --exclude-newer-package "
            "--no-sources-package --reinstall-package --link-mode -C|--config-setting --config-settings-package "
            "--no-build-isolation-package --no-build-package --no-binary-package --refresh-package --extra "
            "--no-extra --group --no-group --only-group --no-editable-package --package"),
    *values("-p|--python -w|--with --with-editable -f|--find-links -i|--index-url --extra-index-url --index "
            "--default-index"),
    *(Option(tuple(names.split("|")), V, Does.READS_CODE) for names in _FILES_OF_CODE.split()),
    # (``subprocess`` runs the ``keyring`` program for credentials: not understood, asks)
    opt("--keyring-provider", V, Does.RUNS),
)
#: ``uv run``'s own: the command is a Python module or script (run with uv's Python).
_MODULE, _SCRIPT = frozenset({"-m", "--module"}), frozenset({"-s", "--script", "--gui-script"})
_RUN = OptionSet((*_GLOBAL, *_RESOLVING, *flags("-m|--module -s|--script --gui-script")), abbreviations=False,
                 permute=False)
#: ``uv tool run``'s own: the package the tool comes from (``--from``), git LFS, the torch index.
_TOOL_RUN = OptionSet((*_GLOBAL, *_RESOLVING, *flags("--lfs"), *values("--from --torch-backend")),
                      abbreviations=False, permute=False)
_BEFORE = OptionSet(_GLOBAL, abbreviations=False, permute=False)
#: Any other subcommand's words: its own options are not all known (``strict=False``); the
#: global ones, ``--python`` (``-p``, but for ``publish``'s password) and the long options naming
#: where packages come from are, and those that write where they say (``_WRITERS``).
_ELSEWHERE = (Option(("--python",), V), *values("--find-links --index-url --extra-index-url --index --default-index"))
_OTHER = OptionSet((*_GLOBAL, *_ELSEWHERE, *values("-p")), abbreviations=False, strict=False)
_PUBLISH = OptionSet((*_GLOBAL, *_ELSEWHERE, *values("-p|--password")), abbreviations=False, strict=False)
#: The options of other subcommands that write where they say (``uv venv ../other/v``, ``uv pip
#: compile -o ../other/r.txt``, ``uv init ../other/p`` wrote there: proven, s239), by subcommand
#: (and ``uv pip``'s or ``uv python``'s own).
_WRITERS: dict[tuple[str, str | None], str] = {
    ("pip", "install"): "-t --target --prefix", ("pip", "sync"): "-t --target --prefix",
    ("pip", "uninstall"): "-t --target --prefix", ("pip", "compile"): "-o --output-file",
    ("build", None): "-o --out-dir", ("export", None): "-o --output-file", ("python", "install"): "-i --install-dir",
}
#: Subcommands whose one operand is the folder they create (``uv venv`` makes .venv without
#: one), and their options taking a value, so the operand is found.
_FOLDER_MAKERS = {
    "venv": OptionSet((*_GLOBAL, *_ELSEWHERE, *values("-p --prompt --link-mode -i --index-strategy "
                                                      "--keyring-provider --exclude-newer --exclude-newer-package "
                                                      "--refresh-package")), abbreviations=False, strict=False),
    "init": OptionSet((*_GLOBAL, *values("-p --python --name --description --vcs --build-backend --author-from")),
                      abbreviations=False, strict=False),
}
#: ``uv tool`` subcommands that only print.
_TOOL_READS = frozenset({"list", "dir"})
#: ``uv python`` subcommands that only print. The others write outside the project: ``install``
#: puts interpreters in uv's data folder and their programs in ~/.local/bin (``--default``:
#: ``python`` and ``python3`` too), ``update-shell`` rewrote ~/.bashrc and ~/.profile (proven,
#: uv 0.13.9 under bash and dash, s255), ``uninstall`` deletes, ``pin`` writes .python-version.
_PYTHON_READS = frozenset({"list", "find", "dir"})
#: ``uv pip`` subcommands that change an environment: ``--system`` makes it the first python on
#: PATH (outside the project, often the person's own), as ``--python`` naming it would.
_PIP_CHANGES = frozenset({"install", "sync", "uninstall"})
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def uv_reading(argv: Argv, program: str) -> Reading:
    """``uv [global options] SUBCOMMAND …``; ``uv run`` and ``uv tool run`` run a command."""
    before = read_options(argv[1:], _BEFORE)
    found = _flags(before, _BEFORE)
    if before.rest is None or before.dynamic or any(s.option is None for s in before.seen):
        # (an option not known here may have taken the word read as the subcommand)
        return Reading(program, flags=tuple(found), unreadable=before.rest is not None or before.dynamic)
    at = 1 + before.rest
    if argv[at] == "run":
        return _runner(argv, at + 1, _RUN, program, found)
    if argv[at] != "tool":
        return _other(argv, at, program, found)
    rest = read_options(argv[at + 1:], _BEFORE)
    found += _flags(rest, _BEFORE)
    if rest.rest is None or rest.dynamic or any(s.option is None for s in rest.seen):
        return Reading(program, flags=tuple(found), unreadable=True)
    tool_at = at + 1 + rest.rest
    if argv[tool_at] == "run":
        return _runner(argv, tool_at + 1, _TOOL_RUN, program, found)
    if argv[tool_at] not in _TOOL_READS:
        found.append(Flag(frozenset({"tool"}), "tool", Does.WRITES))
    words = read_options(argv[tool_at + 1:], _OTHER)
    return Reading(program, flags=(*found, *_flags(words, _OTHER)))


def uvx_reading(argv: Argv, program: str) -> Reading:
    """``uvx`` is ``uv tool run``."""
    return _runner(argv, 1, _TOOL_RUN, program, [])


def _runner(argv: Argv, start: int, spec: OptionSet, program: str, found: list[Flag]) -> Reading:
    parsed = read_options(argv[start:], spec)
    flagged = (*found, *_flags(parsed, spec))
    if parsed.rest is None:
        return Reading(program, flags=flagged, unreadable=parsed.dynamic)
    command = start + parsed.rest
    named = {s.option.names[0] for s in parsed.seen if s.option is not None}
    if spec is not _RUN or not named & (_MODULE | _SCRIPT):
        return Reading(program, flags=flagged, inners=(Inner(start=command),))
    words = argv[command:]
    if any(w is None for w in words):
        return Reading(program, flags=flagged, unreadable=True)
    python = ["python", "-m"] if named & _MODULE else ["python"]
    line = shlex.join([*python, *(w for w in words if w is not None)])
    return Reading(program, flags=flagged, inners=(Inner(line=line, grammar=Grammar.POSIX),))


def _other(argv: Argv, at: int, program: str, found: list[Flag]) -> Reading:
    """A subcommand other than ``run`` and ``tool``: its global options, ``--python``, where its
    packages come from, where it writes (``_WRITERS``; ``_FOLDER_MAKERS``' operand, judged by
    the write rules)."""
    subcommand = argv[at] or ""
    spec = _PUBLISH if subcommand == "publish" else _FOLDER_MAKERS.get(subcommand, _OTHER)
    own: str | None = None
    if subcommand in ("pip", "python"):
        first = read_options(argv[at + 1:], spec)
        own = first.operands[0][1] if first.operands else None
        writers = _WRITERS.get((subcommand, own))
    else:
        writers = _WRITERS.get((subcommand, None))
    extra = [opt(writers, V, Does.WRITES)] if writers is not None else []
    if subcommand == "pip" and own in _PIP_CHANGES:
        extra.append(opt("--system", does=Does.WRITES))
    if extra:
        spec = OptionSet((*spec.options, *extra), abbreviations=False, strict=False)
    words = read_options(argv[at + 1:], spec)
    if subcommand == "python" and own not in _PYTHON_READS:
        # (a rule covers them only by naming ``python``, as ``uv tool``'s by naming ``tool``)
        found = [*found, Flag(frozenset({"python"}), "python", Does.WRITES)]
    made = (words.operands[0][1],) if subcommand in _FOLDER_MAKERS and words.operands else ()
    return Reading(program, flags=(*found, *_flags(words, spec)), written_below=made)


def _flags(parsed: Parsed, spec: OptionSet) -> list[Flag]:
    """The options a rule covers only by naming them: those the table says run or read code,
    unknown ones (where the table knows them all), and those naming something local to run or
    build (``_LOCAL_CODE``; a value only known when the line runs counts as one)."""
    found = flags_of(parsed, spec)
    for seen in parsed.seen:
        if seen.option is not None and set(seen.option.names) & _LOCAL_CODE and _local(seen.value):
            found.append(Flag(frozenset(seen.option.names) | {seen.token}, seen.token, Does.READS_CODE))
    return found


def _local(value: str | None) -> bool:
    """Whether an option's value may name a file or folder here: a path (``out/py``, ``.``),
    a ``file:`` address or a ``name @ path`` requirement, not a version, a name or a remote URL."""
    if value is None:
        return True
    for part in value.split(","):
        part = part.strip().rpartition("@")[2].strip() if " @ " in part else part.strip()
        if part.lower().startswith("file:"):
            return True
        if _URL.match(part):
            continue
        if "/" in part or part.startswith(".") or part.startswith("~"):
            return True
    return False
