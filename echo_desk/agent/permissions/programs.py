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

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from echo_desk.agent.permissions import git_options as git
from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.model import Opaque
from echo_desk.agent.permissions.options import (
    Does,
    OptionSet,
    Parsed,
    Takes,
    flags,
    opt,
    read_options,
    values,
)
from echo_desk.agent.permissions.program_scripts import awk_is_harmless, sed_is_harmless
from echo_desk.sandbox.shell import Grammar

Argv = tuple[str | None, ...]
V = Takes.VALUE


@dataclass(frozen=True)
class Flag:
    """An option (or argument) a rule covers only by naming it: one of ``names`` or the word."""

    names: frozenset[str]
    token: str
    does: Does | None  # None: not known (or only known when the line runs)


@dataclass(frozen=True)
class Inner:
    """A command a program runs: ``argv[start:end]`` of the program's own words, or a shell
    command ``line`` (read with ``grammar``; ``None``: a shell whose grammar the engine does not
    read, so the line is never allowed). ``tail``: more words are added when it runs (xargs);
    ``placeholder``: words holding it are replaced when it runs (``find -exec … {}``)."""

    start: int = 0
    end: int | None = None
    tail: bool = False
    placeholder: str | None = None
    line: str | None = None
    grammar: Grammar | None = None


@dataclass(frozen=True)
class Reading:
    program: str
    flags: tuple[Flag, ...] = ()
    inners: tuple[Inner, ...] = ()
    #: It runs a command that cannot be found or read (deny rules cannot see it).
    unreadable: bool = False
    #: Never covered by a rule, whatever it names.
    never: Opaque | None = None
    #: The words allow rules are matched against (``None``: as written).
    matched: Argv | None = None
    #: More spellings of the same command for deny and ask rules.
    spellings: tuple[Argv, ...] = ()
    #: Indices of the words naming files it writes (``tee``'s files).
    writes: tuple[int, ...] = ()
    #: Indices of the words naming what it deletes recursively (``rm -r``, ``find … -delete``);
    #: ``maybe_recursive``: a word only known when it runs could make ``rm`` recursive.
    deletes: tuple[int, ...] = ()
    maybe_recursive: bool = False
    #: It deletes the folder it runs in recursively (``find -delete`` without a starting point).
    deletes_here: bool = False
    #: It only reads what it is given (see ``program_options.READS_ONLY``).
    reads_only: bool = False
    #: The engine knows what this program does with its words (an unknown one may run any of
    #: its later words as a command: deny rules look at them too).
    known: bool = True
    #: Values given to its options (``--file=PATH``, ``-fPATH``): words that may name files.
    values: tuple[str, ...] = ()


ELEVATORS = frozenset({"sudo", "doas", "su", "pkexec", "runuser", "run0", "machinectl", "chroot", "nsenter", "ssh"})
#: Run text as shell code, or change how later commands are found or read: never allowed.
EVALUATORS = frozenset({"eval", "source", ".", "trap", "alias", "unalias", "enable", "shopt", "hash", "fc", "coproc",
                        "bind", "complete", "compgen"})
SHELLS = {"bash": Grammar.BASH, "sh": Grammar.POSIX, "dash": Grammar.POSIX, "ash": Grammar.POSIX,
          "zsh": None, "ksh": None, "mksh": None, "yash": None, "fish": None, "csh": None, "tcsh": None}
_PYTHON = re.compile(r"python(3(\.\d+)?)?")
_NO_VALUE = frozenset({Does.NOTHING, Does.SCRIPT})
#: Options after which an interpreter prints something and runs no program.
_INFORMATION = frozenset({"-V", "--version", "-v", "-h", "--help", "-c", "--check", "--help-all", "--help-env",
                          "--help-xoptions"})


def base(program: str | None) -> str | None:
    """``/usr/bin/git`` → ``git`` (a path does not escape a deny)."""
    if program is None:
        return None
    return program.rsplit("/", 1)[-1]


@lru_cache(maxsize=4096)
def read(argv: Argv) -> Reading:
    """How ``argv``'s program reads it (see the module doc). Never raises."""
    reading = _read(argv)
    values = _option_values(argv, reading.program)
    if values:
        reading = _with(reading, values=values)
    if reading.program in table.READS_ONLY and not (reading.flags or reading.inners or reading.writes):
        return _with(reading, reads_only=True)
    return reading


def _option_values(argv: Argv, program: str) -> tuple[str, ...]:
    """The values of ``argv``'s options, read with the program's table where there is one
    (``-fPATH``), else from ``--name=value`` words."""
    spec = _VALUE_TABLES.get(program)
    if spec is not None:
        parsed = read_options(argv[1:], spec)
        return tuple(s.value for s in parsed.seen if s.value)
    return tuple(w.partition("=")[2] for w in argv[1:] if w and w.startswith("--") and "=" in w)


def _read(argv: Argv) -> Reading:
    program = base(argv[0]) if argv else None
    if not program:
        return Reading(program="", unreadable=True)
    if program in SHELLS:
        return _shell(argv, program)
    if _PYTHON.fullmatch(program):
        return _python(argv, program)
    reader = _READERS.get(program)
    if reader is not None:
        return reader(argv, program)
    spec = _TABLES.get(program)
    if spec is not None:
        return _generic(argv, spec, program)
    wrapper = _WRAPPERS.get(program)
    if wrapper is not None:
        return _wrapper(argv, program, wrapper)
    if program in EVALUATORS:
        inner = (Inner(line=" ".join(a for a in argv[1:] if a is not None), grammar=Grammar.BASH),) \
            if program in ("eval", "trap") and argv[1:] and all(a is not None for a in argv[1:]) else ()
        return Reading(program, inners=inner, never=Opaque.EVAL)
    if program in table.NAME_BUILTINS:
        return _names(argv, program)
    return Reading(program, known=program in table.READS_ONLY)


# -- generic readers ---------------------------------------------------------------------------
def _flags(parsed: Parsed, spec: OptionSet, offset: int = 1) -> list[Flag]:
    out: list[Flag] = []
    for seen in parsed.seen:
        if seen.option is None:
            if spec.strict:
                out.append(Flag(frozenset({seen.token}), seen.token, None))
        elif seen.option.does not in _NO_VALUE:
            out.append(Flag(frozenset(seen.option.names) | {seen.token}, seen.token, seen.option.does))
    if parsed.dynamic:
        out.append(Flag(frozenset(), "", None))
    return out


def _spellings(argv: Argv, parsed: Parsed, offset: int = 1) -> tuple[Argv, ...]:
    """The command with each option spelled short, long, and long with ``=value`` (in place)."""
    if not parsed.seen:
        return ()
    by_index: dict[int, list[int]] = {}
    for n, seen in enumerate(parsed.seen):
        by_index.setdefault(seen.index + offset, []).append(n)
    forms: list[list[str | None]] = [list(argv[:offset]) for _ in range(3)]
    i = offset
    while i < len(argv):
        found = by_index.get(i)
        if not found:
            for form in forms:
                form.append(argv[i])
            i += 1
            continue
        width = 1
        for n in found:
            seen = parsed.seen[n]
            width = max(width, seen.words)
            names = seen.option.names if seen.option is not None else (seen.token.partition("=")[0],)
            short = next((x for x in names if len(x) == 2 and x[0] == "-" and x[1] != "-"), names[0])
            long = next((x for x in names if x.startswith("--")), names[0])
            value = seen.value
            tail = [] if value is None else [value]
            forms[0] += [short, *tail]
            forms[1] += [long, *tail]
            forms[2] += [f"{long}={value}"] if value is not None and long.startswith("--") else [long, *tail]
        i += width
    return tuple(tuple(f) for f in forms if tuple(f) != tuple(argv))


def _generic(argv: Argv, spec: OptionSet, program: str) -> Reading:
    parsed = read_options(argv[1:], spec)
    return Reading(program, flags=tuple(_flags(parsed, spec)), spellings=_spellings(argv, parsed))


def _with(reading: Reading, **changes: object) -> Reading:
    from dataclasses import replace

    return replace(reading, **changes)  # type: ignore[arg-type]


# -- programs with scripts, subcommands and odd parsers ------------------------------------------
def _sed(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.SED)
    found = _flags(parsed, table.SED)
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
    return Reading(program, flags=tuple(found), spellings=_spellings(argv, parsed))


def _awk(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.AWK)
    found = _flags(parsed, table.AWK)
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
            found.append(Flag(frozenset({token}), token, Does.WRITES))
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


def _tar(argv: Argv, program: str) -> Reading:
    args = list(argv[1:])
    if args and args[0] is not None and not args[0].startswith("-"):
        # Old style: `tar tvf a.tar` is `tar -t -v -f a.tar`.
        letters, rest = args[0], args[1:]
        new: list[str | None] = []
        for letter in letters:
            new.append("-" + letter)
            if letter in table.TAR_OLD_STYLE_VALUES and rest:
                new.append(rest.pop(0))
        args = [*new, *rest]
    reading = _generic((argv[0], *args), table.TAR, program)
    return _with(reading, spellings=(*reading.spellings, (argv[0], *args)))


def _rm(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.RM)
    recursive = any(s.option is not None and "--recursive" in s.option.names for s in parsed.seen)
    operands = tuple(1 + i for i, _ in parsed.operands)
    dynamic = any(v is None for _, v in parsed.operands)
    return Reading(program, spellings=_spellings(argv, parsed), deletes=operands if recursive or dynamic else (),
                   maybe_recursive=dynamic and not recursive)


def _rsync(argv: Argv, program: str) -> Reading:
    """rsync's ``--delete`` empties what of the destination the source lacks: a recursive delete."""
    parsed = read_options(argv[1:], table.RSYNC)
    deleting = any(s.option is not None and any(n.startswith("--delete") for n in s.option.names)
                   for s in parsed.seen)
    destination = (1 + parsed.operands[-1][0],) if deleting and len(parsed.operands) > 1 else ()
    return Reading(program, flags=tuple(_flags(parsed, table.RSYNC)), spellings=_spellings(argv, parsed),
                   deletes=destination)


def _uniq(argv: Argv, program: str) -> Reading:
    """``uniq [INPUT [OUTPUT]]``: the second file is written."""
    parsed = read_options(argv[1:], table.UNIQ)
    output = (1 + parsed.operands[1][0],) if len(parsed.operands) > 1 else ()
    return Reading(program, flags=tuple(_flags(parsed, table.UNIQ)), writes=output,
                   spellings=_spellings(argv, parsed))


def _names(argv: Argv, program: str) -> Reading:
    """bash builtins that take variable names: an array subscript in one is evaluated, so a word
    with ``[`` and an expansion in it runs code (``printf -v 'a[$(cmd)]'``); ``let`` evaluates
    all its words; ``mapfile -C`` runs a callback."""
    found: list[Flag] = []
    for word in argv[1:]:
        if word is None:
            found.append(Flag(frozenset(), "", None))
        elif any(c in word for c in "$`") and ("[" in word or program == "let"):
            found.append(Flag(frozenset({word}), word, Does.RUNS))
        elif program in ("mapfile", "readarray") and word.startswith("-") and "C" in word:
            found.append(Flag(frozenset({word}), word, Does.RUNS))
    return Reading(program, flags=tuple(found), reads_only=not found and program in ("printf", "test", "["))


def _tee(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.TEE)
    return Reading(program, flags=tuple(_flags(parsed, table.TEE)), writes=tuple(1 + i for i, _ in parsed.operands))


def _curl(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.CURL)
    found = _flags(parsed, table.CURL)
    for seen in parsed.seen:
        if seen.option is None or not set(seen.option.names) & table.CURL_FILE_VALUES or seen.value is None:
            continue
        value = seen.value
        if value.startswith(("@", "<")) or "=@" in value or "=<" in value or "%output{" in value:
            found.append(Flag(frozenset({seen.token, value}), seen.token, Does.WRITES))
    return Reading(program, flags=tuple(found), spellings=_spellings(argv, parsed))


def _make(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], table.MAKE)
    found = _flags(parsed, table.MAKE)
    for _i, value in parsed.operands:
        if value is not None and "=" in value:  # `make CC=./evil`: a variable the recipes run
            found.append(Flag(frozenset({value, value.split("=")[0] + "=*"}), value, Does.CONFIG))
    return Reading(program, flags=tuple(found), spellings=_spellings(argv, parsed))


def _pytest(argv: Argv, program: str, offset: int = 1) -> list[Flag]:
    parsed = read_options(argv[offset:], table.PYTEST)
    found = _flags(parsed, table.PYTEST)
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


def _pytest_reading(argv: Argv, program: str) -> Reading:
    return Reading(program, flags=tuple(_pytest(argv, program)))


def _imports_a_warning_category(value: str | None) -> bool:
    """``-W action:message:category``: a dotted category is imported (a module runs)."""
    if value is None:
        return True
    fields = value.split(":")
    return len(fields) >= 3 and "." in fields[2]


def _python(argv: Argv, program: str) -> Reading:
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
                found += _pytest(argv, program, i)
            return Reading(program, flags=tuple(found))
    if (i >= n or argv[i] == "-") and not set(argv[1:i]) & _INFORMATION:  # the program comes from its input
        found.append(Flag(frozenset({"-"}), "-", Does.READS_CODE))
    return Reading(program, flags=tuple(found))


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


def _interpreter(spec: OptionSet, code_options: frozenset[str]) -> Callable[[Argv, str], Reading]:
    """node, perl, ruby: options, then the script (or code given with ``code_options``)."""
    def reader(argv: Argv, program: str) -> Reading:
        parsed = read_options(argv[1:], spec)
        found = _flags(parsed, spec)
        has_code = any(s.option is not None and set(s.option.names) & code_options for s in parsed.seen)
        informational = any(s.token in _INFORMATION for s in parsed.seen)
        if not has_code and not informational and (parsed.rest is None or argv[1 + parsed.rest] == "-"):
            found.append(Flag(frozenset({"-"}), "-", Does.READS_CODE))
        return Reading(program, flags=tuple(found))
    return reader


def _git(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], git.GLOBAL)
    found = _flags(parsed, git.GLOBAL)
    harmless = {s.index + 1 for s in parsed.seen if s.option is not None and set(s.option.names) & git.HARMLESS_GLOBAL}
    matched = tuple(a for k, a in enumerate(argv) if k not in harmless)
    if parsed.rest is None:
        return Reading(program, flags=tuple(found), matched=matched)
    at = 1 + parsed.rest
    sub = argv[at]
    plain = (argv[0], *argv[at:])
    if sub is None:
        return Reading(program, flags=(*found, Flag(frozenset(), "", None)), matched=matched, spellings=(plain,))
    spec = git.SUBCOMMANDS.get(sub)
    spellings: list[Argv] = [plain]
    inners: list[Inner] = []
    if spec is not None:
        sub_parsed = read_options(argv[at + 1:], spec)
        found += _flags(sub_parsed, spec)
        spellings += [(argv[0], *form[at:]) for form in _spellings(argv, sub_parsed, at + 1)]
    else:
        for token in argv[at + 1:]:
            if token == "--":
                break
            if token is None or token.startswith("-"):
                found.append(Flag(frozenset({token or ""} - {""}), token or "", None))
    rest = [k for k in range(at + 1, len(argv)) if argv[k] is None or not (argv[k] or "").startswith("-")]
    if rest and (sub, argv[rest[0]]) in git.RUNS_A_COMMAND_LINE:
        words = [argv[k] for k in rest[1:]]
        line = None if any(w is None for w in words) else " ".join(w for w in words if w is not None)
        inners.append(Inner(line=line or "", grammar=Grammar.POSIX))
    if rest and (sub, argv[rest[0]]) in git.RUNS_A_COMMAND and len(rest) > 1:
        inners.append(Inner(start=rest[1]))
    found += _git_changes(argv, at, sub)
    reads_only = sub in git.READS_ONLY and not found and not inners
    return Reading(program, flags=tuple(found), inners=tuple(inners), matched=matched, spellings=tuple(spellings),
                   reads_only=reads_only)


def _git_changes(argv: Argv, at: int, sub: str) -> list[Flag]:
    """What a read-looking subcommand changes: ``git branch NAME`` creates a branch, ``-D``
    deletes one, ``git remote add`` adds a remote, ``git stash`` stashes (see ``git_options``)."""
    words = argv[at + 1:]
    options = [w for w in words if w is not None and w.startswith("-")]
    operands = [w for w in words if w is None or not w.startswith("-")]
    spec = git.SUBCOMMANDS.get(sub)

    def spelled(token: str) -> set[str]:
        name = token.partition("=")[0]
        option = None
        if spec is not None and name.startswith("--"):
            option = spec.long(name)[0]
        elif spec is not None and len(name) >= 2:
            option = spec.short(name[1])
        return set(option.names) if option is not None else {name}

    found: list[Flag] = []
    if sub in git.CHANGING:
        for token in options:
            if spelled(token) & git.CHANGING[sub]:
                found.append(Flag(frozenset({token}), token, Does.WRITES))
        listing = any(spelled(t) & git.LISTING[sub] for t in options)
        if operands and not listing and not found:
            found += [Flag(frozenset({w or ""} - {""}), w or "", Does.WRITES) for w in operands[:1]]
    if sub in git.READING_ACTIONS:
        action = operands[0] if operands else None
        reads = action in git.READING_ACTIONS[sub] if action is not None else sub in git.READS_WITHOUT_ACTION
        if not reads:
            found.append(Flag(frozenset({action or sub}), action or sub, Does.WRITES))
    return found


def _env(argv: Argv, program: str) -> Reading:
    from echo_desk.agent.permissions.shell import INERT_ASSIGNMENTS, inert_value

    parsed = read_options(argv[1:], _ENV, stop_after=0)
    found = _flags(parsed, _ENV)
    inners: list[Inner] = []
    for seen in parsed.seen:
        if seen.option is not None and "-S" in seen.option.names:
            found.append(Flag(frozenset({"-S", seen.token}), seen.token, Does.RUNS))
            inners.append(Inner(line=seen.value or "", grammar=None))
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    while start < len(argv):
        word = argv[start]
        if word is None:
            return Reading(program, flags=(*found, Flag(frozenset(), "", None)), unreadable=True)
        name, eq, value = word.partition("=")
        if not eq:
            break
        if name not in INERT_ASSIGNMENTS or not inert_value(value):
            found.append(Flag(frozenset({word}), word, Does.CONFIG))
        start += 1
    if start < len(argv):
        inners.append(Inner(start=start))
    return Reading(program, flags=tuple(found), inners=tuple(inners))


def _xargs(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _XARGS)
    found = _flags(parsed, _XARGS)
    replace = None
    for seen in parsed.seen:
        names = set(seen.option.names) if seen.option is not None else set()
        if names & {"-I", "-i", "--replace"}:
            replace = seen.value or "{}"
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    if start >= len(argv):
        return Reading(program, flags=tuple(found))  # runs `echo` with the input
    return Reading(program, flags=tuple(found), inners=(Inner(start=start, tail=replace is None,
                                                              placeholder=replace),))


def _shell(argv: Argv, program: str) -> Reading:
    """``bash [options] -c LINE [name [args]]``; a shell reading a script or its input runs code
    the rules cannot see."""
    found: list[Flag] = []
    command_mode = False
    i, n = 1, len(argv)
    while i < n:
        token = argv[i]
        if token is None:
            return Reading(program, flags=(*found, Flag(frozenset(), "", None)), unreadable=True)
        if token in ("-", "--"):
            i += 1
            break
        if not token.startswith(("-", "+")) or len(token) < 2:
            break
        if token.startswith("--"):
            if token not in table.SHELL_SAFE_LONG:
                found.append(Flag(frozenset({token}), token, Does.READS_CODE if token in ("--rcfile", "--init-file")
                                  else None))
                i += 2 if token in ("--rcfile", "--init-file") else 1
                continue
            i += 1
            continue
        letters = token[1:]
        if letters in ("o", "O"):
            value = argv[i + 1] if i + 1 < n else None
            if not (letters == "o" and value in table.SET_SAFE_NAMES):
                found.append(Flag(frozenset({token, f"{token} {value}"}), token, Does.CONFIG))
            i += 2
            continue
        command_mode = command_mode or (token[0] == "-" and "c" in letters)
        unsafe = [c for c in letters if c not in table.SHELL_SAFE_FLAGS]
        if unsafe and token[0] == "-":
            found.append(Flag(frozenset({token}), token, Does.CONFIG))
        i += 1
    grammar = SHELLS.get(program)
    if command_mode and i < n:
        line = argv[i]
        found.append(Flag(frozenset({"-c"}), "-c", Does.RUNS))
        if line is None:
            return Reading(program, flags=tuple(found), unreadable=True)
        return Reading(program, flags=tuple(found), inners=(Inner(line=line, grammar=grammar),))
    # A script file, or commands from standard input: code the rules cannot read.
    what = argv[i] if i < n else "-"
    found.append(Flag(frozenset({what or "-"}), what or "-", Does.READS_CODE))
    return Reading(program, flags=tuple(found), unreadable=True)


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


def _command(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _COMMAND)
    if any(s.option is not None and set(s.option.names) & {"-v", "-V"} for s in parsed.seen):
        return Reading(program)  # only says what the name is
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    inners = (Inner(start=start),) if start < len(argv) else ()
    return Reading(program, flags=tuple(_flags(parsed, _COMMAND)), inners=inners)


def _flock(argv: Argv, program: str) -> Reading:
    """``flock [opts] FILE CMD…`` or ``flock [opts] FILE -c LINE`` (run by $SHELL)."""
    parsed = read_options(argv[1:], _FLOCK, stop_after=1)
    found = _flags(parsed, _FLOCK)
    inners = [Inner(line=s.value or "", grammar=None) for s in parsed.seen
              if s.option is not None and s.option.does is Does.SHELL]
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    if start < len(argv):
        if argv[start] in ("-c", "--command"):
            line = argv[start + 1] if start + 1 < len(argv) else ""
            inners.append(Inner(line=line, grammar=None) if line is not None else Inner(line="", grammar=None))
        else:
            inners.append(Inner(start=start))
    return Reading(program, flags=tuple(found), inners=tuple(inners))


def _script(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _SCRIPT)
    found = _flags(parsed, _SCRIPT)
    inners = tuple(Inner(line=s.value or "", grammar=None) for s in parsed.seen
                   if s.option is not None and s.option.does is Does.SHELL)
    return Reading(program, flags=tuple(found), inners=inners, writes=tuple(1 + i for i, _ in parsed.operands))


def _watch(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _WATCH)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    words = argv[start:]
    if not words:
        return Reading(program, flags=tuple(_flags(parsed, _WATCH)))
    if any(s.option is not None and "-x" in s.option.names for s in parsed.seen):
        return Reading(program, flags=tuple(_flags(parsed, _WATCH)), inners=(Inner(start=start),))
    if any(w is None for w in words):
        return Reading(program, flags=tuple(_flags(parsed, _WATCH)), unreadable=True)
    line = " ".join(w for w in words if w is not None)  # watch runs its words with `sh -c`
    return Reading(program, flags=tuple(_flags(parsed, _WATCH)), inners=(Inner(line=line, grammar=Grammar.POSIX),))


def _su(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _SU)
    inners = tuple(Inner(line=s.value or "", grammar=None) for s in parsed.seen
                   if s.option is not None and s.option.does is Does.SHELL)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    if not inners and program == "runuser" and start < len(argv):
        inners = (Inner(start=start),)
    return Reading(program, inners=inners, never=Opaque.ELEVATION)


def _ssh(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _SSH, stop_after=1)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    words = argv[start:]
    if not words:
        return Reading(program, never=Opaque.ELEVATION)
    line = None if any(w is None for w in words) else " ".join(w for w in words if w is not None)
    return Reading(program, inners=(Inner(line=line or "", grammar=None),), never=Opaque.ELEVATION,
                   unreadable=line is None)


def _runner(subcommands: frozenset[str], spec: OptionSet) -> Callable[[Argv, str], Reading]:
    """``uv run CMD``, ``poetry run CMD``, ``npm exec CMD``…: a package tool whose subcommand runs
    a command; its other subcommands are read with ``spec`` (npm's options for npm)."""
    def reader(argv: Argv, program: str) -> Reading:
        parsed = read_options(argv[1:], table.NPM if program in _PACKAGE_MANAGERS else _RUNNER_OPTIONS)
        first = parsed.rest if parsed.rest is not None else parsed.operands[0][0] if parsed.operands else None
        if first is None or argv[1 + first] not in subcommands:
            return _generic(argv, spec, program)
        at = 1 + first
        inner = read_options(argv[at + 1:], _RUNNER_OPTIONS)
        found = _flags(parsed, spec) + _flags(inner, _RUNNER_OPTIONS)
        if inner.rest is None:
            unknown = any(s.option is None for s in inner.seen)
            return Reading(program, flags=tuple(found), unreadable=unknown)
        return Reading(program, flags=tuple(found), inners=(Inner(start=at + 1 + inner.rest),))
    return reader


def _wrapper(argv: Argv, program: str, wrapper: _Wrapper) -> Reading:
    parsed = read_options(argv[1:], wrapper.spec, stop_after=wrapper.leading)
    found = _flags(parsed, wrapper.spec)
    never = Opaque.ELEVATION if program in ELEVATORS else None
    if any(s.option is not None and set(s.option.names) & wrapper.no_command for s in parsed.seen):
        return Reading(program, flags=tuple(found), never=never)
    if any(v is None for _, v in parsed.operands) or any(s.option is None for s in parsed.seen):
        # Where the command starts is not known.
        return Reading(program, flags=tuple(found), never=never, unreadable=True)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    inners = (Inner(start=start),) if start < len(argv) else ()
    return Reading(program, flags=tuple(found), inners=inners, never=never)


@dataclass(frozen=True)
class _Wrapper:
    spec: OptionSet
    leading: int = 0  # operands before the command (timeout's duration, flock's file)
    no_command: frozenset[str] = field(default_factory=frozenset)  # options after which nothing runs


_HELP = flags("--help --version -h -V")
_ENV = OptionSet((*flags("-i|--ignore-environment|- -0|--null -v|--debug --list-signal-handling"),
                  opt("-u --unset", V), opt("-C --chdir", V, Does.CONFIG), opt("-S --split-string", V),
                  opt("--block-signal --default-signal --ignore-signal", Takes.OPTIONAL), *_HELP), permute=False)
_XARGS = OptionSet((*flags("-0|--null -p|--interactive -r|--no-run-if-empty --show-limits -t|--verbose -x|--exit "
                           "-o|--open-tty"),
                    *values("-a|--arg-file -d|--delimiter -E -I -L -n|--max-args -P|--max-procs -s|--max-chars "
                            "--process-slot-var"),
                    *(opt(n, Takes.OPTIONAL) for n in ("-e --eof", "-i --replace", "-l --max-lines")), *_HELP),
                   permute=False)
_COMMAND = OptionSet(flags("-p -v -V"), permute=False, abbreviations=False)
_FLOCK = OptionSet((*flags("-s|--shared -x|-e|--exclusive -u|--unlock -n|--nb|--nonblock -o|--close -F|--no-fork "
                           "--verbose"),
                    *values("-w|--wait|--timeout -E|--conflict-exit-code"), opt("-c --command", V, Does.SHELL),
                    *_HELP), permute=False)
_SCRIPT = OptionSet((*flags("-a|--append -e|--return -f|--flush --force -q|--quiet"),
                     *values("-E|--echo -m|--logging-format -o|--output-limit"),
                     opt("-c --command", V, Does.SHELL), opt("-B --log-io -I --log-in -O --log-out -T --log-timing",
                                                             V, Does.WRITES),
                     opt("-t --timing", Takes.OPTIONAL, Does.WRITES), *_HELP))
_WATCH = OptionSet((*flags("-b|--beep -c|--color -C|--no-color -e|--errexit -g|--chgexit -p|--precise -t|--no-title "
                           "-w|--no-wrap -x|--exec -r|--no-rerun"),
                    opt("-d --differences", Takes.OPTIONAL), *values("-n|--interval -q|--equexit"), *_HELP),
                   permute=False)
_SU = OptionSet((*flags("-l|--login -m|-p|--preserve-environment -P|--pty -f|--fast -"),
                 *values("-s|--shell -g|--group -G|--supp-group -w|--whitelist-environment -u|--user"),
                 opt("-c --command -C --session-command", V, Does.SHELL), *_HELP), permute=False)
_SSH = OptionSet((*flags("-4 -6 -A -a -C -f -G -g -K -k -M -N -n -q -s -T -t -V -v -X -x -Y -y"),
                  *values("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w")), permute=False)
_RUNNER_OPTIONS = OptionSet((
    *flags("-q|--quiet -v|--verbose --frozen --locked --no-sync --isolated --no-project --offline --active "
           "--all-packages --no-dev --only-dev --script -s --exact --no-editable -y|--yes --no"),
    *values("--with --python -p --project --directory --extra --group --package --with-requirements "
            "--with-editable -n --name --prefix --env -e --package-name"),
    opt("--env-file", V, Does.READS_CODE), opt("-c --call", V, Does.SHELL), *_HELP,
), permute=False)
_PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn"})

_WRAPPERS: dict[str, _Wrapper] = {
    "nice": _Wrapper(OptionSet((opt("-n --adjustment", V), *_HELP), permute=False, numbers=True)),
    "timeout": _Wrapper(OptionSet((*values("-s|--signal -k|--kill-after"),
                                   *flags("--preserve-status --foreground -v|--verbose"), *_HELP), permute=False), 1),
    "taskset": _Wrapper(OptionSet((*flags("-a|--all-tasks -c|--cpu-list -p|--pid"), *_HELP), permute=False), 1,
                        frozenset({"-p", "--pid"})),
    "chrt": _Wrapper(OptionSet((*flags("-a|--all-tasks -b|--batch -d|--deadline -f|--fifo -i|--idle -o|--other "
                                       "-r|--rr -m|--max -p|--pid -R|--reset-on-fork -v|--verbose"),
                                *values("-T|--sched-runtime -P|--sched-period -D|--sched-deadline"), *_HELP),
                               permute=False), 1, frozenset({"-p", "--pid", "-m", "--max"})),
    "busybox": _Wrapper(OptionSet((), permute=False)),
    "unshare": _Wrapper(OptionSet((
        *(opt(n, Takes.OPTIONAL) for n in ("-m --mount", "-u --uts", "-i --ipc", "-n --net", "-p --pid",
                                           "-U --user", "-C --cgroup", "-T --time", "--kill-child", "--mount-proc",
                                           "--mount-binfmt")),
        *flags("-f|--fork -r|--map-root-user -c|--map-current-user --map-auto --keep-caps"),
        *values("--map-user --map-group --map-users --map-groups --propagation --setgroups -R|--root -w|--wd "
                "-S|--setuid -G|--setgid --monotonic --boottime -l|--load-interp"), *_HELP), permute=False)),
    "nohup": _Wrapper(OptionSet(_HELP, permute=False)),
    "stdbuf": _Wrapper(OptionSet((*values("-i|--input -o|--output -e|--error"), *_HELP), permute=False)),
    "ionice": _Wrapper(OptionSet((*values("-c|--class -n|--classdata"), *flags("-t|--ignore -p|--pid -P|--pgid "
                                                                             "-u|--uid"), *_HELP), permute=False),
                       0, frozenset({"-p", "--pid", "-P", "--pgid", "-u", "--uid"})),
    "setsid": _Wrapper(OptionSet((*flags("-c|--ctty -f|--fork -w|--wait"), *_HELP), permute=False)),
    "sudo": _Wrapper(OptionSet((*flags("-A -b -H -i -K -k -l -n -P -S -s -v --login --shell --non-interactive"),
                                opt("-E --preserve-env", Takes.OPTIONAL),
                                *values("-C -D -g -h -p -R -r -T -t -U -u --user --group --chdir --chroot"), *_HELP),
                               permute=False), 0, frozenset({"-e", "-l", "-v", "-k", "-K"})),
    "doas": _Wrapper(OptionSet((*flags("-n -s -L"), *values("-u -C")), permute=False)),
    "pkexec": _Wrapper(OptionSet((*values("--user"), *flags("--disable-internal-agent --keep-cwd")), permute=False)),
    "run0": _Wrapper(OptionSet((*values("-u --user -g --group -D --chdir --description --slice --unit "
                                        "--property --nice --setenv"), *flags("--no-ask-password")), permute=False)),
    "chroot": _Wrapper(OptionSet((*values("--groups --userspec"), *flags("--skip-chdir"), *_HELP), permute=False), 1),
    "time": _Wrapper(OptionSet((opt("-f --format", V), opt("-o --output", V, Does.WRITES),
                                *flags("-a|--append -p|--portability -v|--verbose -q|--quiet"), *_HELP),
                               permute=False)),
    "exec": _Wrapper(OptionSet((*flags("-c -l"), *values("-a")), permute=False, abbreviations=False)),
    "builtin": _Wrapper(OptionSet((), permute=False, strict=False)),
    "strace": _Wrapper(OptionSet((*flags("-f -ff -c -C -d -D -h -i -k -n -q -qq -r -t -tt -ttt -T -v -V -w -x -xx "
                                         "-y -yy -z -Z --follow-forks --summary-only"),
                                  *values("-e -p -s -S -u -E -P -a -b -I -O -X --trace --signal --string-limit"),
                                  opt("-o --output", V, Does.WRITES)), permute=False)),
    "ltrace": _Wrapper(OptionSet((*flags("-f -C -i -r -S -t -tt -ttt -T -w -b -h -V"),
                                  *values("-e -a -n -p -s -u -L -x -l -F"), opt("-o --output", V, Does.WRITES)),
                                 permute=False)),
    "nsenter": _Wrapper(OptionSet((*(opt(n, Takes.OPTIONAL) for n in ("-m --mount", "-u --uts", "-i --ipc",
                                                                     "-n --net", "-p --pid", "-U --user",
                                                                     "-C --cgroup", "-T --time", "-r --root",
                                                                     "-w --wd")),
                                   *values("-t --target -S --setuid -G --setgid"), *flags("-a --all -F --no-fork "
                                                                                           "--preserve-credentials")),
                                  permute=False)),
    "unbuffer": _Wrapper(OptionSet(flags("-p"), permute=False)),
    "chronic": _Wrapper(OptionSet(flags("-v -e"), permute=False)),
    "caffeinate": _Wrapper(OptionSet((*flags("-d -i -m -s -u"), *values("-t -w")), permute=False)),
    "firejail": _Wrapper(OptionSet((), permute=False)),
    "systemd-run": _Wrapper(OptionSet((), permute=False)),
    # Less common wrappers, read leniently: an option they do not know makes the command they
    # run unreadable (deny rules then ask).
    **{name: _Wrapper(OptionSet((), permute=False)) for name in (
        "xvfb-run", "dbus-run-session", "torsocks", "proxychains", "proxychains4", "fakeroot", "trickle",
        "catchsegv", "valgrind", "entr", "cpulimit", "ts")},
    "faketime": _Wrapper(OptionSet((*flags("-f -m"), *values("-p")), permute=False), 1),
    "prlimit": _Wrapper(table.PRLIMIT, 0, frozenset({"-p", "--pid"})),
    "setpriv": _Wrapper(table.SETPRIV),
    "sg": _Wrapper(OptionSet((), permute=False), 1),
}

_RUNNERS = {
    "uv": frozenset({"run", "tool"}), "poetry": frozenset({"run"}), "pipenv": frozenset({"run"}),
    "pdm": frozenset({"run"}), "hatch": frozenset({"run"}), "conda": frozenset({"run"}),
    "bundle": frozenset({"exec"}), "npm": frozenset({"exec", "x"}), "pnpm": frozenset({"exec", "dlx"}),
    "yarn": frozenset({"exec", "dlx"}),
}

_READERS: dict[str, Callable[[Argv, str], Reading]] = {
    "sed": _sed, "gsed": _sed, "awk": _awk, "gawk": _awk, "mawk": _awk, "nawk": _awk, "find": _find, "tar": _tar,
    "gtar": _tar, "rm": _rm, "rsync": _rsync, "tee": _tee, "uniq": _uniq, "curl": _curl, "make": _make, "gmake": _make, "git": _git,
    "pytest": _pytest_reading, "py.test": _pytest_reading, "env": _env, "xargs": _xargs, "set": _set,
    "command": _command, "flock": _flock, "script": _script, "watch": _watch, "su": _su, "runuser": _su,
    "ssh": _ssh,
    "node": _interpreter(table.NODE, frozenset({"-e", "-p", "--eval", "--print"})),
    "perl": _interpreter(table.PERL, frozenset({"-e", "-E"})),
    "ruby": _interpreter(table.RUBY, frozenset({"-e"})),
    "npx": lambda argv, program: _wrapper(argv, program, _Wrapper(_RUNNER_OPTIONS)),
    **{name: _runner(subs, table.NPM if name in _PACKAGE_MANAGERS else OptionSet((), strict=False))
       for name, subs in _RUNNERS.items()},
}
_TABLES: dict[str, OptionSet] = {
    "sort": table.SORT, "grep": table.GREP, "egrep": table.GREP, "fgrep": table.GREP, "rg": table.RG,
    "file": table.FILE, "date": table.DATE,
}
#: Tables to read option values with (words that may name files), by program.
_VALUE_TABLES: dict[str, OptionSet] = {
    **_TABLES, "sed": table.SED, "gsed": table.SED, "awk": table.AWK, "gawk": table.AWK, "tar": table.TAR,
    "curl": table.CURL, "rsync": table.RSYNC, "make": table.MAKE, "uniq": table.UNIQ, "tee": table.TEE,
    "pytest": table.PYTEST,
}
