"""Which variables a rule the approval dialog offers may name (``FOO=1 make test **``, ``env
FOO=1 make test **``, s342). A rule that names an assignment trusts the variable, not the files
it may name (``line_environment``): offered for ``PATH=bin make test``, one click would let the
agent run a ``bin/make`` it planted, every time. So the dialog offers such a rule only for a
variable that no program's start-up, loader, shell or tool reads as a file, a folder, a program,
options or settings, by the families ``data_variables`` never lists (``*PATH*``, ``LD_*``,
``*_OPTIONS``, ``BASH_ENV``, ``GIT_*``, ``npm_config_*``…), and with a value of harmless
characters (``shell.inert_value``: no ``/``, no blank, no expansion).

This only narrows what is offered: a name refused here still asks, and the person may approve
the call once or write the rule. A name a family misses is a project's own (``DEBUG=1``,
``RAILS_ENV=test``), which the program's own code reads as the rule for the program trusts it.
"""

from __future__ import annotations

from echo_desk.agent.permissions.shell import inert_value

__all__ = ["may_name"]

#: Names a program's start-up reads as code, a program, a shell or where settings are.
_NAMES = frozenset({
    "ENV", "HOME", "SHELL", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "GLOBIGNORE", "PROMPT_COMMAND", "INPUTRC",
    "ZDOTDIR", "TMPDIR", "TERMINFO", "EDITOR", "VISUAL", "PAGER", "BROWSER", "CC", "CXX", "CPP", "LD", "AS", "AR",
    "FC", "NM", "RANLIB", "STRIP", "OBJCOPY", "PREFIX", "DESTDIR", "KUBECONFIG", "TERM",
})
#: Families by how the name starts: the loader, the shells, interpreters and tools reading
#: settings, options or code from their variables.
_PREFIXES = (
    "LD_", "DYLD_", "GCONV", "GLIBC_", "MALLOC_", "BASH", "GIT_", "HG", "PYTHON", "PERL", "RUBY", "GEM", "BUNDLE",
    "NODE_", "NPM_", "YARN_", "PNPM_", "BUN_", "DENO_", "JAVA", "_JAVA", "JDK_", "MAVEN", "GRADLE", "CARGO_", "RUST",
    "GO", "PIP_", "UV_", "POETRY_", "CONDA", "VIRTUAL_ENV", "TOX", "NOX", "JUST_", "MAKE", "GNUMAKE", "CMAKE_",
    "MESON", "NINJA", "DOCKER_", "COMPOSE_", "XDG_", "SSH_", "GPG", "GNUPG", "LESS", "OPENSSL", "SSL_", "CURL_",
    "LUA_", "PHP", "COMPOSER_", "R_", "TCL", "TK_", "EMACS", "VIM", "NVIM", "PYTEST_", "COVERAGE_", "DBUS_",
)
#: Families by what the name holds: search lists, libraries, options, settings, places, programs.
_PARTS = ("PATH", "LIB", "OPT", "FLAGS", "CONF", "RC", "HOME", "DIR", "FILE", "ROOT", "PREFIX", "PROGRAM",
          "COMMAND", "CMD", "EXEC", "SHELL", "EDITOR", "PAGER", "HOOK", "PLUGIN", "MODULE", "LOADER", "PRELOAD",
          "WRAPPER", "RUNNER", "TOOLCHAIN", "INCLUDE", "STARTUP", "INIT")


def may_name(name: str, value: str | None) -> bool:
    """Whether a rule offered may name ``name`` given ``value`` (``None``: unset, ``env -u``)."""
    upper = name.upper()
    if upper in _NAMES or upper.startswith(_PREFIXES) or any(part in upper for part in _PARTS):
        return False
    return value is None or inert_value(value)
