"""What the engine knows a program does with its words (``Reading``), and the generic reading of
a program by its option table (``read_generic``), shared by the per-program readers."""

from __future__ import annotations

from dataclasses import dataclass, replace

from echo_desk.agent.permissions.model import Opaque
from echo_desk.agent.permissions.options import Does, OptionSet, Parsed, Seen, Takes, read_options
from echo_desk.sandbox.shell import Grammar

Argv = tuple[str | None, ...]
#: Options a rule's ``**`` covers (the others are flagged).
NO_VALUE = frozenset({Does.NOTHING, Does.SCRIPT})


@dataclass(frozen=True)
class Flag:
    """An option (or argument) a rule covers only by naming it: one of ``names`` or the word."""

    names: frozenset[str]
    token: str
    does: Does | None  # None: not known (or only known when the line runs)
    #: It writes the file its value names (``sort -o F``): ``path`` (``None``: only known when
    #: the line runs), which the write rules judge even where a rule names the option.
    writes_path: bool = False
    path: str | None = None
    #: A setting the line gives the program (``git -c key=value``): naming the option trusts it,
    #: not every setting; a rule names the setting only with its key written out
    #: (``tokens.names_setting``: ``color.ui=*``), since many settings run a program.
    setting: str | None = None


@dataclass(frozen=True)
class Inner:
    """A command a program runs: ``argv[start:end]`` of the program's own words, or a shell
    command ``line`` (read with ``grammar``; ``None``: a shell whose grammar the engine does not
    read, so the line is never allowed). ``tail``: more words are added when it runs (xargs);
    ``placeholder``: words holding it are replaced when it runs (``find -exec … {}``).
    ``from_input``: what fills them is read from the input (xargs), so it may be anything, an
    option included (``echo --pre=rm | xargs -I{} rg {} x``); find's ``{}`` is a path it found.
    ``elsewhere``: it runs in folders only known when it runs (``git submodule foreach``: each
    submodule's), so a relative path in it is not the one the line's folder gives.
    ``environment``: the variables the program gives it (``env NAME=value CMD``; a value of
    ``None``: unset), ``cleared``: with none of its own (``env -i``); see ``line_environment``.
    ``folders``: the folders the program changes into before it runs it, each from the last
    (``env -C DIR CMD``: ``None``, one only known when the line runs).
    ``once``: the program runs it once at most (``env``, ``nice``, ``timeout``), where another
    may run it again and again (``xargs``, ``find -exec``, ``watch``): a command run twice may
    act on what its first run changed (``git add`` staging a submodule, see ``git_index``).
    ``editor``: the editor git or hg starts where no word of the line names it (``editor_starts``);
    the verdict adds the one the settings where the line runs name (``editor_settings``)."""

    start: int = 0
    end: int | None = None
    tail: bool = False
    placeholder: str | None = None
    from_input: bool = False
    line: str | None = None
    grammar: Grammar | None = None
    elsewhere: bool = False
    environment: tuple[tuple[str, str | None], ...] = ()
    cleared: bool = False
    folders: tuple[str | None, ...] = ()
    once: bool = False
    editor: bool = False


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
    #: Paths it removes or moves away whole, each file below with it, given as paths rather than
    #: words (``git rm -r DIR``, ``git mv DIR NEW``, read from where ``-C`` leads; ``None``: only
    #: known when it runs): ``removed_folders``.
    removed: tuple[str | None, ...] = ()
    #: Paths it moves whole, each with the folder it lands in or as (``git mv DIR NEW``, from
    #: where ``-C`` leads; ``None``: only known when it runs): ``removed_folders.landings``.
    landed: tuple[tuple[str | None, str | None], ...] = ()
    #: It only reads what it is given (see ``program_options.READS_ONLY``).
    reads_only: bool = False
    #: The engine knows what this program does with its words (an unknown one may run any of
    #: its later words as a command: deny rules look at them too).
    known: bool = True
    #: Values given to its options (``--file=PATH``, ``-fPATH``): words that may name files.
    values: tuple[str, ...] = ()
    #: Paths a writing option writes (``sort -o F``, ``tar -czf F``, the files of ``sed -i``;
    #: ``None``: only known when it runs) and folders it writes anywhere below (``tar -x`` into
    #: ``-C DIR`` or the folder it runs in): the write rules judge them even where a rule names
    #: the option — naming it trusts the option, not every place it may write.
    written: tuple[str | None, ...] = ()
    written_below: tuple[str | None, ...] = ()
    #: Files and folders it rewrites in place, what a rule naming it is for (``ruff check
    #: --fix src``): trusted inside the workspace; anywhere else (``ruff check --fix ~/proj``, a
    #: link out of the workspace) the line asks.
    rewritten: tuple[str | None, ...] = ()
    #: Files it writes in the nearest folder, at or above the one it runs in, that holds the
    #: first of them (``go mod tidy``: the go.mod go finds by walking up, and its go.sum; none
    #: found: the folder it runs in). Only the file system tells where that is: the write
    #: rules judge the files there.
    written_nearest: tuple[str, ...] = ()
    #: It reads commands from its standard input when that is not a terminal (ed always, vim
    #: keys, or Ex commands with -e: ``!cmd`` runs a shell command, ``w FILE`` writes): a rule
    #: covers it only where the line gives it no input (``printf '!cmd\n' | ed a.txt``).
    commands_from_input: bool = False
    #: The same command as the program it runs, judged by that program's allow rules with that
    #: program's own reading (``python -m pip config list`` is ``pip config list``: see
    #: ``interpreters.MODULE_PROGRAMS``). The settings it reads are still its own.
    program_form: Argv | None = None


def flags_of(parsed: Parsed, spec: OptionSet, offset: int = 1) -> list[Flag]:
    out: list[Flag] = []
    for seen in parsed.seen:
        if seen.option is None:
            if spec.strict:
                out.append(Flag(frozenset({seen.token}), seen.token, None))
        elif seen.option.does not in NO_VALUE:
            out.append(Flag(frozenset(seen.option.names) | {seen.token}, seen.token, seen.option.does,
                            *_written_value(seen)))
    if parsed.dynamic:
        out.append(Flag(frozenset(), "", None))
    return out


def _written_value(seen: Seen) -> tuple[bool, str | None]:
    """Whether an option writes where its value says (``sort -o F``, ``tree -o F``, ``curl -o F``,
    ``awk -oF``), and the value. An in-place option's optional value (``sed -i.bak``, ``perl -i``)
    is a suffix, not a path (see ``programs``)."""
    option = seen.option
    if option is None or option.does is not Does.WRITES or option.takes is Takes.NOTHING:
        return False, None
    if option.takes is Takes.OPTIONAL and (seen.value is None or "-i" in option.names):
        return False, None
    return True, seen.value


def written_of(parsed: Parsed) -> tuple[str | None, ...]:
    """The values of the options that write where their value says: paths the write rules judge."""
    return tuple(path for writes, path in map(_written_value, parsed.seen) if writes)


def spellings_of(argv: Argv, parsed: Parsed, offset: int = 1) -> tuple[Argv, ...]:
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


def read_generic(argv: Argv, spec: OptionSet, program: str) -> Reading:
    parsed = read_options(argv[1:], spec)
    return Reading(program, flags=tuple(flags_of(parsed, spec)), spellings=spellings_of(argv, parsed))


def with_changes(reading: Reading, **changes: object) -> Reading:
    return replace(reading, **changes)  # type: ignore[arg-type]
