"""Wrappers: programs that run their arguments (or a shell line) as a command — ``env``,
``timeout``, ``xargs``, ``sudo``, ``flock -c``, ``watch``, ``bash -c``, ``uv run``… Each is read
with its own options so the command it runs is found exactly (``Reading.inners``); an option a
wrapper does not know makes that command unreadable (deny rules then ask)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.data_variables import reads_as_data
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
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading, flags_of, read_generic
from echo_desk.sandbox.shell import Grammar

V = Takes.VALUE
ELEVATORS = frozenset({"sudo", "doas", "su", "pkexec", "runuser", "run0", "machinectl", "chroot", "nsenter", "ssh"})
SHELLS = {"bash": Grammar.BASH, "sh": Grammar.POSIX, "dash": Grammar.POSIX, "ash": Grammar.POSIX,
          "zsh": None, "ksh": None, "mksh": None, "yash": None, "fish": None, "csh": None, "tcsh": None}


def env_reading(argv: Argv, program: str) -> Reading:
    from echo_desk.agent.permissions.shell import INERT_ASSIGNMENTS, inert_value

    parsed = read_options(argv[1:], _ENV, stop_after=0)
    found = flags_of(parsed, _ENV)
    inners: list[Inner] = []
    for seen in parsed.seen:
        if seen.option is not None and "-S" in seen.option.names:
            found.append(Flag(frozenset({"-S", seen.token}), seen.token, Does.RUNS))
            inners.append(Inner(line=seen.value or "", grammar=None))
        if seen.option is not None and ("-i" in seen.option.names or ("-u" in seen.option.names
                                                                       and seen.value in (None, "PATH"))):
            # The command runs without PATH: bash started below it (`env -i bash -c tree`, also
            # through nice, xargs, find -exec…) searches its built-in path, which ends with '.',
            # so a program the line names but this machine lacks there runs from the folder.
            found.append(Flag(frozenset({seen.token}), seen.token, Does.CONFIG))
    # What it gives the command (see line_environment): -u's names unset, then NAME=value.
    given: list[tuple[str, str | None]] = [(s.value, None) for s in parsed.seen if s.option is not None
                                           and "-u" in s.option.names and s.value is not None]
    cleared = any(s.option is not None and "-i" in s.option.names for s in parsed.seen)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    assigned: list[str] = []
    while start < len(argv):
        word = argv[start]
        if word is None:
            return Reading(program, flags=(*found, Flag(frozenset(), "", None)), unreadable=True)
        name, eq, value = word.partition("=")
        if not eq:
            break
        assigned.append(word)
        given.append((name, value))
        start += 1
    runs = argv[start:]
    for word in assigned:
        name, _, value = word.partition("=")
        if not inert_value(value) or (name not in INERT_ASSIGNMENTS and not reads_as_data(runs, name)):
            found.append(Flag(frozenset({word}), word, Does.CONFIG))
    # (-C: the command runs in that folder, as after a cd there; judged so by shell_verdict)
    folders = tuple(s.value for s in parsed.seen if s.option is not None and "-C" in s.option.names)
    if start < len(argv):
        inners.append(Inner(start=start, environment=tuple(given), cleared=cleared, folders=folders, once=True))
    return Reading(program, flags=tuple(found), inners=tuple(inners))


def xargs_reading(argv: Argv, program: str) -> Reading:
    from echo_desk.agent.permissions.shell import INERT_ASSIGNMENTS

    parsed = read_options(argv[1:], _XARGS)
    found = flags_of(parsed, _XARGS)
    replace = None
    for seen in parsed.seen:
        names = set(seen.option.names) if seen.option is not None else set()
        if names & {"-I", "-i", "--replace"}:
            replace = seen.value or "{}"
        if "--process-slot-var" in names and seen.value not in INERT_ASSIGNMENTS:
            # The command runs with that variable set (to the slot's number): a variable that
            # names a file read relative to the folder (LESSKEYIN=0, GIT_CONFIG_GLOBAL=0) is
            # settings the command takes from a file the rules may let the agent write; like
            # `env NAME=value`, a rule must name it.
            found.append(Flag(frozenset({seen.token}), seen.token, Does.CONFIG))
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    if start >= len(argv):
        return Reading(program, flags=tuple(found))  # runs `echo` with the input
    slot = tuple((s.value, "0") for s in parsed.seen if s.option is not None and s.value is not None
                 and "--process-slot-var" in s.option.names)
    return Reading(program, flags=tuple(found), inners=(Inner(start=start, tail=replace is None,
                                                              placeholder=replace, from_input=True,
                                                              environment=slot),))


def shell_reading(argv: Argv, program: str) -> Reading:
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



def command_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _COMMAND)
    if any(s.option is not None and set(s.option.names) & {"-v", "-V"} for s in parsed.seen):
        return Reading(program)  # only says what the name is
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    inners = (Inner(start=start),) if start < len(argv) else ()
    return Reading(program, flags=tuple(flags_of(parsed, _COMMAND)), inners=inners)


def flock_reading(argv: Argv, program: str) -> Reading:
    """``flock [opts] FILE CMD…`` or ``flock [opts] FILE -c LINE`` (run by $SHELL)."""
    parsed = read_options(argv[1:], _FLOCK, stop_after=1)
    found = flags_of(parsed, _FLOCK)
    inners = [Inner(line=s.value or "", grammar=None) for s in parsed.seen
              if s.option is not None and s.option.does is Does.SHELL]
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    # The lock file is created where it does not exist (opened O_CREAT: `flock .envrc true`
    # made an empty .envrc); a number alone names a descriptor the shell opened.
    lock = parsed.operands[0] if parsed.operands else None
    writes = (1 + lock[0],) if lock is not None and not (start >= len(argv) and (lock[1] or "").isdigit()) else ()
    if start < len(argv):
        if argv[start] in ("-c", "--command"):
            line = argv[start + 1] if start + 1 < len(argv) else ""
            inners.append(Inner(line=line, grammar=None) if line is not None else Inner(line="", grammar=None))
        else:
            inners.append(Inner(start=start))
    return Reading(program, flags=tuple(found), inners=tuple(inners), writes=writes)


def script_reading(argv: Argv, program: str) -> Reading:
    """``script [options] [FILE]`` (util-linux 2.38): ``-c LINE`` runs LINE with ``$SHELL``;
    without it script starts an interactive ``$SHELL`` that runs whatever script is given on
    its input (``printf 'touch x\\n' | script -q out/t`` ran touch), as ``ed`` does
    (``Reading.commands_from_input``). It writes its typescript to FILE, ``./typescript``
    when none is given."""
    parsed = read_options(argv[1:], _SCRIPT)
    found = flags_of(parsed, _SCRIPT)
    inners = tuple(Inner(line=s.value or "", grammar=None) for s in parsed.seen
                   if s.option is not None and s.option.does is Does.SHELL)
    if any(s.option is not None and set(s.option.names) & _HELP_NAMES for s in parsed.seen):
        return Reading(program, flags=tuple(found), inners=inners)
    writes = tuple(1 + i for i, _ in parsed.operands)
    return Reading(program, flags=tuple(found), inners=inners, writes=writes,
                   written=() if writes else ("typescript",), commands_from_input=not inners)


def watch_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _WATCH)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    words = argv[start:]
    if not words:
        return Reading(program, flags=tuple(flags_of(parsed, _WATCH)))
    if any(s.option is not None and "-x" in s.option.names for s in parsed.seen):
        return Reading(program, flags=tuple(flags_of(parsed, _WATCH)), inners=(Inner(start=start),))
    if any(w is None for w in words):
        return Reading(program, flags=tuple(flags_of(parsed, _WATCH)), unreadable=True)
    line = " ".join(w for w in words if w is not None)  # watch runs its words with `sh -c`
    return Reading(program, flags=tuple(flags_of(parsed, _WATCH)), inners=(Inner(line=line, grammar=Grammar.POSIX),))


def su_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _SU)
    inners = tuple(Inner(line=s.value or "", grammar=None) for s in parsed.seen
                   if s.option is not None and s.option.does is Does.SHELL)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    if not inners and program == "runuser" and start < len(argv):
        inners = (Inner(start=start),)
    return Reading(program, inners=inners, never=Opaque.ELEVATION)


def ssh_reading(argv: Argv, program: str) -> Reading:
    parsed = read_options(argv[1:], _SSH, stop_after=1)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    words = argv[start:]
    if not words:
        return Reading(program, never=Opaque.ELEVATION)
    line = None if any(w is None for w in words) else " ".join(w for w in words if w is not None)
    return Reading(program, inners=(Inner(line=line or "", grammar=None),), never=Opaque.ELEVATION,
                   unreadable=line is None)


def runner(subcommands: frozenset[str], spec: OptionSet) -> Callable[[Argv, str], Reading]:
    """``poetry run CMD``, ``npm exec CMD``…: a package tool whose subcommand runs
    a command; its other subcommands are read with ``spec`` (npm's options for npm)."""
    def reader(argv: Argv, program: str) -> Reading:
        parsed = read_options(argv[1:], table.NPM if program in PACKAGE_MANAGERS else RUNNER_OPTIONS)
        first = parsed.rest if parsed.rest is not None else parsed.operands[0][0] if parsed.operands else None
        if first is None or argv[1 + first] not in subcommands:
            return read_generic(argv, spec, program)
        at = 1 + first
        inner = read_options(argv[at + 1:], RUNNER_OPTIONS)
        found = flags_of(parsed, spec) + flags_of(inner, RUNNER_OPTIONS)
        if inner.rest is None:
            unknown = any(s.option is None for s in inner.seen)
            return Reading(program, flags=tuple(found), unreadable=unknown)
        return Reading(program, flags=tuple(found), inners=(Inner(start=at + 1 + inner.rest),))
    return reader


#: rustup 1.29's options before its subcommand, and ``rustup run``'s before the toolchain.
_RUSTUP = OptionSet(flags("-v|--verbose -q|--quiet -h|--help -V|--version"), permute=False)
_RUSTUP_RUN = OptionSet(flags("--install -h|--help"), permute=False)


#: ``rustup doc`` (alias ``docs``): its options (clap takes no prefix of a long option).
_RUSTUP_DOC_NAMES = frozenset({"doc", "docs"})
_RUSTUP_DOC = OptionSet((*flags("--path -h|--help --alloc --book --cargo --clippy --core --edition-guide "
                                "--embedded-book --error-codes --nomicon --proc_macro --reference --releases "
                                "--rust-by-example --rustc --rustc-docs --rustdoc --std --style-guide --test "
                                "--unstable-book"), *values("--toolchain")), abbreviations=False)


def rustup_reading(argv: Argv, program: str) -> Reading:
    """``rustup [+TOOLCHAIN] run TOOLCHAIN CMD…`` runs CMD, any program, with the toolchain's
    folder first in its PATH (``rustup run stable touch PWNED``: proven, rustup 1.29): CMD is a
    command of its own. ``rustup doc`` runs a program too (``_rustup_doc``). rustup's other
    subcommands run none the line names (what they write: ``settings_commands``)."""
    at = 2 if len(argv) > 1 and (argv[1] or "").startswith("+") else 1
    parsed = read_options(argv[at:], _RUSTUP)
    unsure = parsed.dynamic or any(s.option is None for s in parsed.seen)
    if parsed.rest is None:
        return Reading(program, unreadable=unsure)
    sub = at + parsed.rest
    if argv[sub] in _RUSTUP_DOC_NAMES or (unsure and any(w in _RUSTUP_DOC_NAMES for w in argv[sub:])):
        return _rustup_doc(argv[sub + 1:], program, sure=not unsure and argv[sub] in _RUSTUP_DOC_NAMES)
    if argv[sub] != "run":
        # (an option not known here may have taken the word before ``run`` as its value)
        return Reading(program, unreadable=argv[sub] is None or (unsure and "run" in argv[sub:]))
    inner = read_options(argv[sub + 1:], _RUSTUP_RUN, stop_after=1)
    if unsure or inner.dynamic or any(s.option is None for s in inner.seen) or any(v is None for _, v in inner.operands):
        return Reading(program, unreadable=True)
    if inner.rest is None:
        return Reading(program)
    return Reading(program, inners=(Inner(start=sub + 1 + inner.rest),))


def _rustup_doc(args: Argv, program: str, sure: bool) -> Reading:
    """``rustup doc`` opens the documentation with ``$BROWSER`` (else xdg-open): a program the
    environment chooses, not the line (proven, rustup 1.29: ``BROWSER=./b.sh rustup doc --std``
    ran b.sh). A rule covers it only by naming ``doc``; ``--path`` only prints where it is."""
    parsed = read_options(args, _RUSTUP_DOC)
    known = sure and not parsed.dynamic and all(s.option is not None for s in parsed.seen)
    if known and any(s.option is not None and "--path" in s.option.names for s in parsed.seen):
        return Reading(program)
    return Reading(program, flags=(Flag(frozenset(_RUSTUP_DOC_NAMES), "doc", Does.RUNS),))


def wrapper_reading(argv: Argv, program: str, wrapper: Wrapper) -> Reading:
    parsed = read_options(argv[1:], wrapper.spec, stop_after=wrapper.leading)
    found = flags_of(parsed, wrapper.spec)
    never = Opaque.ELEVATION if program in ELEVATORS else None
    if any(s.option is not None and set(s.option.names) & wrapper.no_command for s in parsed.seen):
        return Reading(program, flags=tuple(found), never=never)
    if any(v is None for _, v in parsed.operands) or any(s.option is None for s in parsed.seen):
        # Where the command starts is not known.
        return Reading(program, flags=tuple(found), never=never, unreadable=True)
    start = 1 + parsed.rest if parsed.rest is not None else len(argv)
    inners = (Inner(start=start, environment=_given(parsed, wrapper.gives),
                    cleared=any(s.option is not None and wrapper.clears in s.option.names for s in parsed.seen),
                    once=wrapper.once),) \
        if start < len(argv) else ()
    return Reading(program, flags=tuple(found), inners=inners, never=never)


def _given(parsed: Parsed, option: str) -> tuple[tuple[str, str | None], ...]:
    """The variables ``option``'s values give the command a wrapper runs (``strace -E NAME=value``;
    ``-E NAME`` unsets it), see ``line_environment``."""
    given: list[tuple[str, str | None]] = []
    for seen in parsed.seen:
        if option and seen.option is not None and option in seen.option.names and seen.value is not None:
            name, eq, value = seen.value.partition("=")
            given.append((name, value if eq else None))
    return tuple(given)


@dataclass(frozen=True)
class Wrapper:
    spec: OptionSet
    leading: int = 0  # operands before the command (timeout's duration, flock's file)
    no_command: frozenset[str] = field(default_factory=frozenset)  # options after which nothing runs
    gives: str = ""  # the option whose NAME=value the command runs with (strace's -E)
    clears: str = "\0"  # the option after which it runs with an empty environment (exec's -c)
    #: It runs the command once (``Inner.once``): proven with strace, bash and dash, one execve
    #: of the command each (s288; setsid, taskset and chrt s298). unbuffer and chronic are not:
    #: not installed where this was proven.
    once: bool = False


_HELP = flags("--help --version -h -V")
#: Options with which a program only prints its help or version and stops.
_HELP_NAMES = frozenset({"--help", "--version", "-h", "-V"})
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
RUNNER_OPTIONS = OptionSet((
    *flags("-q|--quiet -v|--verbose --frozen --locked --no-sync --isolated --no-project --offline --active "
           "--all-packages --no-dev --only-dev --script -s --exact --no-editable -y|--yes --no"),
    *values("--with --python -p --project --directory --extra --group --package --with-requirements "
            "--with-editable -n --name --prefix --env -e --package-name"),
    opt("--env-file", V, Does.READS_CODE), opt("-c --call", V, Does.SHELL), *_HELP,
), permute=False)
PACKAGE_MANAGERS = frozenset({"npm", "pnpm", "yarn"})

WRAPPERS: dict[str, Wrapper] = {
    "nice": Wrapper(OptionSet((opt("-n --adjustment", V), *_HELP), permute=False, numbers=True), once=True),
    "timeout": Wrapper(OptionSet((*values("-s|--signal -k|--kill-after"),
                                   *flags("--preserve-status --foreground -v|--verbose"), *_HELP), permute=False), 1,
                       once=True),
    "taskset": Wrapper(OptionSet((*flags("-a|--all-tasks -c|--cpu-list -p|--pid"), *_HELP), permute=False), 1,
                        frozenset({"-p", "--pid"}), once=True),
    "chrt": Wrapper(OptionSet((*flags("-a|--all-tasks -b|--batch -d|--deadline -f|--fifo -i|--idle -o|--other "
                                       "-r|--rr -m|--max -p|--pid -R|--reset-on-fork -v|--verbose"),
                                *values("-T|--sched-runtime -P|--sched-period -D|--sched-deadline"), *_HELP),
                               permute=False), 1, frozenset({"-p", "--pid", "-m", "--max"}), once=True),
    "busybox": Wrapper(OptionSet((), permute=False)),
    "unshare": Wrapper(OptionSet((
        *(opt(n, Takes.OPTIONAL) for n in ("-m --mount", "-u --uts", "-i --ipc", "-n --net", "-p --pid",
                                           "-U --user", "-C --cgroup", "-T --time", "--kill-child", "--mount-proc",
                                           "--mount-binfmt")),
        *flags("-f|--fork -r|--map-root-user -c|--map-current-user --map-auto --keep-caps"),
        *values("--map-user --map-group --map-users --map-groups --propagation --setgroups "
                "-S|--setuid -G|--setgid --monotonic --boottime -l|--load-interp"),
        # Another folder (or root) for the command is a `cd` the line does not show: relative
        # words would be judged from the wrong place. Like `env -C`, a rule must name it.
        opt("-w --wd -R --root", Takes.VALUE, Does.CONFIG), *_HELP), permute=False)),
    "nohup": Wrapper(OptionSet(_HELP, permute=False), once=True),
    # ccache runs the compiler it is given with the same words (`ccache gcc -wrapper sh,-c,CMD`
    # ran CMD, `ccache gcc -o ~/.bashrc` overwrote it: proven with ccache 4.14): the compiler
    # is read as a command of its own, as strictly as without ccache. Its own options that
    # only show something run nothing; the others (-o/--set-config, -d/--dir, -C…) write its
    # settings or cache and are not known here.
    "ccache": Wrapper(OptionSet(flags("-s|--show-stats -p|--show-config -x|--show-compression --print-stats "
                                      "-V|--version -h|--help -v|--verbose"), permute=False, abbreviations=False),
                      0, frozenset({"-s", "--show-stats", "-p", "--show-config", "-x", "--show-compression",
                                    "--print-stats", "-V", "--version", "-h", "--help"})),
    "stdbuf": Wrapper(OptionSet((*values("-i|--input -o|--output -e|--error"), *_HELP), permute=False), once=True),
    "ionice": Wrapper(OptionSet((*values("-c|--class -n|--classdata"), *flags("-t|--ignore -p|--pid -P|--pgid "
                                                                             "-u|--uid"), *_HELP), permute=False),
                       0, frozenset({"-p", "--pid", "-P", "--pgid", "-u", "--uid"}), once=True),
    # (setsid forks first when it leads its process group, and with -f: the command still runs
    # once, in the child, maybe after setsid has returned; s298)
    "setsid": Wrapper(OptionSet((*flags("-c|--ctty -f|--fork -w|--wait"), *_HELP), permute=False), once=True),
    "sudo": Wrapper(OptionSet((*flags("-A -b -H -i -K -k -l -n -P -S -s -v --login --shell --non-interactive"),
                                opt("-E --preserve-env", Takes.OPTIONAL),
                                *values("-C -D -g -h -p -R -r -T -t -U -u --user --group --chdir --chroot"), *_HELP),
                               permute=False), 0, frozenset({"-e", "-l", "-v", "-k", "-K"})),
    "doas": Wrapper(OptionSet((*flags("-n -s -L"), *values("-u -C")), permute=False)),
    "pkexec": Wrapper(OptionSet((*values("--user"), *flags("--disable-internal-agent --keep-cwd")), permute=False)),
    "run0": Wrapper(OptionSet((*values("-u --user -g --group -D --chdir --description --slice --unit "
                                        "--property --nice --setenv"), *flags("--no-ask-password")), permute=False)),
    "chroot": Wrapper(OptionSet((*values("--groups --userspec"), *flags("--skip-chdir"), *_HELP), permute=False), 1),
    "time": Wrapper(OptionSet((opt("-f --format", V), opt("-o --output", V, Does.WRITES),
                                *flags("-a|--append -p|--portability -v|--verbose -q|--quiet"), *_HELP),
                               permute=False), once=True),
    # `exec -c` empties the environment, PATH too: see env -i.
    "exec": Wrapper(OptionSet((opt("-c", does=Does.CONFIG), *flags("-l"), *values("-a")), permute=False,
                              abbreviations=False), clears="-c"),
    "builtin": Wrapper(OptionSet((), permute=False, strict=False)),
    "strace": Wrapper(OptionSet((*flags("-f -ff -c -C -d -D -h -i -k -n -q -qq -r -t -tt -ttt -T -v -V -w -x -xx "
                                         "-y -yy -z -Z --follow-forks --summary-only"),
                                  *values("-e -p -s -S -u -P -a -b -I -O -X --trace --signal --string-limit"),
                                  # -E NAME=value: an environment variable of the command it runs.
                                  opt("-E --env", V, Does.CONFIG),
                                  opt("-o --output", V, Does.WRITES)), permute=False), gives="-E"),
    "ltrace": Wrapper(OptionSet((*flags("-f -C -i -r -S -t -tt -ttt -T -w -b -h -V"),
                                  *values("-e -a -n -p -s -u -L -x -l -F"), opt("-o --output", V, Does.WRITES)),
                                 permute=False)),
    "nsenter": Wrapper(OptionSet((*(opt(n, Takes.OPTIONAL) for n in ("-m --mount", "-u --uts", "-i --ipc",
                                                                     "-n --net", "-p --pid", "-U --user",
                                                                     "-C --cgroup", "-T --time", "-r --root",
                                                                     "-w --wd")),
                                   *values("-t --target -S --setuid -G --setgid"), *flags("-a --all -F --no-fork "
                                                                                           "--preserve-credentials")),
                                  permute=False)),
    "unbuffer": Wrapper(OptionSet(flags("-p"), permute=False)),
    "chronic": Wrapper(OptionSet(flags("-v -e"), permute=False)),
    "caffeinate": Wrapper(OptionSet((*flags("-d -i -m -s -u"), *values("-t -w")), permute=False)),
    "firejail": Wrapper(OptionSet((), permute=False)),
    "systemd-run": Wrapper(OptionSet((), permute=False)),
    # Less common wrappers, read leniently: an option they do not know makes the command they
    # run unreadable (deny rules then ask).
    **{name: Wrapper(OptionSet((), permute=False)) for name in (
        "xvfb-run", "dbus-run-session", "torsocks", "proxychains", "proxychains4", "fakeroot", "trickle",
        "catchsegv", "valgrind", "entr", "cpulimit", "ts")},
    "faketime": Wrapper(OptionSet((*flags("-f -m"), *values("-p")), permute=False), 1),
    "prlimit": Wrapper(table.PRLIMIT, 0, frozenset({"-p", "--pid"})),
    "setpriv": Wrapper(table.SETPRIV),
    "sg": Wrapper(OptionSet((), permute=False), 1),
}

RUNNERS = {
    "poetry": frozenset({"run"}), "pipenv": frozenset({"run"}),
    "pdm": frozenset({"run"}), "hatch": frozenset({"run"}), "conda": frozenset({"run"}),
    "bundle": frozenset({"exec"}), "npm": frozenset({"exec", "x"}), "pnpm": frozenset({"exec", "dlx"}),
    "yarn": frozenset({"exec", "dlx"}),
}
