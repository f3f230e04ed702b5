"""Variables a program reads as data only, program by program: a ``NAME=value`` given to that
program (before it on the line, or through ``env``) changes what its own code decides, never
which code runs, which file or folder it opens or writes, or which options it takes. Such an
assignment counts as harmless as the inert ones of ``shell.INERT_ASSIGNMENTS`` do, for that
program only, with a value of the same harmless characters (``shell.inert_value``: no ``/``, no
``=``, no blank, no expansion).

A name is listed only when it is proven for the program: with strace, under bash and dash, in a
scratch folder with a scratch home, the assignment ran the same programs and opened and wrote the
same files as the line without it. Any other name asks unless a rule names the assignment
(``NODE_OPTIONS=* npm test **``); a variable that names a file, a folder, a program, a shell or
options (``*PATH*``, ``LD_*``, ``*_OPTIONS``, ``BASH_ENV``, ``GIT_*``, ``npm_config_*``, where
poetry keeps its environments) is never listed.
"""

from __future__ import annotations

from echo_desk.agent.permissions.interpreters import PYTHON, python_reading
from echo_desk.agent.permissions.reading import Argv

__all__ = ["DATA_VARIABLES", "reads_as_data"]

#: The project's mode for node and the package managers, which run the project's scripts. node
#: does not read it (``NODE_ENV=test node --test`` opened and ran the same as ``node --test``);
#: npm reads it as the default of ``--omit=dev`` (which packages ``npm install`` leaves out, not
#: where it writes): ``NODE_ENV=test npm test`` and ``NODE_ENV=production npm test`` ran the same
#: programs (``sh -c 'node --test'``, node on each test file) and wrote the same files as ``npm
#: test`` (npm 11.19, node 20; s269). pnpm and yarn take it as npm does: ``pnpm test``, ``yarn
#: test`` and ``pnpm install`` with ``NODE_ENV=test`` or ``production`` ran and wrote the same;
#: ``yarn install`` with ``production`` left the dev dependency out of node_modules, writing less
#: (pnpm 12.26, yarn 1.22; s288). The project's own code may read it, as it reads anything of
#: its environment: that code is what the rule for the program runs.
_NODE_MODE = frozenset({"NODE_ENV"})

#: Python's own switches that change how it runs, not what: the seed of its string hashes, the
#: fault handler (a traceback on stderr when it crashes), UTF-8 mode (how text is decoded). With
#: each, ``pytest -q``, ``python -m pytest -q`` and ``python3 -m pytest -q`` ran the same
#: programs and opened and wrote the same files (pytest 8, Python 3.11; s288). Not listed:
#: ``PYTHONWARNINGS`` imports the module a filter's category names (``ignore::this.W`` ran
#: this.py), ``PYTHONPATH``, ``PYTHONSTARTUP``, ``PYTHONBREAKPOINT``, ``PYTHONHOME`` and
#: ``PYTHONPYCACHEPREFIX`` name code or where it is written, ``PYTHONOPTIMIZE`` writes other
#: .pyc files.
_PYTHON_RUNTIME = frozenset({"PYTHONHASHSEED", "PYTHONFAULTHANDLER", "PYTHONUTF8"})

#: pytest's colours (``_io/terminalwriter.py`` reads ``PY_COLORS`` as 1 or 0, nothing else);
#: proven as above, and for ``python -m pytest``, which ``reads_as_data`` judges as pytest:
#: ``PY_COLORS=1`` or ``0`` before ``python -m pytest -q``, ``python3 -m pytest -q``, ``python -B
#: -m pytest -x`` and ``env python -m pytest`` ran the same programs and opened and wrote the same
#: files as without it (pytest 9, Python 3.11, bash and dash; s298). Not listed: ``PYTEST_ADDOPTS`` (options), ``PYTEST_PLUGINS`` (modules it
#: imports), ``PYTEST_THEME`` (a pygments style, which plugins may provide),
#: ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` (which plugins load), ``PYTEST_DEBUG_TEMPROOT`` (a folder).
_PYTEST = _PYTHON_RUNTIME | {"PY_COLORS"}

#: Rust's standard library and test harness, read by what cargo builds and runs: the log filter
#: of env_logger and tracing (cargo's own is ``CARGO_LOG``), whether a backtrace is captured, how
#: many threads run the tests, whether their output is shown, the stack of new threads (the
#: rustc(1) manual, "ENVIRONMENT"). ``cargo test``, ``cargo run`` and ``cargo build`` ran the
#: same programs and wrote the same files with each (cargo 1.95; s288). Not listed: every
#: ``CARGO_*`` (cargo's settings: ``CARGO_BUILD_RUSTC_WRAPPER``, ``CARGO_TARGET_<triple>_RUNNER``
#: and ``CARGO_ALIAS_*`` run programs, ``cargo_variables``), ``RUSTC_WRAPPER``, ``RUSTC``,
#: ``RUSTFLAGS``, ``RUSTDOCFLAGS`` (a program, or options naming one: ``-C linker``).
_RUST_RUNTIME = frozenset({"RUST_LOG", "RUST_LIB_BACKTRACE", "RUST_TEST_THREADS", "RUST_TEST_NOCAPTURE",
                           "RUST_MIN_STACK"})

#: How many threads run Go code at once, for the go command and what it runs: ``go test``,
#: ``go build`` and ``go run`` ran the same programs with it (go 1.19; ``go test`` keeps its
#: result in the same cache under another key; s288). Not listed: ``GOFLAGS`` (options),
#: ``GOOS``/``GOARCH`` (``GOOS=windows go run .`` ran the go_windows_amd64_exec it found on PATH,
#: and ``go build`` wrote demo.exe), ``GOTOOLCHAIN`` (downloads and runs another go),
#: ``CGO_ENABLED`` and ``GOEXPERIMENT`` (which files and compilers build), ``GODEBUG``
#: (``installgoroot=all`` writes into GOROOT), ``GOTRACEBACK`` (``crash`` dumps core),
#: ``GO111MODULE``, ``GOWORK``, ``GOPATH``, ``GOCACHE``, ``GOPROXY`` (where code comes from or goes).
_GO_RUNTIME = frozenset({"GOMAXPROCS"})

DATA_VARIABLES: dict[str, frozenset[str]] = {
    "node": _NODE_MODE,
    "npm": _NODE_MODE,
    "pnpm": _NODE_MODE,
    "yarn": _NODE_MODE,
    "python": _PYTHON_RUNTIME,
    "python3": _PYTHON_RUNTIME,
    "pytest": _PYTEST,
    "cargo": _RUST_RUNTIME,
    "go": _GO_RUNTIME,
}


def reads_as_data(argv: Argv, name: str) -> bool:
    """Whether the command ``argv`` reads the variable ``name`` as data only: its program does
    (the word that runs it, as written: a path is not the program), or the program python runs
    it as (``python -m pytest`` is pytest, ``Reading.program_form``), whose code reads the
    variables python is given: ``PY_COLORS=1 python -m pytest`` is judged as pytest's."""
    program = argv[0] if argv else None
    if program is None:
        return False
    if name in DATA_VARIABLES.get(program, frozenset()):
        return True
    if not PYTHON.fullmatch(program):
        return False
    # (python's whole reading, its settings writes too, only when the word itself did not say)
    form = python_reading(argv, program).program_form
    runs = form[0] if form else None
    return runs is not None and name in DATA_VARIABLES.get(runs, frozenset())
