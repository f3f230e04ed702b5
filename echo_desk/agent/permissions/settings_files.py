"""Where a program reads settings or code from files it finds itself, in the folder it runs in,
the folders above it and (for some) every folder it checks. A file there that the write rules
let the agent write is the agent's, not the person's: it may name files to write (mypy's
``junit_xml`` and ``cache_dir``, ruff's ``cache-dir``), a file to read (ruff's ``extend``
prints the first line of what it cannot parse) or code to run (mypy's ``plugins``, git's
``core.fsmonitor``, a module ``python -m`` finds in the current folder before its own, the
bin ``npx`` runs from the nearest package.json).

``places`` says where one command looks; ``writable_places`` which of them the agent may write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from echo_desk.agent.permissions import (
    build_includes,
    build_tools,
    build_variables,
    curl_config,
    docker_settings,
    folder_moves,
    gdb_init,
    gem_config,
    git_config,
    git_configured_places,
    git_folder_writes,
    git_hooks,
    git_index,
    git_reading,
    git_repositories,
    hg_commands,
    hg_config,
    hg_hooks,
    hg_paths,
    install_records,
    javascript_lookups,
    line_environment,
    long_prefixes,
    name_globs,
    npm_environment,
    option_variables,
    package_specs,
    pip_projects,
    programs,
    pytest_doctests,
    pytest_testpaths,
    script_words,
    ssh_config,
    ssh_reach,
)
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.interpreters import PIP, PYTHON
from echo_desk.agent.permissions.matchers import PathPattern
from echo_desk.agent.permissions.options import OptionSet, read_options
from echo_desk.agent.permissions.runner_options import just_search_folders

#: A stand-in for any module name: ``python -m`` finds every module the program imports in
#: the current folder first, so any ``.py`` file there may be run.
_ANY_MODULE = "module.py"
_GLOB = re.compile(r"\[[^\]]*\]|[*?]")


@dataclass(frozen=True)
class Place:
    """Files named ``names`` in ``folder`` (and, when ``below``, in every folder under it)."""

    folder: Path
    names: tuple[str, ...]
    below: bool = False
    #: Also any file whose name ends so, in the folder (below it too, when ``below``): what
    #: pytest collects as code, the files of a package go builds.
    suffixes: tuple[str, ...] = ()
    #: Also any file whose name matches one of these (fnmatch) globs, as ``suffixes`` (pytest's
    #: doctest files, ``test*.txt``).
    globs: tuple[str, ...] = ()
    #: Also any file whose path below the folder has one of these shapes, parts separated by
    #: ``/``, ``*`` any name (cmake's package folders: ``lib/cmake/*/*``).
    shapes: tuple[str, ...] = ()


#: Every file anywhere: where a command reads settings or code from a place Echo Desk cannot tell
#: (a word known only when the line runs, an include it cannot follow, a variable it does not
#: know): the line asks while the agent may write anywhere.
ANY_FILE = Place(Path("/"), ("file",), below=True, suffixes=("",))


def places(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None = None, *,
           index_changes: bool = False, variables: option_variables.FromEnvironment | None = None) -> list[Place]:
    """Where the command ``argv``, run from any of ``cwds``, reads settings or code from files
    (with ``home``: the user's own settings there too). ``index_changes``: another command of
    the line may change git's index before this one runs (``git_reading.changes_index``).
    ``variables``: what its option variables make of it, when the caller worked it out already
    (``option_variables.from_environment``)."""
    program = (programs.name_of(argv[0]) or "") if argv else ""
    rest = list(argv[1:])
    found: list[Place] = _program_file(argv[0] if argv else None, cwds, home)
    if PYTHON.fullmatch(program):
        module, rest = _python_module(rest)
        if module is None:
            return []
        top = module.split(".")[0]
        found += [Place(c, (f"{top}.py", f"{top}/__init__.py", _ANY_MODULE)) for c in cwds]
        found += _python_path(cwds, top)
        program = module
        if home is not None:
            found.append(_user_site(home))
    elif program in table.PYTHON_PROGRAMS or PIP.fullmatch(program):
        found += _python_path(cwds, "pip" if PIP.fullmatch(program) else program)
        found += [_user_site(home)] if home is not None else []
    if home is not None:
        found += _user_places(program, home) + _named_places(program, argv, cwds, home)
    found += _projects(argv, program, rest, cwds, home) + _pip_places(argv[0], program, cwds, home)
    found += _subcommand_code(program, rest, cwds, home) + _gem_places(program, rest, cwds, home)
    if program == "go":
        # Every go command reads the go env file $GOENV names (in the environment the commands
        # inherit from Echo Desk) instead of ~/.config/go/env: GOFLAGS=-toolexec=… there runs a
        # program under a plain `go build` (proven with go 1.19).
        return found + _go_env_file() + _go_places(argv, cwds, home)
    if variables is None:
        variables = option_variables.from_environment(tuple(argv))
    found += _npm_environment(program, cwds, home) + _variable_files(variables, cwds, home) + _man_pages(program, cwds)
    found += _script_words(program, argv, cwds, home) + _package_folders(program, argv, cwds, home)
    found += _javascript_places(program, argv, cwds, home)
    names = table.FOLDER_SETTINGS.get(program)
    if names is None:
        # (settings only where an option names them: kubectl --kubeconfig)
        return found + (_code_files(program, rest, cwds, home) if program in table.CODE_FILE_OPTIONS else [])
    if rest[:1] == [table.NO_BUILD_FILE_MODES.get(program)]:
        return found
    if program == "git":
        return found + _git_places(argv, cwds, home, names, index_changes)
    found += _folder_places(program, rest, cwds, names, home, runner=argv[0])
    return found + _operand_places(program, rest, cwds, names, home)


def _collected_code(program: str, suffixes: tuple[str, ...],
                    folders: tuple[Path, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The suffixes and name globs of the files ``program`` collects as code in a folder it
    collects: for pytest, its doctest files too (``pytest_doctests``; not known: any file)."""
    if program not in ("pytest", "py.test"):
        return suffixes, ()
    globs = pytest_doctests.doctest_globs(folders)
    return (suffixes, globs) if globs is not None else (("",), ())


def written_folders(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[str | None]:
    """Folders the command ``argv``, run from any of ``cwds``, creates where its settings say:
    hg's ``[paths]`` (``hg_paths``: ``hg init NAME`` creates the folder the name stands for in
    the settings hg reads outside a repository), for the write rules to judge as those of
    ``Reading.written_below``; git's (``git_configured_places``: a push to a remote whose URL is
    a path, ``format.outputDirectory``); wherever the words npm, pnpm or yarn passes to its script may
    name, from each folder the script may run in (``script_words.written``); what a command
    making a project writes in the folder it runs in (``script_words.written_here``); and the
    install folders the build folder of an install step records (``install_records``)."""
    if not argv:
        return []
    program = programs.name_of(argv[0]) or ""
    if program != "hg":
        configured = git_configured_places.written(argv, cwds, home) if program == "git" else []
        return configured + _script_writes(program, argv, cwds, home) + install_records.written(argv, cwds)
    files = hg_config.settings_files(home, (), (), hg_config.system_folders(argv[0], cwds))
    return hg_paths.folders_named(argv, files, home)


def _script_writes(program: str, argv: Sequence[str | None], cwds: Sequence[Path],
                   home: Path | None) -> list[str | None]:
    """The folders the words a package manager passes to its script may name, below each folder
    the script may run in (``None``: one only known when the line runs)."""
    named = [w for value in script_words.written(program, argv) for w in _tilde_words(value, home)]
    if any(value is None for value in named):
        return [None]
    # (a scaffolder runs in the folder the line runs in, not the project's)
    here = [os.path.normpath(os.path.join(c, value)) for c in cwds for value in script_words.written_here(program, argv)]
    return list(dict.fromkeys([*(os.path.join(folder, value) for folder in script_words.script_folders(cwds)
                                 for value in named if value), *here]))


#: npm's settings file: a program that reads it reads npm's settings from its environment too.
_NPMRC = ".npmrc"


def _npm_environment(program: str, cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """For a program reading .npmrc, what npm's settings in the environment name
    (``npm_environment``): each path, the file and any file below it (relative: in each folder
    the command runs in; ``~/``: in the home folder); a value not read: any file."""
    if _NPMRC not in table.FOLDER_SETTINGS.get(program, ()):
        return []
    named = npm_environment.paths(program)
    if named is None:
        return [ANY_FILE]
    paths: list[Path] = []
    for value in named:
        if value.startswith("~/") and home is not None:
            paths.append(home / value[2:])
        paths += [p for c in cwds for p in _both(c / value)]
    return [place for p in dict.fromkeys(paths)
            for place in (Place(p.parent, (p.name,)), Place(p, ("file",), below=True, suffixes=("",)))]


def _script_words(program: str, argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """What the words npm, pnpm or yarn passes to the script it runs may name (``script_words``:
    ``npm test -- --require ./out/x.js``): each file, and any file below it, from every folder
    the script may run in (below a folder that is there); a word not known here: any file."""
    named = [w for word in script_words.passed(program, argv) for value in script_words.paths(word)
             for w in _tilde_words(value, home)]
    if any(value is None for value in named):
        return [ANY_FILE]
    paths = list(dict.fromkeys(p for c in script_words.script_folders(cwds) for value in named if value
                               for p in _both(c / value)))
    return [place for p in paths
            for place in (Place(p.parent, (p.name,)), *([Place(p, ("file",), below=True, suffixes=("",))]
                                                        if p.is_dir() else []))]


def _package_folders(program: str, argv: Sequence[str | None], cwds: Sequence[Path],
                     home: Path | None) -> list[Place]:
    """The folders and files the package specs of an installing command name (``package_specs``:
    ``npm install ./out/pkg`` runs its install scripts): each, and every file below it, from each
    folder the line runs in and those up to its package.json; a spec not known here: any file."""
    named = [w for value in package_specs.local(program, argv) for w in _tilde_words(value, home)]
    if any(value is None for value in named):
        return [ANY_FILE]
    paths = list(dict.fromkeys(p for c in script_words.script_folders(cwds) for value in named if value
                               for p in _both(c / value)))
    return [place for p in paths
            for place in (Place(p.parent, (p.name,)), Place(p, ("file",), below=True, suffixes=("",)))]


def _javascript_places(program: str, argv: Sequence[str | None], cwds: Sequence[Path],
                       home: Path | None) -> list[Place]:
    """The modules node may load by a bare name, the Prettier settings bun fmt runs and the
    templates bun create copies (``javascript_lookups``); one only known when it runs: any file."""
    modules = ("x", *(f"x{s}" for s in table.NODE_CODE))
    if program == "node":
        found = javascript_lookups.node_module_folders(argv, cwds, home)
        tests = javascript_lookups.node_test_files(argv, cwds)
        if found.unknown or tests.unknown:
            return [ANY_FILE]
        return [*(Place(f, modules, below=True, suffixes=table.NODE_CODE) for f in found.below),
                *(Place(f, ("x.js",), below=True, suffixes=javascript_lookups.TEST_CODE) for f in tests.below),
                *(Place(f.parent, (f.name,)) for f in tests.here)]
    if program == "deno":
        deno = javascript_lookups.deno_places(argv, cwds, home)
        return [ANY_FILE] if deno.unknown else [
            *(Place(f, javascript_lookups.DENO_SETTINGS) for f in deno.here),
            *(Place(f, modules, below=True, suffixes=table.NODE_CODE) for f in deno.below),
            *(Place(f.parent, (f.name,)) for f in deno.files)]
    if program != "bun":
        return []
    settings = javascript_lookups.prettier_folders(argv, cwds)
    templates = javascript_lookups.bun_create_templates(argv, cwds, home)
    run = javascript_lookups.bun_module_folders(argv, cwds)
    if settings.unknown or run.unknown:
        return [ANY_FILE]
    return [*(Place(f, modules, below=True, suffixes=table.NODE_CODE) for f in run.below),
            *(Place(f, javascript_lookups.PRETTIER_CODE) for f in settings.here),
            *(Place(f, javascript_lookups.PRETTIER_CODE, below=True) for f in settings.below),
            *(Place(f, ("file",), below=True, suffixes=("",)) for f in templates.below)]


def _variable_files(variables: option_variables.FromEnvironment, cwds: Sequence[Path],
                    home: Path | None) -> list[Place]:
    """The files the program's option variables name for it to read as settings (``PIP_CERT``:
    ``option_variables``), found as the option's value would be."""
    named = [w for value in variables.files for w in _tilde_words(value, home)]
    return [place for c in cwds for value in named if value for p in _both(c / value)
            for place in (Place(p.parent, (p.name,)),)]


def _program_file(word: str | None, cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """A program named by a path (``./gradlew``, ``scripts/test.sh``, ``out/tool``) is the file
    at that path: a rule naming the path trusts what the file holds, which is the agent's when
    the write rules let it write there (s152: a rule ``./gradlew **`` ran whatever the agent had
    written into ./gradlew). A name without a ``/`` is found on the PATH, not here."""
    if not word or "/" not in word:
        return []
    if word.startswith("~/") and home is not None:
        word = str(home / word[2:])
    return [Place(p.parent, (p.name,)) for c in cwds for p in _both(c / word)]


def _projects(argv: Sequence[str | None], program: str, rest: Sequence[str | None],
              cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """The local projects pip or ``python -m build`` (``program``, with its arguments ``rest``)
    builds, and the requirements files pip reads (``pip_projects``): every file of a project
    folder counts as code its build runs, and a path that is a file (an archive, a
    requirements file) counts itself."""
    if PIP.fullmatch(program):
        sources = [pip_projects.pip_sources(words, c) for c in cwds for words in _home_readings(rest, home)]
    elif program == "build" and PYTHON.fullmatch(programs.name_of(argv[0]) or ""):
        sources = [pip_projects.build_sources(words, c) for c in cwds for words in _home_readings(rest, home)]
    else:
        return []
    found: list[Place] = []
    for paths in sources:
        for path in paths or ():
            for each in dict.fromkeys((path, Path(os.path.realpath(path)))):
                found += [Place(each, pip_projects.PROJECT_FILES, below=True, suffixes=("",))]
                found += [Place(each.parent, (each.name,))] if each.name else []
    return found



def _operand_places(program: str, rest: Sequence[str | None], cwds: Sequence[Path], names: tuple[str, ...],
                    home: Path | None) -> list[Place]:
    """For a program of ``OPERAND_SETTINGS`` (pytest, ruff): the settings and code of each
    folder or file its operands and option values name, and of the folders above them; a path
    starting ``~`` both ways (``_tilde_words``: ``pytest ~/t`` collects the home folder's)."""
    if program not in table.OPERAND_SETTINGS:
        return []
    found: list[Place] = []
    skip, spec = table.OPERAND_SETTINGS[program]
    operands, values = _operands(rest[skip:], spec)
    if program in _NODE_IDS:
        operands, values = _node_paths(operands), _node_paths(values)
    suffixes = table.COLLECTED_CODE.get(program, ())
    for c in cwds:
        for word, text in ((w, t) for w in (operands or _default_operands(program, c)) + values
                           for t in _tilde_words(w, home)):
            if text is None:
                return [ANY_FILE]
            for folder in dict.fromkeys((Path(os.path.normpath(c / text)), Path(os.path.realpath(c / text)))):
                # (a file holds no files: `pytest tests/test_x.py` collects that file alone)
                code, globs = ((), ()) if folder.is_file() else _collected_code(program, suffixes, (folder, c))
                found += [Place(folder, (*names, *(f"x{s}" for s in code)), below=True, suffixes=code,
                                globs=globs),
                          *(Place(f, names) for f in folder.parents)]
                if suffixes and word in operands:
                    # A file named as an operand is collected whatever its name (`tests/notes.txt`).
                    found.append(Place(folder.parent, (folder.name,)))
    return found


def _subcommand_code(program: str, rest: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """For a subcommand of ``program_options.SUBCOMMAND_CODE`` (``gem build``): the code files
    by suffix in the folder it runs in, and every word after the subcommand as a file (an
    option's value among them: more files, never fewer; ``~/x.gemspec`` both ways:
    ``_tilde_words``)."""
    if program not in table.SUBCOMMAND_CODE:
        return []
    sub, code = table.SUBCOMMAND_CODE[program]
    at = next((k for k, w in enumerate(rest) if w is None or not w.startswith("-")), None)
    if at is None or rest[at] not in (sub, None):
        return []
    words = rest[at + 1:]
    if any(w is None for w in words):
        return [ANY_FILE]
    found = [Place(c, tuple(f"x{s}" for s in code), suffixes=code) for c in cwds]
    texts = [t for w in words if w and not w.startswith("-") for t in _tilde_words(w, home)]
    if None in texts:
        return [ANY_FILE]
    return found + [Place(p.parent, (p.name,)) for c in cwds for t in texts if t for p in _both(c / t)]


def _gem_places(program: str, rest: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """When ``program`` is gem, the gemrc files it reads besides the user's (``gem_config``)."""
    if program != "gem":
        return []
    files, unknown = gem_config.settings_files(rest, cwds, home)
    return [Place(f.parent, (f.name,)) for f in files] + ([ANY_FILE] if unknown else [])


def _pip_places(runner: str | None, program: str, cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """When ``program`` is pip, its settings files besides ``~/.pip/pip.conf``
    (``program_options.PIP_SITE_SETTINGS``): the user's file under the folder for settings
    (``pip3.11`` too), the file ``$PIP_CONFIG_FILE`` names, the global files and the site file
    of the environment of the python that runs pip (``runner``: the pip script, or the python
    of ``python -m pip``)."""
    if not PIP.fullmatch(program):
        return []
    name = table.PIP_SITE_SETTINGS
    found = [Place(folder / "pip", (name,)) for folder in _config_homes(home)] if home is not None else []
    xdg = [d for d in line_environment.get("XDG_CONFIG_DIRS", "").split(os.pathsep) if os.path.isabs(d)]
    found += [Place(Path(d) / "pip", (name,)) for d in (xdg or [table.PIP_XDG_DEFAULT])]
    found += [Place(Path(d), (name,)) for d in table.PIP_GLOBAL_FOLDERS]
    config_file = line_environment.get("PIP_CONFIG_FILE", "")
    if config_file and config_file != os.devnull:
        found += [Place(p.parent, (p.name,)) for c in cwds for p in _both(c / config_file)]
    found += [Place(prefix, (name,)) for prefix in _python_prefixes(runner, cwds)]
    return found


def _python_prefixes(runner: str | None, cwds: Sequence[Path]) -> list[Path]:
    """The folders that may be ``sys.prefix`` of the python ``runner`` starts: the folder above
    the folder of the program (``.venv`` for ``.venv/bin/pip`` and ``.venv/bin/python``; a
    virtual environment's python finds its ``pyvenv.cfg`` there), and of the python a pip
    script's ``#!`` line names. Which program a bare name (``pip``, ``python``) is, and which
    python a ``#!/usr/bin/env python3`` line runs, is only known when the line runs (an active
    virtual environment puts its bin/ first on ``PATH``): every folder of ``PATH`` counts.
    ``$PYTHONHOME`` sets the prefix itself."""
    path_wide = runner is None or "/" not in runner
    prefixes: list[Path] = []
    if runner is not None and not path_wide:
        for c in cwds:
            for program in _both(c / runner):
                prefixes.append(program.parent.parent)
                interpreter = _shebang(program)
                if interpreter is not None and os.path.basename(interpreter) == "env":
                    path_wide = True
                elif interpreter is not None and PYTHON.fullmatch(programs.name_of(interpreter) or ""):
                    prefixes += [p.parent.parent for p in _both(program.parent / interpreter)]
    if path_wide:
        for entry in line_environment.get("PATH", "").split(os.pathsep):
            prefixes += [p.parent for c in cwds for p in _both(c / entry)]  # ("": the folder it runs in)
    home = line_environment.get("PYTHONHOME", "").split(os.pathsep)[0]
    if home:
        prefixes += [p for c in cwds for p in _both(c / home)]
    return list(dict.fromkeys(prefixes))


def _man_pages(program: str, cwds: Sequence[Path]) -> list[Place]:
    """The folders man-db looks for manual pages in besides the system's: in and beside each
    folder of ``PATH`` (``man`` and ``share/man``: ``~/.local/bin`` gives ``~/.local/share/man``,
    searched before ``/usr/share/man``) and each folder of ``$MANPATH``, in the environment the
    commands inherit from Echo Desk. A page takes in any file by name (``.so``) and picks the
    programs that format it: one the agent may write is its page (``man zzz`` printed the
    ``~/.ssh/id_rsa`` a page in ``~/.local/share/man`` named, man-db 2.11)."""
    if program != "man":
        return []
    folders: list[Path] = []
    for entry in line_environment.get("PATH", "").split(os.pathsep):
        for base in (b for c in cwds for b in _both(c / entry)):  # ("": the folder it runs in)
            folders += [base / "man", base / "share" / "man", base.parent / "man", base.parent / "share" / "man"]
    for entry in line_environment.get("MANPATH", "").split(os.pathsep):
        folders += [p for c in cwds for p in _both(c / entry)] if entry else []
    return [Place(f, ("page",), below=True, suffixes=("",)) for f in dict.fromkeys(folders)]


def _both(path: Path) -> list[Path]:
    """``path`` as written and with its links followed."""
    return list(dict.fromkeys((Path(os.path.normpath(path)), Path(os.path.realpath(path)))))


def _shebang(program: Path) -> str | None:
    """The interpreter a script's ``#!`` line names (``None``: not a script, or not read)."""
    try:
        with program.open("rb") as file:
            head = file.read(512)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n")[0].decode("utf-8", "replace").split()
    return words[0] if words else None


def _go_env_file() -> list[Place]:
    """The go env file ``$GOENV`` names, when set (instead of ~/.config/go/env)."""
    env_file = line_environment.get("GOENV", "")
    return [Place(Path(env_file).parent, (Path(env_file).name,))] if os.path.isabs(env_file) else []


def _go_places(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """Where go reads code and settings (see ``program_options.GO_SETTINGS``): the packages it
    compiles or runs, with the folder it runs in, its vendor folder, go.mod and go.work, every
    package of its module and the folders its go.mod and go.work name (``_go_module_folders``)."""
    if build_tools.go_packages(argv) is None:
        return []
    # (`go test ~/p`: the shell gives the folder below the home folder, which go would otherwise
    # take for an import path; another user's: any)
    packages = [p for words in _home_readings(argv, home) for p in (build_tools.go_packages(words) or [(".", True)])]
    names, code = table.GO_SETTINGS, table.GO_CODE
    stand_ins = tuple(f"x{s}" for s in code)
    found = [Place(f, names) for c in cwds for f in (c, *c.parents)]
    if any(w and w.startswith("~") and _home_word(w, home) is None for w in argv):
        found.append(Place(Path("/"), (*names, *stand_ins), below=True, suffixes=code))
    found += [Place(f / "vendor", stand_ins, below=True, suffixes=code) for c in cwds for f in (c, *c.parents)]
    if home is not None:
        found.append(Place(home / "go", stand_ins, below=True, suffixes=code))
    texts = [(t, below) for word, below in packages for t in _tilde_words(word, home)]  # (`go run ~/m.go`)
    if any(t is None for t, _ in texts):
        return [*found, ANY_FILE]
    for c in cwds:
        for text, below in ((t, b) for t, b in texts if t is not None):
            for folder in dict.fromkeys((Path(os.path.normpath(c / text)), Path(os.path.realpath(c / text)))):
                found += [Place(folder, (*names, *stand_ins), below=below, suffixes=code),
                          *(Place(f, names) for f in folder.parents)]
        # Every package of the module may be imported by the ones named (its init() runs), and
        # the folders go.mod's `replace` and go.work's `use`/`replace` name hold code it builds
        # too: all of them, below too, count. A file go cannot be read here for: every folder.
        for folder in _go_module_folders(c):
            found += [Place(folder, (*names, *stand_ins), below=True, suffixes=code)]
    # What the environment the commands inherit from Echo Desk names instead: the go.work
    # ($GOWORK), the folders of $GOPATH and the module cache ($GOMODCACHE).
    work = line_environment.get("GOWORK", "")
    if os.path.isabs(work):
        found.append(Place(Path(work).parent, (Path(work).name,)))
    for value in (*line_environment.get("GOPATH", "").split(os.pathsep), line_environment.get("GOMODCACHE", "")):
        if os.path.isabs(value):
            found.append(Place(Path(value), stand_ins, below=True, suffixes=code))
    return found


def _go_module_folders(cwd: Path) -> list[Path]:
    """The folders whose packages go, run in ``cwd``, may build: the main module's (the folder
    of the nearest go.mod), the local ``replace`` targets of that go.mod, and the ``use`` and
    local ``replace`` targets of the go.work it finds (``$GOWORK``, else the nearest above).
    A go.mod or go.work that cannot be read or parsed gives ``/`` (every folder counts)."""
    folders: list[Path] = []
    module = next((f for f in (cwd, *cwd.parents) if (f / "go.mod").is_file()), None)
    work_env = line_environment.get("GOWORK", "")
    if work_env == "off":
        work = None
    elif work_env:
        work = Path(work_env) if os.path.isabs(work_env) else None
        if work is None:
            return [Path("/")]  # a relative GOWORK: go refuses it, but fail closed
    else:
        work = next((f / "go.work" for f in (cwd, *cwd.parents) if (f / "go.work").is_file()), None)
    files = ([(module / "go.mod", False)] if module is not None else []) + ([(work, True)] if work else [])
    if module is not None:
        folders.append(module)
    for path, is_work in files:
        if is_work and not path.exists():
            continue
        targets = _go_directives(path, is_work)
        if targets is None:
            return [Path("/")]
        for target in targets:
            joined = path.parent / target
            folders += [Path(os.path.normpath(joined)), Path(os.path.realpath(joined))]
    return list(dict.fromkeys(folders))


_GO_TOKEN = re.compile(r'//.*|"(?:[^"\\]|\\.)*"|`[^`]*`|[^\s"`]+')
_SPACE = re.compile(r"\s")


def _go_directives(path: Path, is_work: bool) -> list[str] | None:
    """The local folders a go.mod (its ``replace`` lines) or go.work (``use`` and ``replace``)
    names, as written (``None``: the file cannot be read or a line not parsed)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    wanted = {"replace", "use"} if is_work else {"replace"}
    found: list[str] = []
    block: str | None = None
    for line in text.splitlines():
        words = _GO_TOKEN.findall(line)
        if sum(len(_SPACE.sub("", w)) for w in words) != len(_SPACE.sub("", line)):
            return None  # an unbalanced quote: not read the way go reads it
        words = [w for w in words if not w.startswith("//")]
        if not words:
            continue
        if block is not None:
            if words == [")"]:
                block = None
                continue
            directive, args = block, words
        elif words[-1] == "(":
            block = words[0]
            if len(words) != 2:
                return None
            continue
        else:
            directive, args = words[0], words[1:]
        if directive in wanted:
            target = _go_directive_folder(directive, args)
            if target is None:
                return None
            found += [target] if target else []
    if block is not None:
        return None
    return found


def _go_directive_folder(directive: str, args: list[str]) -> str | None:
    """The folder one ``use`` or ``replace`` line names (``""``: none, a module path;
    ``None``: a line not read the way go reads it)."""
    if any("\\" in a for a in args):
        return None  # an escape inside a quoted path
    args = [a[1:-1] if a[:1] in ('"', "`") else a for a in args]
    if directive == "use":
        return args[0] if len(args) == 1 else None
    if "=>" not in args or args.index("=>") == len(args) - 1:
        return None
    target = args[args.index("=>") + 1:]
    if len(target) == 1 and (target[0].startswith(("./", "../", "/")) or target[0] in (".", "..")):
        return target[0]
    return ""


#: Programs whose operands may be node ids: pytest reads ``out::test_x`` (``out/x.py::t[a]``)
#: as the path before the first ``::``, and loads that folder's conftest.py and settings.
_NODE_IDS = frozenset({"pytest", "py.test"})


def _node_paths(words: list[str]) -> list[str]:
    """The paths of pytest node ids (``out::x`` is ``out``; ``::x`` the folder it runs in)."""
    return [word.partition("::")[0] or "." for word in words]


def _folder_places(program: str, rest: Sequence[str | None], cwds: Sequence[Path],
                   names: tuple[str, ...], home: Path | None, *, runner: str | None = None) -> list[Place]:
    """The settings files ``names`` (``program_options.FOLDER_SETTINGS``) in the folders
    ``program`` looks from and every folder above them, with the code beside them it loads
    (``FOLDER_CODE``: rakelib/*.rake), the build files of every folder below for the programs
    of ``FOLDER_TREES``, the code files its options name (``CODE_FILE_OPTIONS``) and, for hg,
    every folder of the repository, the system's settings of the hg ``runner`` starts and what
    its settings name; for gdb, what its init files name."""
    starts, unknown = _named_folders(program, rest, cwds, home)
    found = [Place(f, names) for c in starts for f in (c, *c.parents)]
    # (a folder an option names that is not known here: any folder may hold the settings)
    found += [Place(Path("/"), names, below=True)] if unknown else []
    if program in table.FOLDER_CODE:
        sub, code = table.FOLDER_CODE[program]
        found += [Place(f / sub, tuple(f"x{s}" for s in code), below=True, suffixes=code)
                  for c in starts for f in (c, *c.parents)]
    if program in table.NODE_MODULES_RUNNERS:
        # ("x": a bin's name, no suffix; not every file, so `**/*.log` lets the agent write none;
        # the name of the bin it runs too, so `node_modules/.bin/tsc` is seen for `npx tsc`)
        code_names = ("x", *(f"x{s}" for s in table.NODE_CODE), *_bin_names((runner, *rest)))
        found += [Place(f / table.NODE_MODULES, code_names, below=True, suffixes=table.NODE_CODE)
                  for c in starts for f in (c, *c.parents)]
    if program in table.FOLDER_TREES:
        code = table.FOLDER_TREES[program]
        found += [Place(c, (*names, *(f"x{s}" for s in code)), below=True, suffixes=code) for c in starts]
    found += _code_files(program, rest, cwds, home) + _build_includes(program, rest, starts, cwds, home)
    if program == "hg":
        roots = _hg_roots(starts)
        systems = hg_config.system_folders(runner, cwds)
        word = hg_commands.command_word(("hg", *rest))
        found += [Place(root, names, below=True) for root in roots] + _hg_named(starts, roots, home, systems, word)
    if program == "gdb":
        found += [_place(item) for item in gdb_init.named(gdb_init.init_files(home, starts), starts, home)]
        found += _gdb_loaded(rest, starts, home) + _gdb_system(runner, cwds, home)
    return found


def _bin_names(argv: Sequence[str | None]) -> tuple[str, ...]:
    """The names of the commands a runner of node_modules/.bin runs (``npx tsc``: tsc), which it
    finds there by that name (and its package's file of the same name the bin links to)."""
    found = [argv[inner.start] for inner in programs.read(tuple(argv)).inners
             if inner.line is None and inner.start < len(argv)]
    return tuple(dict.fromkeys(name for word in found if word and (name := os.path.basename(word))))


def _gdb_system(runner: str | None, cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """The system's init files gdb runs (``gdb_init.SYSTEM_FILE``, every file of
    ``SYSTEM_FOLDER``) and every file below its data directory and debug folder
    (``gdb_init.install_folders``): code it runs that the write rules may let the agent write."""
    system = gdb_init.SYSTEM_FILE
    found = [Place(system.parent, (system.name,)), Place(gdb_init.SYSTEM_FOLDER, ("file",), suffixes=("",))]
    return found + [Place(f, ("file",), below=True, suffixes=("",)) for f in gdb_init.install_folders(runner, cwds, home)]


def _gdb_loaded(words: Sequence[str | None], starts: Sequence[Path], home: Path | None) -> list[Place]:
    """The files gdb auto-loads code from for the programs it loads (``gdb_init.loaded``),
    each found from every folder it starts in (``-cd``'s too): the program, the scripts beside
    it, and any separate debug file beside it; a program not known here, or the libraries of a
    core file: any file."""
    where = gdb_init.loaded(words)
    found = [Place(Path("/"), ("program",), below=True, suffixes=("",))] if where.unknown else []
    for word in where.files:
        expanded = gdb_init.expanded(word, home)
        if expanded is None:
            return [*found, Place(Path("/"), ("program",), below=True, suffixes=("",))]
        for path in dict.fromkeys(Path(os.path.normpath(s / expanded)) for s in starts):
            if gdb_init.may_be_core(path):
                # (the libraries a core names may be any file: see ``gdb_init.may_be_core``)
                found.append(Place(Path("/"), ("program",), below=True, suffixes=("",)))
            found += [Place(p.parent, (p.name,)) for p in gdb_init.auto_loaded(path)]
            found += [Place(folder, (), suffixes=(".debug",)) for folder in gdb_init.debug_folders(path)]
    return found


def _named_folders(program: str, words: Sequence[str | None], cwds: Sequence[Path],
                   home: Path | None = None) -> tuple[list[Path], bool]:
    """The folders ``program`` looks for its settings from, run in any of ``cwds`` with its
    arguments ``words``: those folders, and the ones its options name instead
    (``program_options.FOLDER_OPTIONS``: ``hg -R out/r status`` reads out/r/.hg/hgrc, ``hg --cwd
    out -R r`` out/r/.hg/hgrc, ``ninja -C out`` out/build.ninja) or, for the programs of
    ``OPERAND_FOLDERS``, its operands (``cmake ../src``). With ``True``: an option whose folder
    is not known here (a word known only when the line runs, none after the option, or another
    user's home). A value starting ``~/`` is below ``home``, as the shell expands it (``hg -R
    ~/r``; it was read below the folder the program runs in), and in a folder named ``~`` too
    (``_tilde_words``)."""
    named = [w for v in [*_option_values(program, words, table.FOLDER_OPTIONS.get(program)),
                         *_search_folders(program, words)] for w in _tilde_words(v, home)]
    if program in table.OPERAND_FOLDERS:
        # Every word not an option (an option's value among them: more folders, never fewer).
        written = _written_only_values(program, words)
        named += [t for k, w in enumerate(words) if (w is None or not w.startswith("-")) and k not in written
                  for t in _tilde_words(w, home)]
    starts = list(cwds)
    for _ in range(2):  # (a second time: -R's folder is taken from the one --cwd names)
        starts += [p for base in list(starts) for value in named if value for p in _both(base / value)]
    if _searches_up(program, words):
        # (the nearest folder holding a top build file: its build files are read from there)
        names = table.FOLDER_SETTINGS.get(program, ())
        starts += [(c, *c.parents)[_first_holding(c, names)] for c in list(starts)]
    return list(dict.fromkeys(starts)), any(not value for value in named)


#: The options of a program's mode whose value is a folder it only writes below, which the
#: write rules judge: ``cmake --install b --prefix P`` opened nothing below P but the files it
#: installed, a CMakeLists.txt, CMakeCache.txt and cmake_install.cmake planted in P among them
#: (strace, cmake 3.25, bash and dash, s293); ``meson install --destdir D`` opened nothing below D
#: but what it installed, a meson.build, build.ninja and meson-private/install.dat planted there
#: among them (strace, meson 1.12, bash and dash, s300). With where the options start (the word
#: after ``--install`` is the build folder, read).
_WRITTEN_ONLY = {("cmake", "--install"): (frozenset({"--prefix"}), 2),
                 ("meson", "install"): (frozenset({"--destdir"}), 1)}


def _written_only_values(program: str, words: Sequence[str | None]) -> set[int]:
    """Where among ``words`` the values of ``_WRITTEN_ONLY``'s options are (a word only known
    when the line runs in front of it may be any option: none then)."""
    if not words or None in words:
        return set()
    options, start = _WRITTEN_ONLY.get((program, words[0] or ""), (frozenset(), 0))
    return {k + 1 for k, word in enumerate(words[:-1]) if k >= start and word in options}


#: Programs that read each folder option from the folder they run in, not from another's, when
#: none of their options changes folder first (``folder_moves``): ``cd src && cmake -S .. -B .``
#: configured the workspace into src/ and opened nothing above it, ``hg -R .. status`` run in
#: src read the workspace's repository (strace, cmake 3.25, hg 6.3, bash and dash, s240);
#: ``cd src && just -d .. -f ../justfile x`` opened the workspace's justfile and ran x there
#: (just 1.59 refuses a search folder beside -d or -f; s254). The others' options are read from
#: each other's folders too: more folders, never fewer.
_EACH_FROM_WHERE_IT_RUNS = frozenset({"cmake", "hg", "just"})


def option_folders(program: str, words: Sequence[str | None], cwds: Sequence[Path],
                   home: Path | None = None) -> list[Path]:
    """The folders the options of ``program_options.FOLDER_OPTIONS`` among ``words`` lead
    ``program`` to from ``cwds`` (hg's ``-R`` from where ``--cwd`` leads too), as written and
    with links followed: ``hg -R ../other update`` acts on the repository there, as ``cd ../other
    && hg update`` does. A value not known here leads nowhere known (``_named_folders`` says so).
    Where the program changes folder first (``folder_moves``: ``hg --cwd src -R ..``), the other
    options are read from there only, as it reads them."""
    moved = folder_moves.moves(program, (program, *words))
    if moved.words and moved.folders and None not in moved.folders:
        starts = list(cwds)
        for value in moved.folders:
            starts = [p for base in starts for word in _tilde_words(value, home) if word for p in _both(base / word)]
        rest = [w for k, w in enumerate(words, start=1) if k not in moved.words]
        named = [w for v in _option_values(program, rest, table.FOLDER_OPTIONS.get(program)) for w in _tilde_words(v, home)]
        return list(dict.fromkeys([*starts, *(p for base in starts for value in named if value
                                              for p in _both(base / value))]))
    named = [w for v in [*_option_values(program, words, table.FOLDER_OPTIONS.get(program)),
                         *_option_values(program, words, table.WORK_FOLDER_OPTIONS.get(program)),
                         *_search_folders(program, words)]
             for w in _tilde_words(v, home)]
    reached: list[Path] = []
    for _ in range(1 if program in _EACH_FROM_WHERE_IT_RUNS and not moved.words else 2):
        # (a second time: -R's folder is taken from the one --cwd names)
        reached += [p for base in [*cwds, *reached] for value in named if value for p in _both(base / value)]
    # (a configure's operands are read from where it runs only: `cd build && cmake ..`)
    operands = [w for v in _configured_folders(program, words) for w in _tilde_words(v, home)]
    reached += [p for base in cwds for value in operands if value for p in _both(base / value)]
    return list(dict.fromkeys(reached))


#: meson's commands (``meson BUILD`` without one is ``meson setup BUILD``, as it was once spelled).
_MESON_COMMANDS = frozenset({"configure", "dist", "install", "introspect", "init", "test", "wrap", "subprojects",
                             "rewrite", "compile", "devenv", "env2mfile", "reprotest", "format", "fmt", "help",
                             "runpython"})
#: cmake's modes whose words are not the folders it configures (commands, a script, a build).
_CMAKE_MODES = frozenset({"-E", "-P", "--build", "--install", "--open", "--workflow"})
#: meson setup's options taking a value that is neither a folder it configures nor one it
#: reads (meson 1.12's ``setup --help``): the install folders, recorded for ``meson install``
#: (``meson setup --prefix /x build`` wrote only below build/, opened nothing below /x: strace,
#: bash and dash, s254), and choices. The search paths (``--pkg-config-path``,
#: ``--cmake-prefix-path``: files it reads, cmake code among them) still count as folders.
_MESON_SETUP_VALUED = frozenset({
    "--prefix", "--bindir", "--datadir", "--includedir", "--infodir", "--libdir", "--licensedir", "--libexecdir",
    "--localedir", "--localstatedir", "--mandir", "--sbindir", "--sharedstatedir", "--sysconfdir",
    "--python.platlibdir", "--python.purelibdir", "--auto-features", "--backend", "--genvslite", "--buildtype",
    "--default-library", "--default-both-libraries", "--install-umask", "--layout", "--namingscheme",
    "--optimization", "--unity", "--unity-size", "--warnlevel", "--wrap-mode", "--force-fallback-for",
    "--python.bytecompile", "--python.install-env",
})
#: Options whose value is the next word, not an operand: settings, generators, and the files
#: ``CODE_FILE_OPTIONS`` judges (``cmake -C ~/c.cmake -S src``). Any other option's next word
#: counts as a folder (more folders, never fewer).
_VALUED = {"cmake": frozenset({"-C", "-D", "-U", "-G", "-T", "-A", "--toolchain", "--preset"}),
           "meson": frozenset({"-D", "--native-file", "--cross-file", *_MESON_SETUP_VALUED})}


def _configured_folders(program: str, words: Sequence[str | None]) -> list[str | None]:
    """The folders a configure names by its operands, the build folder it writes and the source
    folder whose build files it runs: ``meson setup b ../p`` ran ../p/meson.build and ``meson
    setup ../b`` wrote ../b (proven, meson 1.x, s235), ``cmake ../p`` runs ../p/CMakeLists.txt.
    Every word not an option counts (an option's value among them: more folders, never fewer)."""
    valued = _VALUED.get(program, frozenset())
    operands = [w for k, w in enumerate(words)
                if (w is None or not w.startswith("-")) and (k == 0 or words[k - 1] not in valued)]
    if program == "meson":
        command = next((w for w in words if w is None or not w.startswith("-")), "")
        if command == "setup":
            return operands[1:]
        return operands if command not in _MESON_COMMANDS else []
    if program == "cmake" and not any(w in _CMAKE_MODES for w in words):
        return operands
    return []


def _tilde_words(word: str | None, home: Path | None) -> list[str | None]:
    """``word`` as a path a program may open: with a leading ``~`` (alone or before ``/``),
    the home folder's, as the shell expands it (``cmake -P ~/x.cmake``: it was read below the
    folder the program runs in), and the folder named ``~`` there, where the shell left it
    (quoted, or glued to an option: ``ninja -C~/b``, see ``literal_tilde``); another user's home
    is not known here (``None``)."""
    if word is None or not word.startswith("~"):
        return [word]
    return [_home_word(word, home), word]


def _home_word(word: str | None, home: Path | None) -> str | None:
    """``word`` with a leading ``~`` (alone or before ``/``) made the home folder (``None``:
    another user's home, or no home folder known)."""
    if word is None or not word.startswith("~"):
        return word
    if home is None or not (word == "~" or word.startswith("~/")):
        return None
    return str(home / word[2:])


def _home_readings(words: Sequence[str | None], home: Path | None) -> list[list[str | None]]:
    """``words`` as written and, when one starts ``~``, with each such word below ``home`` as
    the shell expands a word of its own (``pip install ~/p``; ``None``: another user's home):
    both count, since a value glued to its option keeps its ``~``."""
    if not any(w and w.startswith("~") for w in words):
        return [list(words)]
    return [list(words), [_home_word(w, home) if w and w.startswith("~") else w for w in words]]


def _searches_up(program: str, words: Sequence[str | None]) -> bool:
    """Whether ``words`` hold an option of ``program_options.SEARCH_UP_OPTIONS`` (a word known
    only when the line runs may be one; in a group of short options, any letter counts)."""
    spec = table.SEARCH_UP_OPTIONS.get(program)
    if spec is None:
        return False
    shorts, longs = spec
    letters = {s[1:] for s in shorts}
    for word in words:
        if word is None or word in (*shorts, *longs):
            return True
        if word == "--":
            break
        if program in table.GROUPED_SHORTS and word.startswith("-") and not word.startswith("--") and letters & set(word[1:]):
            return True
    return False


def _first_holding(folder: Path, names: Sequence[str]) -> int:
    """How many folders above ``folder`` the first one holding a file of ``names`` is (0: the
    folder itself, or none holds one: the program stops; one the agent could make there is
    counted already, as the settings of every folder above)."""
    for up, each in enumerate((folder, *folder.parents)):
        if any(os.path.lexists(each / name) for name in names):
            return up
    return 0


def _code_files(program: str, words: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """The code files ``program``'s options name (``program_options.CODE_FILE_OPTIONS``:
    ``ninja -f out/x.ninja``, ``cmake -P out/x.cmake``, ``cmake -P ~/x.cmake``: ``_tilde_words``)
    and those the environment Echo Desk runs in names (``CODE_FILE_VARIABLES``); one not known
    here: any file."""
    named: list[str | None] = [w for v in _option_values(program, words, table.CODE_FILE_OPTIONS.get(program))
                               for w in _tilde_words(v, home)]
    for name in table.CODE_FILE_VARIABLES.get(program, ()):
        value = line_environment.get(name)
        entries = [e for e in value.split(os.pathsep) if e] if name in table.CODE_FILE_LISTS else [value]
        # (a ~ the shell may have expanded in an assignment, or left: both)
        named += [w for entry in entries if entry for w in _tilde_words(entry, home)]
    if any(not value for value in named):
        return [ANY_FILE]
    # A folder named instead of a file holds the build file (``tox -c out`` reads out/tox.ini).
    names = table.FOLDER_SETTINGS.get(program, ())
    return [place for c in cwds for value in named if value for p in _both(c / value)
            for place in (Place(p.parent, (p.name,)), Place(p, names))]


def _build_includes(program: str, words: Sequence[str | None], starts: Sequence[Path],
                    cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """The files the build files of ``program`` include by other names (``build_includes``:
    a Makefile's ``-include out/deps.d``), read from the folders it starts from and the code
    files its options name, with the folders its options add to where it looks for them (make's
    -I), and what its variables name (``build_variables``: make's ``MAKEFILES``, cmake's ``-D``
    values); an inclusion or variable not read: any file."""
    named = [w for v in _option_values(program, words, table.CODE_FILE_OPTIONS.get(program)) for w in _tilde_words(v, home)]
    code = [p for c in cwds for value in named if value for p in _both(c / value)]
    variables = build_variables.named(program, words, home=home)
    # A path a variable names: the file, and any file below it (a folder cmake searches for a
    # package's Config.cmake), relative to each folder the tool starts from.
    paths = list(dict.fromkeys(p for s in starts for value in variables.paths for p in _both(s / value)))
    run = list(dict.fromkeys(p for s in starts for value in variables.programs for p in _both(s / value)))
    found = [place for p in [*paths, *run]
             for place in (Place(p.parent, (p.name,)), Place(p, ("file",), below=True, suffixes=("",)))]
    found += [Place(p, (), shapes=build_variables.PACKAGE_FOLDERS)
              for s in starts for value in variables.prefixes for p in _both(s / value)]
    folders: list[str | None] = [*(w for v in _option_values(program, words, table.INCLUDE_FOLDER_OPTIONS.get(program))
                                   for w in _tilde_words(v, home)), *variables.include_folders]
    # (a folder is no build file: only a file is read for what it includes)
    result = build_includes.included(program, starts, [*code, *(p for p in paths if not p.is_dir())],
                                     [p for c in cwds for v in folders if v for p in _both(c / v)], variables.makefiles)
    found += [Place(p.parent, (p.name,)) for p in result.files]
    unknown = result.unknown or variables.unknown or any(not v for v in folders)
    return found + ([ANY_FILE] if unknown else [])


def _search_folders(program: str, words: Sequence[str | None]) -> list[str | None]:
    """The folders an operand says to find the build file from, as a folder option does:
    just's (``just ../other/x``: ``runner_options.just_search_folders``)."""
    return just_search_folders(tuple(words)) if program == "just" else []


def _option_values(program: str, words: Sequence[str | None],
                   spec: tuple[tuple[str, ...], tuple[str, ...]] | None) -> list[str | None]:
    """The values of the options ``spec`` (short, long) among ``words``: the next word, or
    glued (``-Cout``, ``--file=x``), or in a group of short options for the programs of
    ``GROUPED_SHORTS`` (``-nC out``). ``None`` or ``""``: a value not known here."""
    if spec is None:
        return []
    shorts, longs = spec
    letters = "".join(s[1:] for s in shorts)
    grouped = program in table.GROUPED_SHORTS
    named: list[str | None] = []
    for i, word in enumerate(words):
        following = words[i + 1] if i + 1 < len(words) else None
        if word is None:
            named.append(None)  # (it may be one of the options)
        elif word == "--":
            break
        elif word in shorts:
            named.append(following)
        elif long_prefixes.named(program, word, longs) is not None:
            # (``--file=x`` or ``--file x``, and ``--fi x`` where the program takes that)
            named.append(word.partition("=")[2] if "=" in word else following)
        elif word.startswith(shorts):
            named.append(word[2:])
        elif grouped and letters and word.startswith("-") and not word.startswith("--"):
            at = next((k for k, letter in enumerate(word[1:], start=1) if letter in letters), None)
            if at is not None:
                named.append(word[at + 1:] or following)
    return named


def _hg_roots(starts: Sequence[Path]) -> list[Path]:
    """The top folder of the repository each of ``starts`` is in. Every folder of it counts:
    hg runs in each subrepository its .hgsub names (a commit, ``-S``, an update to a revision
    that has one), with that repository's own .hg/hgrc, and which ones a revision names is not
    read here."""
    roots = (next((f for f in (s, *s.parents) if (f / ".hg").is_dir()), None) for s in starts)
    return [root for root in dict.fromkeys(roots) if root is not None]


def _hg_named(starts: Sequence[Path], roots: Sequence[Path], home: Path | None,
              systems: Sequence[Path], word: str | None) -> list[Place]:
    """What hg's settings name (``hg_config``: a file ``%include`` names, a hook's or merge
    tool's program, an extension's file; a folder any file of which may be one, when a
    settings file is not read), the files and folders ``$HGRCPATH`` names, the system's
    settings in each folder of ``systems`` (``hg_config.system_folders``: its ``hgrc`` and any
    ``*.rc`` of its ``hgrc.d``), and the settings of the repository a share's
    ``.hg/sharedpath`` names (``hg share``: its hgrc runs hooks in the share). Settings that
    give the command ``word`` names an alias or defaults (``hg_config.redefined``) make its
    words not say what it runs or writes: every file counts."""
    found = [Place(p.parent, (p.name,)) for p in hg_config.rc_path_files()]
    found += [Place(f, ("x.rc",), suffixes=(".rc",)) for f in hg_config.rc_path_folders()]
    found += [p for f in systems for p in (Place(f, ("hgrc",)), Place(f / "hgrc.d", ("x.rc",), suffixes=(".rc",)))]
    sources, unknown = hg_config.shared_sources(roots, starts)
    found += [Place(source, _SHARED_FILES) for source in sources]
    found += [Place(Path("/"), _SHARED_FILES, below=True)] if unknown else []
    files = hg_config.settings_files(home, roots, sources, systems)
    if word is None or (word and hg_config.redefined(files, home, word)):
        found.append(ANY_FILE)
    found += _hg_hooks(files, roots or starts, home)
    return found + [_place(item) for item in hg_config.named(files, [*starts, *roots], home)]


def _hg_hooks(files: Sequence[Path], folders: Sequence[Path], home: Path | None) -> list[Place]:
    """What the hooks of hg's settings ``files`` run from, run in any of ``folders`` (the
    repositories' top folders, else where hg runs: ``hg_hooks``): each shell hook's command as
    one of the line's (its settings and code there, every word a file there), the modules python
    hooks import from the user's site-packages, any file below when a hook is not read (the
    settings not read at all: ``hg_config.named`` says so)."""
    read = hg_hooks.hooks(files, home)
    if read is None:
        return []
    found = [Place(f, ("hook",), below=True, suffixes=("",)) for f in folders] if read.unread else []
    for argv in read.commands:
        words = tuple(dict.fromkeys(w for w in argv if w and not w.startswith("-") and "/" not in w))
        found += [Place(f, words) for f in folders] if words else []
        if programs.name_of(argv[0] or "") != "hg":  # (hg reads these same settings again)
            found += places(argv, folders, home)
    if home is not None and read.modules:
        folder, _ = table.USER_SITE
        names = tuple(f"{prefix}{m}{suffix}" for m in read.modules for prefix in ("", "hgext_")
                      for suffix in (".py", "/__init__.py"))
        found.append(Place(home / folder, names, below=True))
    return found


#: What a share reads from the repository folder its ``.hg/sharedpath`` names: its settings
#: (``share-safe``) and the requirements that say whether to read them.
_SHARED_FILES = ("hgrc", "requires")


def _place(item: git_config.Named) -> Place:
    """Where a file a settings file names is (a folder named: any file below it)."""
    if item.folder:
        return Place(item.path, ("hook",), below=True, suffixes=("",))
    return Place(item.path.parent, (item.path.name,))


#: A repository folder's own settings files: its settings, a linked worktree's, and the file
#: naming the folder whose settings a linked worktree shares.
_REPOSITORY_FILES = ("config", "config.worktree", "commondir")


def _git_places(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None, names: tuple[str, ...],
                index_changes: bool) -> list[Place]:
    """Where a git command reads settings and code (``names``: ``.git`` and ``.git/config`` in
    the folders it finds its repository from and above): the repository found from each folder
    it runs in (``-C`` leads elsewhere), the repository ``--git-dir`` names and the worktree
    ``--work-tree`` names, their submodules, what their settings name, and a local repository
    at the other end of a push, fetch or clone (``git_repositories``)."""
    where = git_repositories.folders(argv, cwds)
    found = _folder_places("git", (), where.starts, names, home)
    found += [Place(path.parent, (path.name,)) for path in git_config.environment_files()]
    if where.unknown:
        found.append(Place(Path("/"), (*names, *_REPOSITORY_FILES), below=True))
    subcommand = git_reading.subcommand(tuple(argv))
    hooks = git_hooks.hooks_run(argv)
    found += _git_templates(argv, cwds, home)
    repositories: list[tuple[Path, Path | None]] = []
    if where.named:
        for named in where.named:
            found += _repository_files(named.git_dir, hooks=True)
            found += _submodules([named.root], names, index_changes, named.git_dir)
            repositories.append((named.root, named.git_dir))
    else:
        roots = [r for s in where.starts for r in git_index.repository_roots(s)]
        found += _submodules(roots, names, index_changes)
        for root in dict.fromkeys(roots):
            git_dir = git_index.git_dir_of(root)
            repositories += [(root, git_dir), *((tree, git_dir) for tree in where.worktrees)]
            found += [Place(tree, names, below=True) for tree in where.worktrees]
    known: list[tuple[str, str | None, str, str]] | None = []
    for root, git_dir in dict.fromkeys(repositories):
        found += _git_named(root, git_dir, home, subcommand, hooks)
        read = git_config.entries(git_dir, home)
        known = None if read is None or known is None else known + read
    if not repositories:
        # (a clone: the person's and the system's settings only, their ``insteadOf`` rewrites too,
        # and those of the environment, which name paths in the folder it runs in)
        known = git_config.entries(None, home)
        found += [_place(n) for start in where.starts for n in git_config.environment_named(start, home, subcommand)]
    submodules = any((r / ".gitmodules").exists() for r, _ in repositories)
    if git_repositories.reaches_hosts(argv, None if known is None else git_repositories.remotes(known), submodules):
        found += _ssh_places(where.starts, home)
    ends, unknown = git_repositories.other_ends(
        argv, where.starts, None if known is None else git_repositories.remotes(known))
    if unknown:
        found.append(Place(Path("/"), (*names, *_REPOSITORY_FILES), below=True))
    receives = subcommand in git_repositories.RECEIVES
    for git_dir in ends:
        # git receive-pack runs the hooks of the repository pushed to; git upload-pack none
        found += _repository_files(git_dir, hooks=receives)
        if git_dir.exists():
            root = git_dir.parent if git_dir.name == ".git" else git_dir
            actual = git_index.git_dir_of(root) if git_dir.name == ".git" else git_dir
            runs = git_hooks.RECEIVE_PACK if receives else frozenset()
            found += _git_named(root, actual, home, None, runs)
    return found


def _git_templates(argv: Sequence[str | None], cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """Every file of the template folders ``git init`` and ``git clone`` copy into the new
    repository (``git_folder_writes.templates``: hooks, settings): code, as the hooks of a
    repository are (``init.templateDir`` counts as what git's settings name). A ``~`` git does
    not expand (``--template=~/t`` is ./~/t) counts both ways; a folder not known here: any
    file."""
    words = git_folder_writes.templates(argv)
    if None in words:
        return [Place(Path("/"), ("template",), below=True, suffixes=("",))]
    folders: list[Path] = []
    for word in (w for w in words if w is not None):
        if (word == "~" or word.startswith("~/")) and home is not None:
            folders.append(home / word[2:])
        folders += [Path(os.path.normpath(c / word)) for c in cwds]
    return [Place(f, ("template",), below=True, suffixes=("",)) for f in dict.fromkeys(folders)]


def _repository_files(git_dir: Path, *, hooks: bool) -> list[Place]:
    """A repository folder named by path: the folder itself (or the ``.git`` file there), its
    settings files and, when ``hooks`` run, its hooks folder."""
    found = [Place(git_dir.parent, (git_dir.name,)), Place(git_dir, _REPOSITORY_FILES)]
    if hooks:
        found.append(Place(git_dir / "hooks", ("hook",), below=True, suffixes=("",)))
    return found


def _submodules(roots: Sequence[Path], names: tuple[str, ...], index_changes: bool,
                git_dir: Path | None = None) -> list[Place]:
    """The folders of the submodules of the repositories whose worktrees are ``roots`` (with
    the repository folder ``--git-dir`` names, ``git_dir``): git's worktree commands run git in
    every one that holds a repository, with its own settings (see ``git_index``). An index that cannot be read, or that another command of the line may
    change first (``git add out/r && git status``: out/r is a submodule by then), makes every
    folder of the worktree count."""
    found: list[Place] = []
    for root in dict.fromkeys(roots):
        links = None if index_changes else git_index.gitlinks(root, git_dir)
        if links is None:
            found.append(Place(root, names, below=True))
        else:
            found += [Place(root.joinpath(*link.split("/")), names) for link in links]
    return found


def _git_named(root: Path, git_dir: Path | None, home: Path | None, subcommand: str | None,
               hooks: frozenset[str] | None) -> list[Place]:
    """What the git settings of the repository ``git_dir`` (worktree ``root``) name
    (``git_config``): a file git runs or reads as settings, or a hooks folder, any file of which
    git may run; and when the command runs a hook (one of ``hooks``; ``None``: any) present
    there, the worktree and the home folder."""
    found: list[Place] = []
    named = git_config.named(root, git_dir, home, subcommand)
    for item in named:
        if item.folder:
            found.append(Place(item.path, ("hook",), below=True, suffixes=("",)))
        else:
            found.append(Place(item.path.parent, (item.path.name,)))
    # A hook that runs is the person's program, which may read any file of the worktree
    # and of the home folder (``git_hooks``): every one counts as code the command runs.
    folders = [item.path for item in named if item.folder] + git_config.default_hooks(git_dir)
    if git_dir is None or (hooks != frozenset() and git_hooks.present(folders, hooks)):
        found += [Place(f, ("hook",), below=True, suffixes=("",)) for f in (root, home) if f is not None]
    return found


def _user_places(program: str, home: Path) -> list[Place]:
    """The user's own settings of ``program``: read wherever it runs, so a home folder the write
    rules open to the agent (``~/**``) gives it the program's settings (``~/.gitconfig``)."""
    found = [Place(home, table.HOME_SETTINGS[program])] if program in table.HOME_SETTINGS else []
    if program in table.HOME_CODE:
        folder, code = table.HOME_CODE[program]
        # (below too: more files than rake and gradle read, never fewer than scons does)
        found.append(Place(home / folder, tuple(f"x{s}" for s in code), below=True, suffixes=code))
    names = table.CONFIG_HOME_SETTINGS.get(program)
    if names:
        found += [Place(folder, names) for folder in _config_homes(home)]
    return found


def _named_places(program: str, argv: Sequence[str | None], cwds: Sequence[Path], home: Path) -> list[Place]:
    """What the user's settings of ``program`` include and name: ssh's, for a command that may
    run it (``ssh_reach``; git's: ``_git_places``; docker's: ``docker_settings``, with its
    settings folder), curl's (``curl_config``, with the
    ``.curlrc`` of ``$CURL_HOME``), and composer's home that ``$COMPOSER_HOME`` names."""
    if program != "git" and ssh_reach.runs_ssh(program, argv):
        return _ssh_places(cwds, home)
    if program == "docker":
        docker = docker_settings.settings(argv, cwds, home)
        found = [ANY_FILE] if None in docker.folders else [
            Place(f, ("file",), below=True, suffixes=("",)) for f in docker.folders if f is not None]
        return found + (_ssh_places(cwds, home) if docker.runs_ssh else [])
    if program == "curl":
        files = curl_config.settings_files(home)
        return [Place(f.parent, (f.name,)) for f in files] + [_place(i) for i in curl_config.named(files, cwds, home)]
    composer_home = line_environment.get("COMPOSER_HOME") if program == "composer" else ""
    if composer_home:
        # (a relative one is relative to the folder it runs in)
        return [Place(folder, table.COMPOSER_HOME_FILES) for c in cwds for folder in _both(c / composer_home)]
    return []


def _ssh_places(cwds: Sequence[Path], home: Path | None) -> list[Place]:
    """ssh's settings, for a command that runs ssh from any of ``cwds``: the user's file, what it
    and the system's include and name (``ssh_config``), and the paths in the command git runs
    instead of ssh (``$GIT_SSH_COMMAND``, ``$GIT_SSH`` in the environment the commands inherit
    from Echo Desk: ``ssh -F FILE``)."""
    if home is None:
        return []
    found = [Place(home / ".ssh", ("config",)), *(_place(i) for i in ssh_config.named(home, cwds))]
    for variable in ("GIT_SSH_COMMAND", "GIT_SSH"):
        for word in line_environment.get(variable, "").split():
            if "/" in word:
                path = home / word[2:] if word.startswith("~/") else Path(word)
                found += [Place(p.parent, (p.name,)) for p in dict.fromkeys(Path(os.path.normpath(c / path)) for c in cwds)]
    return found


def _python_path(cwds: Sequence[Path], top: str) -> list[Place]:
    """The folders of ``$PYTHONPATH`` (in the environment the commands inherit from Echo Desk;
    a relative one from the folder the command runs in): python looks there for every module
    before its own, for the program's (``top``) as for any it imports (PYTHONPATH=out made
    ``pip config list`` and ``python -m pip config list`` run out/pip/__init__.py: s175)."""
    entries = [e for e in line_environment.get("PYTHONPATH").split(os.pathsep) if e]
    return [Place(folder, (f"{top}.py", f"{top}/__init__.py", _ANY_MODULE))
            for entry in entries for c in cwds for folder in _both(c / entry)]


def _user_site(home: Path) -> Place:
    """The user's site-packages (any python version): its ``.pth`` files run at python's start."""
    folder, names = table.USER_SITE
    return Place(home / folder, names, below=True)


def _config_homes(home: Path) -> list[Path]:
    """Where programs look for the user's settings: ``$XDG_CONFIG_HOME`` (what the command
    inherits from Echo Desk), and ``~/.config``, their default."""
    folders = [home / ".config"]
    xdg = line_environment.get("XDG_CONFIG_HOME", "")
    if os.path.isabs(xdg):
        folders.append(Path(xdg))
    return list(dict.fromkeys(folders))


def _operands(words: Sequence[str | None], spec: OptionSet) -> tuple[list[str], list[str]]:
    """The operands of ``words`` read with the program's own options (``pytest -k x`` has none:
    ``x`` is the value of ``-k``), and every option's value, which may name a path too
    (``--stdin-filename F`` takes F's settings). An option not known may take the next word,
    so with one the program may have no operand: the folder it runs in counts too (``"."``)."""
    parsed = read_options(words, spec)
    operands = [w for _, w in parsed.operands if w]
    values = [s.value for s in parsed.seen if s.value]
    if any(s.option is None for s in parsed.seen) and operands:
        values.append(".")
    return operands, values


def _default_operands(program: str, cwd: Path) -> list[str]:
    """What the program checks when given no operand: the folder it runs in, or for pytest the
    ``testpaths`` of the person's settings file there (see ``pytest_testpaths``)."""
    if program in ("pytest", "py.test"):
        return pytest_testpaths.testpaths(cwd) or ["."]
    return ["."]


def writable_places(found: Iterable[Place], writable: Callable[[Path], bool],
                    patterns: Sequence[PathPattern], bases: Callable[[PathPattern], list[Path]],
                    known: dict[Place, list[Path]] | None = None) -> list[Path]:
    """The settings files among ``found`` that ``writable`` says the agent may write. Below a
    folder, the paths tried are the write rules' own patterns made concrete under it (each
    wildcard a plain name), so a rule such as ``@workspace/**/cfg/**`` is seen to allow
    ``src/cfg/ruff.toml``. ``known``: what each place gave already with the same rules (every
    command of a line has the folders of ``PATH`` among its places), kept there."""
    hits: list[Path] = []
    for place in found:
        if known is None:
            hits += _writable_in(place, writable, patterns, bases)
            continue
        given = known.get(place)
        if given is None:
            given = known[place] = _writable_in(place, writable, patterns, bases)
        hits += given
    return list(dict.fromkeys(hits))


def _writable_in(place: Place, writable: Callable[[Path], bool], patterns: Sequence[PathPattern],
                 bases: Callable[[PathPattern], list[Path]]) -> list[Path]:
    """``writable_places`` for one place."""
    hits: list[Path] = []
    for name in place.names:
        tried = [place.folder / name]
        if place.below:
            tried += [p for pattern in patterns for p in _concrete(pattern, bases(pattern), place.folder, name)]
        hits += [p for p in tried if writable(p)]
    code = (*(name_globs.suffix_tokens(s) for s in place.suffixes),
            *(name_globs.fnmatch_tokens(g) for g in place.globs))
    if code:
        # A path made concrete is one sample of the names the pattern allows in its folder
        # (``test*`` gives ``testx``): the pattern's own last part is judged against the
        # code's names. (Not below: the folder's own files only, as go compiles a package's.)
        tried = [p for pattern in patterns if _may_name(pattern, code)
                 for p in _concrete(pattern, bases(pattern), place.folder, "")
                 if place.below or p.parent == place.folder]
        hits += [p for p in tried if writable(p)]
    if place.shapes and any(_may_write_a_shape(pattern, bases(pattern), place) for pattern in patterns):
        # (the folder itself stands for the files of those shapes: the pattern allows one)
        hits.append(place.folder)
    return hits


def _may_write_a_shape(pattern: PathPattern, roots: list[Path], place: Place) -> bool:
    """Whether ``pattern`` (an allow rule's) may match a file below ``place.folder`` of one of
    its shapes: the pattern's parts against the folder's and the shape's, wildcards against
    wildcards. Deny and ask rules are not weighed: the place counts, erring wide."""
    tail = pattern.glob_parts()
    if pattern.names_folders and tail[-1:] != ["**"]:
        tail.append("**")
    folder = [tuple(part) for part in place.folder.parts[1:]]
    for shape in place.shapes:
        target = folder + [name_globs.suffix_tokens("") if s == "*" else tuple(s) for s in shape.split("/")]
        for root in roots:
            # (the root holds the pattern's plain leading parts: the rest must follow it)
            base = [tuple(part) for part in root.parts[1:]]
            if len(base) <= len(target) and all(name_globs.may_share_a_name(b, t) for b, t in zip(base, target[:len(base)], strict=True)) \
                    and name_globs.may_share_a_path(tail, target[len(base):]):
                return True
    return False


def _may_name(pattern: PathPattern, code: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a file ``pattern`` allows may have a name of ``code`` (a pattern naming folders
    allows any name in them)."""
    if pattern.names_folders:
        return True
    last = name_globs.gitignore_tokens(pattern.text.rsplit("/", 1)[-1])
    return any(name_globs.may_share_a_name(last, name) for name in code)


def _concrete(pattern: PathPattern, roots: list[Path], folder: Path, name: str) -> list[Path]:
    """Paths named ``name`` under ``folder`` that ``pattern`` may match: its segments after its
    plain start, any run of them made concrete, under the pattern's roots or ``folder`` (with
    ``name`` empty: those paths themselves, the last segment their name)."""
    segments = [_GLOB.sub(_sample, s) if s != "**" else "x" for s in pattern.text.split("/")[1:] if s]
    tails = [segments[j:k] for j in range(len(segments) + 1) for k in range(j, len(segments) + 1)]
    paths = [folder.joinpath(*t, name) for t in tails]
    paths += [root.joinpath(*t, name) for root in roots for t in tails]
    inside = str(folder).rstrip("/") + "/"  # (a string test: ``folder in p.parents`` builds each parent)
    return [p for p in dict.fromkeys(paths) if str(p).startswith(inside)]


def _sample(wildcard: re.Match[str]) -> str:
    """One character a wildcard matches: ``x`` for ``*`` and ``?``; a class's first (``[st]``
    gives ``s``: ``x`` would make ``[st]est.txt`` a name the pattern does not allow), or for a
    class that excludes (``[!x]``) a character it does not name."""
    text = wildcard.group()
    if not text.startswith("["):
        return "x"
    inside = text[1:-1]
    if inside[:1] in ("!", "^"):
        return next((c for c in "xyz_0" if c not in inside), "x")
    first = inside[1:2] if inside[:1] == "\\" else inside[:1]
    return first if first not in ("", "/") else "x"


def _python_module(words: list[str | None]) -> tuple[str | None, list[str | None]]:
    """``python [options] -m MODULE args``: the module and its arguments (``None``: no ``-m``)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word is None or not word.startswith("-") or word in ("-", "--"):
            return None, []
        i += 1
        if word.startswith("--"):
            i += word == "--check-hash-based-pycs"
            continue
        for k, letter in enumerate(word[1:], start=2):
            if letter in "WX":
                i += not word[k:]
                break
            if letter == "c":
                return None, []
            if letter == "m":
                if word[k:]:
                    return word[k:], words[i:]
                return (words[i], words[i + 1:]) if i < len(words) else (None, [])
    return None, []
