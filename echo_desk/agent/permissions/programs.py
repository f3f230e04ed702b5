"""What particular programs do with their options: the options that run other programs or
write files (never matched by an allow unless the rule names them), and the wrappers that run
their argument as a command (unwrapped to match deny rules).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

Argv = Sequence[str | None]

#: Wrappers that add nothing dangerous: ``timeout 5 git status`` is allowed when ``git status``
#: is (the wrapper never makes an allow broader: the inner command needs its own allow).
BENIGN_WRAPPERS = frozenset({"timeout", "nice", "nohup", "time", "command", "stdbuf", "ionice", "setsid"})
#: Options of a wrapper that take a value (so the command starts after it).
_WRAPPER_VALUE_OPTIONS = {
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "--class", "-n", "--classdata", "-p", "--pid"},
    "stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"},
    "env": {"-u", "--unset", "-C", "--chdir"},
    "xargs": {"-I", "-i", "-n", "-L", "-l", "-P", "-s", "-d", "-E", "-e", "-a", "--arg-file", "--delimiter",
              "--max-args", "--max-procs", "--max-lines", "--max-chars", "--replace", "--eof"},
    "command": set(),
    "time": {"-f", "--format", "-o", "--output"},
}
#: Wrappers whose first non-option argument is a value, not the command (``timeout 5 cmd``).
_WRAPPER_LEADING_VALUE = {"timeout": 1}

_SED_EXECUTES = re.compile(r"(^|[;\n{}])\s*[0-9,$/!]*\s*[ewW]\b|/[gpIiMm0-9]*[ewW]")


def base(program: str | None) -> str | None:
    """``/usr/bin/git`` → ``git`` (for deny matching: a path does not escape a deny)."""
    if program is None:
        return None
    return program.rsplit("/", 1)[-1]


def unwrap(argv: Argv) -> tuple[str, list[str | None]] | None:
    """``(wrapper, inner argv)`` when ``argv`` runs a known wrapper with a command, else None.
    ``env VAR=x cmd`` unwraps to ``cmd``."""
    if not argv or argv[0] is None:
        return None
    wrapper = base(argv[0])
    if wrapper not in _WRAPPER_VALUE_OPTIONS and wrapper not in ("nohup", "exec", "setsid", "unbuffer",
                                                                 "chronic", "caffeinate"):
        return None
    assert wrapper is not None
    takes_value = _WRAPPER_VALUE_OPTIONS.get(wrapper, set())
    leading = _WRAPPER_LEADING_VALUE.get(wrapper, 0)
    i = 1
    while i < len(argv):
        token = argv[i]
        if token is None:
            return None
        if token == "--":
            i += 1
            break
        if token.startswith("-") and len(token) > 1:
            i += 2 if token in takes_value else 1
            continue
        if wrapper == "env" and "=" in token:
            i += 1
            continue
        if leading:
            leading -= 1
            i += 1
            continue
        break
    inner = list(argv[i:])
    return (wrapper, inner) if inner else None


def dangerous(argv: Argv) -> list[tuple[str, str]] | None:
    """The options in ``argv`` that run other programs or write files, as ``(key, token)``
    pairs an allow rule must name; ``None`` when it cannot be told (a run-time token where such
    an option could hide, a ``sed`` script that runs commands)."""
    if not argv or argv[0] is None:
        return None
    program = argv[0]
    args = list(argv[1:])
    check = _CHECKS.get(program)
    if check is None:
        return []
    if any(a is None for a in args):
        return None
    return check([a for a in args if a is not None])


def _git(args: list[str]) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    for a in args:
        for key in ("--exec-path", "--upload-pack", "--receive-pack", "--config-env", "--output", "--ext-diff",
                    "--textconv", "--extcmd", "--tool", "--run"):
            if a == key or a.startswith(key + "="):
                found.append((key, a))
        if a == "-c" or (a.startswith("-c") and "=" in a) or a == "-u":
            found.append((a[:2], a))
    return found


def _npm(args: list[str]) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    for a in args:
        for key in ("--script-shell", "--prefix", "--userconfig", "--globalconfig", "--node-options", "-C"):
            if a == key or a.startswith(key + "="):
                found.append((key, a))
    return found


def _sed(args: list[str]) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    for a in args:
        if a.startswith("--in-place") or (a.startswith("-") and not a.startswith("--") and "i" in a):
            found.append(("-i", a))
        if a.startswith(("-f", "--file")):
            return None  # a script file we cannot see
    scripts = [args[k + 1] for k, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
    if not scripts:
        scripts = [a for a in args if not a.startswith("-")][:1]
    if any(_SED_EXECUTES.search(s) for s in scripts):
        return None  # the e/w commands run or write
    return found


def _sort(args: list[str]) -> list[tuple[str, str]] | None:
    found: list[tuple[str, str]] = []
    for a in args:
        if a.startswith("--output") or a.startswith("--compress-program"):
            found.append((a.split("=")[0], a))
        elif a.startswith("-") and not a.startswith("--") and "o" in a:
            found.append(("-o", a))
    return found


def _find(args: list[str]) -> list[tuple[str, str]] | None:
    keys = {"-exec", "-execdir", "-delete", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}
    return [(a, a) for a in args if a in keys]


def _xargs(args: list[str]) -> list[tuple[str, str]] | None:
    inner = unwrap(["xargs", *args])
    if inner is None:
        return []
    command = inner[1][0]
    return [(command or "", command or "")]


def _tee(args: list[str]) -> list[tuple[str, str]] | None:
    return [(a, a) for a in args if not a.startswith("-") and a != "/dev/null"]


def _code_flags(args: list[str]) -> list[tuple[str, str]] | None:
    return [(a, a) for a in args if a in ("-c", "-e", "--eval", "-E", "-r", "-p", "--print", "-m")]


def _awk(args: list[str]) -> list[tuple[str, str]] | None:
    if any("system" in a or "|" in a or ">" in a or "getline" in a for a in args):
        return None
    return [(a, a) for a in args if a.startswith("-f")]


def _tar(args: list[str]) -> list[tuple[str, str]] | None:
    keys = ("--to-command", "--checkpoint-action", "--use-compress-program", "--rsh-command", "--info-script",
            "--new-volume-script")
    found = [(a.split("=")[0], a) for a in args if a.startswith(keys)]
    found += [(a, a) for a in args if a in ("-I", "-F")]
    return found


def _rsync(args: list[str]) -> list[tuple[str, str]] | None:
    return [(a.split("=")[0], a) for a in args if a == "-e" or a.startswith(("--rsh", "--rsync-path"))]


def _curl(args: list[str]) -> list[tuple[str, str]] | None:
    keys = ("--output", "--remote-name", "--config", "--output-dir", "--dump-header", "--trace", "--upload-file")
    found = [(a.split("=")[0], a) for a in args if a.startswith(keys)]
    found += [(a, a) for a in args if a in ("-o", "-O", "-K", "-D", "-T")]
    return found


_CHECKS = {
    "git": _git, "npm": _npm, "npx": _npm, "pnpm": _npm, "yarn": _npm,
    "sed": _sed, "gsed": _sed, "sort": _sort, "find": _find, "xargs": _xargs, "tee": _tee,
    "python": _code_flags, "python3": _code_flags, "node": _code_flags, "perl": _code_flags,
    "ruby": _code_flags, "php": _code_flags,
    "awk": _awk, "gawk": _awk, "mawk": _awk, "tar": _tar, "rsync": _rsync, "curl": _curl,
}
