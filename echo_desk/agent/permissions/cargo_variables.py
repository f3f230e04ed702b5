"""What cargo makes of the variables it reads: every setting of its config files from
``CARGO_<SECTION>_<KEY>`` (cargo 1.95, "Environment variables" of the Cargo Book: dots and
dashes as ``_``, upper case) and a few of its own (``RUSTC_WRAPPER``, ``RUSTFLAGS``). Many run a
program: ``env CARGO_BUILD_RUSTC_WRAPPER=out/w cargo build`` ran out/w, as did
``RUSTC_WRAPPER``, ``CARGO_BUILD_RUSTC``, ``CARGO_TARGET_<triple>_RUNNER`` (``cargo run``),
``CARGO_ALIAS_B='run --config build.rustc-wrapper="out/w"'`` (``cargo b``), ``RUSTFLAGS='-C
linker=out/w'``, and Echo Desk started with ``CARGO_HOME=out/ch`` made ``cargo build`` run the
``[build] rustc-wrapper`` of out/ch/config.toml (proven, cargo 1.95 under bash and dash, s237).

``kind`` sorts a variable for ``option_variables``, which judges it: a setting known to change
nothing the engine judges is inert; cargo's home is a folder of settings (its config.toml is
code) and of what it downloads; a program the person's own environment names is a file of code
(the agent may not write it); anything else of the scheme is not understood and asks.
"""

from __future__ import annotations

import enum

__all__ = ["Kind", "kind"]


class Kind(enum.Enum):
    NOT_CARGO = enum.auto()  # not a variable cargo reads
    INERT = enum.auto()  # changes nothing the engine judges
    HOME = enum.auto()  # CARGO_HOME, CARGO_INSTALL_ROOT: folders it reads settings from or writes
    PROGRAM = enum.auto()  # names a program cargo runs
    UNKNOWN = enum.auto()  # not understood: the command asks


_PREFIX = "CARGO_"
#: Settings that only choose how cargo reports, how long it waits, how many jobs it runs, a
#: URL or a credential of a registry: nothing the engine judges.
_INERT = frozenset({
    "TERM_COLOR", "TERM_VERBOSE", "TERM_QUIET", "TERM_PROGRESS_WHEN", "TERM_PROGRESS_WIDTH",
    "TERM_PROGRESS_TERM_INTEGRATION", "TERM_HYPERLINKS", "TERM_UNICODE", "NET_RETRY", "NET_OFFLINE",
    "NET_GIT_FETCH_WITH_CLI", "HTTP_TIMEOUT", "HTTP_LOW_SPEED_LIMIT", "HTTP_MULTIPLEXING", "HTTP_DEBUG",
    "HTTP_USER_AGENT", "HTTP_CHECK_REVOKE", "HTTP_PROXY", "BUILD_JOBS", "BUILD_INCREMENTAL", "INCREMENTAL",
    "CACHE_RUSTC_INFO", "LOG", "FUTURE_INCOMPAT_REPORT_FREQUENCY", "CARGO_NEW_VCS", "NAME", "EMAIL",
    "REGISTRY_DEFAULT", "REGISTRY_TOKEN",
})
#: ``CARGO_REGISTRIES_<name>_…`` and ``CARGO_PROFILE_<name>_…`` (a name may hold ``_``): the
#: keys that are a URL, a token or a code-generation choice. (A registry's
#: ``credential-provider`` runs a program; a profile's ``rustflags`` gives the compiler options.)
_INERT_REGISTRY_KEYS = ("_INDEX", "_TOKEN", "_PROTOCOL")
_INERT_PROFILE_KEYS = ("_OPT_LEVEL", "_DEBUG", "_STRIP", "_LTO", "_CODEGEN_UNITS", "_PANIC", "_INCREMENTAL",
                       "_OVERFLOW_CHECKS", "_DEBUG_ASSERTIONS", "_SPLIT_DEBUGINFO", "_RPATH")
#: What cargo sets for the programs it runs (build scripts, tests), which it does not read back
#: as settings, and ``TARGET_DIR``/``BUILD_TARGET_DIR``, judged by ``build_tools``.
_LEFT_PREFIXES = ("PKG_", "CFG_", "FEATURE_", "MANIFEST_", "BIN_EXE_")
_LEFT = frozenset({"TARGET_DIR", "BUILD_TARGET_DIR", "CRATE_NAME", "BIN_NAME", "PRIMARY_PACKAGE",
                   "TARGET_TMPDIR", "MAKEFLAGS"})
_HOMES = frozenset({"HOME", "INSTALL_ROOT"})
#: Variables outside the scheme that cargo reads: the compiler and its wrappers, and options
#: given to the compiler (``-C linker=…`` runs a program, ``-Z``/``-L`` load what they name).
_PROGRAMS = frozenset({"RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC"})
_COMPILER_OPTIONS = frozenset({"RUSTFLAGS", "RUSTDOCFLAGS"})
_PROGRAM_KEYS = frozenset({"BUILD_RUSTC", "BUILD_RUSTC_WRAPPER", "BUILD_RUSTC_WORKSPACE_WRAPPER", "BUILD_RUSTDOC"})


def kind(name: str) -> Kind:
    """What the variable ``name`` is to cargo."""
    if name in _PROGRAMS:
        return Kind.PROGRAM
    if name in _COMPILER_OPTIONS:
        return Kind.UNKNOWN
    if not name.startswith(_PREFIX):
        return Kind.NOT_CARGO
    key = name[len(_PREFIX):]
    if key in _INERT or key in _LEFT or key.startswith(_LEFT_PREFIXES):
        return Kind.INERT
    if key.startswith("REGISTRIES_") and key.endswith(_INERT_REGISTRY_KEYS):
        return Kind.INERT
    if key.startswith("PROFILE_") and key.endswith(_INERT_PROFILE_KEYS):
        return Kind.INERT
    if key in _HOMES:
        return Kind.HOME
    if key in _PROGRAM_KEYS:
        return Kind.PROGRAM
    return Kind.UNKNOWN
