"""Where the plain file programs write: each path ``cp``/``mv``/``install``/``ln``/``touch``/
``mkdir``/``rm``/``rmdir``/``truncate``/``dd``/``chmod``/``chown``/``chgrp``/``split``/``csplit``/
``shred``, ``patch``, ``gzip``/``bzip2``/``xz``/``zstd`` (and their un- twins), ``unzip`` and ``scp`` write,
create, delete or change the mode of, for the write rules to judge (``Reading.written``; a folder
they write anywhere below: ``Reading.written_below``). A rule naming the program trusts the
program, not every place it may write.

``None`` stands for a path only known when the line runs, or not known to the engine (an option
these tables lack, a file named inside a patch): the write rules cannot allow it, so it asks.
Versions read: GNU coreutils 9, GNU patch 2.7, gzip 1.12, bzip2 1.0, xz 5.4, zstd 1.5, unzip 6,
OpenSSH scp 9.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from echo_desk.agent.permissions import program_options as table
from echo_desk.agent.permissions.options import OptionSet, Parsed, Takes, flags, opt, read_options

V, OPT = Takes.VALUE, Takes.OPTIONAL
Paths = tuple[str | None, ...]

_COPY = OptionSet((
    *flags("-a|--archive --attributes-only --copy-contents -d -f|--force -i|--interactive -H -l|--link "
           "-L|--dereference -n|--no-clobber -P|--no-dereference -p --parents -R|-r|--recursive "
           "--remove-destination --strip-trailing-slashes -s|--symbolic-link -T|--no-target-directory "
           "-v|--verbose -x|--one-file-system -Z --debug --keep-directory-symlink -b"),
    opt("--backup", OPT), opt("--preserve", OPT), opt("--no-preserve", V), opt("--reflink", OPT),
    opt("--sparse", V), opt("-S --suffix", V), opt("-t --target-directory", V), opt("-u --update", OPT),
    opt("--context", OPT), *table.HELP,
))
_MOVE = OptionSet((
    *flags("-b -f|--force -i|--interactive -n|--no-clobber --strip-trailing-slashes -T|--no-target-directory "
           "-v|--verbose -Z --debug --exchange --no-copy"),
    opt("--backup", OPT), opt("-S --suffix", V), opt("-t --target-directory", V), opt("-u --update", OPT),
    opt("--context", OPT), *table.HELP,
))
_INSTALL = OptionSet((
    *flags("-b -c -C|--compare -d|--directory -D -p|--preserve-timestamps -s|--strip -T|--no-target-directory "
           "-v|--verbose --preserve-context -Z --debug"),
    opt("--backup", OPT), opt("-g --group", V), opt("-m --mode", V), opt("-o --owner", V), opt("-S --suffix", V),
    opt("-t --target-directory", V), opt("--context", OPT), *table.HELP,
))
_LINK = OptionSet((
    *flags("-b -d|-F|--directory -f|--force -i|--interactive -L|--logical -n|--no-dereference -P|--physical "
           "-r|--relative -s|--symbolic -T|--no-target-directory -v|--verbose"),
    opt("--backup", OPT), opt("-S --suffix", V), opt("-t --target-directory", V), *table.HELP,
))
_TOUCH = OptionSet((
    *flags("-a -c|--no-create -f -h|--no-dereference -m"),
    opt("-d --date", V), opt("-r --reference", V), opt("-t", V), opt("--time", V), *table.HELP,
))
_MKDIR = OptionSet((*flags("-p|--parents -v|--verbose -Z"), opt("-m --mode", V), opt("--context", OPT), *table.HELP))
_RMDIR = OptionSet((*flags("--ignore-fail-on-non-empty -p|--parents -v|--verbose"), *table.HELP))
_TRUNCATE = OptionSet((*flags("-c|--no-create -o|--io-blocks"), opt("-r --reference", V), opt("-s --size", V),
                       *table.HELP))
_SHRED = OptionSet((
    *flags("-f|--force -u -v|--verbose -x|--exact -z|--zero"),
    opt("-n --iterations", V), opt("--random-source", V), opt("-s --size", V), opt("--remove", OPT), *table.HELP,
))
_CHMOD = OptionSet((
    *flags("-c|--changes -f|--silent|--quiet -v|--verbose --no-preserve-root --preserve-root -R|--recursive"),
    opt("--reference", V), *table.HELP,
))
_CHOWN = OptionSet((
    *flags("-c|--changes -f|--silent|--quiet -v|--verbose --dereference -h|--no-dereference --no-preserve-root "
           "--preserve-root -R|--recursive -H -L -P"),
    opt("--from", V), opt("--reference", V), *table.HELP,
))
_SPLIT = OptionSet((
    *flags("-d -x -e|--elide-empty-files -u|--unbuffered --verbose"),
    opt("-a --suffix-length", V), opt("--additional-suffix", V), opt("-b --bytes", V), opt("-C --line-bytes", V),
    opt("--numeric-suffixes", OPT), opt("--hex-suffixes", OPT), opt("-l --lines", V), opt("-n --number", V),
    opt("-t --separator", V), *table.HELP,
), numbers=True)
_CSPLIT = OptionSet((
    *flags("-k|--keep-files --suppress-matched -s|-q|--quiet|--silent -z|--elide-empty-files"),
    opt("-b --suffix-format", V), opt("-f --prefix", V), opt("-n --digits", V), *table.HELP,
), permute=False)
_PATCH = OptionSet((
    *flags("-b|--backup -c|--context -e|--ed -n|--normal -u|--unified -E|--remove-empty-files -f|--force "
           "-l|--ignore-whitespace -N|--forward -R|--reverse -s|--quiet|--silent -t|--batch -T|--set-time "
           "-Z|--set-utc --dry-run --binary --posix --verbose --backup-if-mismatch --no-backup-if-mismatch "
           "--follow-symlinks -v|--version --help"),
    opt("-z --suffix", V), opt("-D --ifdef", V), opt("-F --fuzz", V), opt("-g --get", V), opt("-i --input", V),
    opt("-o --output", V), opt("-p --strip", V), opt("-r --reject-file", V), opt("-V --version-control", V),
    opt("--merge", OPT), opt("--quoting-style", V), opt("--read-only", V),
))
_GZIP = OptionSet((
    *flags("-c|--stdout|--to-stdout -d|--decompress|--uncompress -f|--force -k|--keep -l|--list -n|--no-name "
           "-N|--name -q|--quiet -r|--recursive --rsyncable --synchronous -t|--test -v|--verbose --fast --best "
           "-h|--help -V|--version -L|--license"),
    opt("-S --suffix", V),
), numbers=True)
_BZIP2 = OptionSet((
    *flags("-c|--stdout -d|--decompress -z|--compress -k|--keep -f|--force -t|--test -q|--quiet -v|--verbose "
           "-s|--small --fast --best -L|--license -V|--version -h|--help"),
), numbers=True)
_XZ = OptionSet((
    *flags("-c|--stdout|--to-stdout -d|--decompress|--uncompress -z|--compress -k|--keep -f|--force -t|--test "
           "-l|--list -q|--quiet -v|--verbose -e|--extreme -Q|--no-warn --no-sparse -h|--help -H|--long-help "
           "-V|--version"),
    opt("-S --suffix", V), opt("-F --format", V), opt("-C --check", V), opt("-T --threads", V),
    opt("-M --memlimit", V),
), numbers=True)
_ZSTD = OptionSet((
    *flags("-c|--stdout -d|--decompress|--uncompress -z|--compress -k|--keep --rm -f|--force -t|--test "
           "-l|--list -q|--quiet -v|--verbose -r --ultra -h|-H|--help -V|--version"),
    opt("-o", V), opt("-T --threads", V), opt("--fast", OPT),
), numbers=True)

#: The programs that copy, move or link (operands, then a destination or ``-t DIR``).
_COPIERS = {"cp": _COPY, "mv": _MOVE, "install": _INSTALL, "ln": _LINK}
#: The programs that write (create, delete, change) each operand.
_EACH = {"touch": _TOUCH, "mkdir": _MKDIR, "rmdir": _RMDIR, "rm": table.RM, "truncate": _TRUNCATE, "shred": _SHRED}
#: Those whose first operand is a mode or an owner (unless ``--reference`` gave it).
_MODES = {"chmod": _CHMOD, "chown": _CHOWN, "chgrp": _CHOWN}
_COMPRESSORS = {"gzip": _GZIP, "gunzip": _GZIP, "bzip2": _BZIP2, "bunzip2": _BZIP2, "xz": _XZ, "unxz": _XZ,
                "zstd": _ZSTD, "unzstd": _ZSTD}
PROGRAMS = frozenset({*_COPIERS, *_EACH, *_MODES, *_COMPRESSORS, "dd", "split", "csplit", "patch", "unzip", "scp"})

#: A symbolic mode that looks like an option (``chmod -w F``): chmod reads it as the mode.
_MODE_WORD = re.compile(r"-[rwxXst]+([,+=-][ugoa]*[rwxXst]*)*")


def written(argv: Sequence[str | None]) -> tuple[Paths, Paths] | None:
    """What ``argv`` (one of ``PROGRAMS``) writes: paths, and folders it writes anywhere below.
    ``None``: not one of these programs."""
    if not argv or argv[0] is None:
        return None
    program = os.path.basename(argv[0])
    args = list(argv[1:])
    if program in _COPIERS:
        return _copier(program, read_options(args, _COPIERS[program]))
    if program in _EACH:
        return _each(program, read_options(args, _EACH[program]))
    if program in _MODES:
        if program == "chmod":
            args = [a if a is None or not _MODE_WORD.fullmatch(a) else "=" + a for a in args]
        return _moded(read_options(args, _MODES[program]))
    if program in _COMPRESSORS:
        return _compressor(read_options(args, _COMPRESSORS[program]))
    if program == "scp":
        return _scp(args)
    return {"dd": _dd, "split": _split, "csplit": _csplit, "patch": _patch, "unzip": _unzip}[program](args)


_UNKNOWN: tuple[Paths, Paths] = ((None,), ())


def moved_away(argv: Sequence[str | None]) -> Paths:
    """What ``mv`` (``argv``) moves away from its place: each source (``-t DIR`` or not; ``None``:
    an operand or option only known when it runs, or not read here). A folder moved away takes
    every file below it along (``removed_folders``); nothing for any other program."""
    if not argv or argv[0] is None or os.path.basename(argv[0]) != "mv":
        return ()
    parsed = read_options(list(argv[1:]), _MOVE)
    if not _understood(parsed):
        return (None,)
    operands = [v for _, v in parsed.operands]
    return tuple(operands if _value(parsed, "--target-directory") else operands[:-1])


def moved_into(argv: Sequence[str | None]) -> tuple[tuple[str | None, str | None], ...]:
    """Each source ``mv`` (``argv``) moves and the folder every file below it lands below: the
    last operand, which it becomes when that does not exist and lands in when it does (with
    ``-T`` always becomes), or the source's name in ``-t DIR``. ``None``: a word or option only
    known when it runs, or not read here; nothing for any other program."""
    if not argv or argv[0] is None or os.path.basename(argv[0]) != "mv":
        return ()
    parsed = read_options(list(argv[1:]), _MOVE)
    targets = _value(parsed, "--target-directory")
    if not _understood(parsed) or len(targets) > 1:
        return ((None, None),)
    operands = [v for _, v in parsed.operands]
    if targets:
        return tuple((s, None if s is None or targets[0] is None else os.path.join(targets[0], os.path.basename(s.rstrip("/"))))
                     for s in operands)
    return tuple((s, operands[-1]) for s in operands[:-1])


def _names(parsed: Parsed) -> set[str]:
    return {n for s in parsed.seen if s.option is not None for n in s.option.names}


def _value(parsed: Parsed, name: str) -> list[str | None]:
    return [s.value for s in parsed.seen if s.option is not None and name in s.option.names]


def _understood(parsed: Parsed) -> bool:
    return not parsed.dynamic and all(s.option is not None for s in parsed.seen)


def _suffix_ok(parsed: Parsed) -> bool:
    """A backup suffix with a ``/`` (``-S /x``) puts the backup elsewhere: only known when it runs."""
    return not any(v is None or "/" in v for v in _value(parsed, "--suffix"))


def _copier(program: str, parsed: Parsed) -> tuple[Paths, Paths]:
    """cp/mv/install/ln: the destination (``-t DIR``, or the last operand; a lone operand of ln
    links into the current folder) and, should it be a folder, each source's name in it; a
    recursive copy writes anywhere below the destination; mv also removes each source;
    ``install -d`` creates each operand."""
    if not _understood(parsed) or not _suffix_ok(parsed):
        return _UNKNOWN
    names = _names(parsed)
    operands = [v for _, v in parsed.operands]
    if program == "install" and "--directory" in names:
        return tuple(operands) or (None,), ()
    targets = _value(parsed, "--target-directory")
    if len(targets) > 1:
        return _UNKNOWN
    if targets:
        sources, destination = operands, targets[0]
    elif len(operands) == 1 and program == "ln":
        sources, destination = operands, "."
    elif len(operands) >= 2:
        sources, destination = operands[:-1], operands[-1]
    else:
        return _UNKNOWN
    moved: Paths = tuple(sources) if program == "mv" else ()
    if program == "cp" and names & {"--recursive", "--archive"}:
        # A tree copied in lands below the destination, through the links already there.
        return (destination, *moved), (destination,)
    if "--no-target-directory" in names:
        # -T: the destination is the file itself; a folder there makes cp, ln and install fail,
        # and mv renames onto it (a link there is replaced, not followed; an empty folder takes
        # a moved folder's place, as `mv DIR NEW` puts it at NEW: strace, coreutils 9, s201).
        return (destination, *moved), ()
    # Into a folder, each source lands under its own name (cp writes through a link there).
    inside = tuple(None if s is None or destination is None else os.path.join(destination, os.path.basename(s.rstrip("/")))
                   for s in sources)
    return (destination, *inside, *moved), ()


def _each(program: str, parsed: Parsed) -> tuple[Paths, Paths]:
    """touch/mkdir/rmdir/rm/truncate/shred: each operand (``rmdir -p``: and the folders above it)."""
    if not _understood(parsed):
        return _UNKNOWN
    operands: list[str | None] = [v for _, v in parsed.operands]
    if program == "rmdir" and "--parents" in _names(parsed):
        operands += [parent for v in operands for parent in _parents(v)]
    return tuple(operands), ()


def _parents(path: str | None) -> list[str | None]:
    """The folders ``rmdir -p`` removes above ``path`` (``a/b/c``: ``a/b``, ``a``)."""
    if path is None:
        return [None]
    out: list[str | None] = []
    path = path.rstrip("/")
    while os.path.dirname(path) not in ("", "/", path):
        path = os.path.dirname(path)
        out.append(path)
    return out


def _moded(parsed: Parsed) -> tuple[Paths, Paths]:
    """chmod/chown/chgrp: each file operand (after the mode or owner unless ``--reference``)."""
    if not _understood(parsed):
        return _UNKNOWN
    operands = [v for _, v in parsed.operands]
    return tuple(operands if _value(parsed, "--reference") else operands[1:]), ()


def _compressor(parsed: Parsed) -> tuple[Paths, Paths]:
    """gzip and its kin write a file next to each operand and remove it (``-c``, ``-l``, ``-t``:
    only to their output; ``zstd -o F``: F)."""
    if not _understood(parsed) or not _suffix_ok(parsed):
        return _UNKNOWN
    names = _names(parsed)
    out: list[str | None] = [*_value(parsed, "-o")]
    if not names & {"--stdout", "--list", "--test"}:
        for _, v in parsed.operands:
            if v == "-":
                continue
            out += [v, None if v is None else v + ".any-suffix", None if v is None else os.path.splitext(v)[0]]
    return tuple(out), ()


def _dd(args: list[str | None]) -> tuple[Paths, Paths]:
    """dd writes what ``of=`` names (none: its output); any other word it does not read here asks."""
    out: list[str | None] = []
    for word in args:
        if word is None:
            return _UNKNOWN
        key, eq, value = word.partition("=")
        if not eq or key not in _DD_KEYS:
            return _UNKNOWN if word not in ("--help", "--version") else ((), ())
        if key == "of":
            out.append(value)
    return tuple(out), ()


_DD_KEYS = frozenset({"if", "of", "bs", "ibs", "obs", "cbs", "count", "skip", "seek", "iseek", "oseek", "conv",
                      "iflag", "oflag", "status"})


def _split(args: list[str | None]) -> tuple[Paths, Paths]:
    """split writes PREFIXaa, PREFIXab… (PREFIX: its second operand, ``x`` without)."""
    parsed = read_options(args, _SPLIT)
    if not _understood(parsed) or len(parsed.operands) > 2:
        return _UNKNOWN
    prefix = parsed.operands[1][1] if len(parsed.operands) == 2 else "x"
    suffixes = _value(parsed, "--additional-suffix")
    if prefix is None or any(s is None or "/" in s for s in suffixes):
        return _UNKNOWN
    return (prefix + "aa" + "".join(s or "" for s in suffixes),), ()


def _csplit(args: list[str | None]) -> tuple[Paths, Paths]:
    """csplit writes PREFIX00, PREFIX01… (``-f PREFIX``, ``xx`` without)."""
    parsed = read_options(args, _CSPLIT)
    if not _understood(parsed):
        return _UNKNOWN
    prefixes = _value(parsed, "--prefix")
    formats = _value(parsed, "--suffix-format")
    prefix = prefixes[0] if len(prefixes) == 1 else "xx" if not prefixes else None
    if prefix is None or any(f is None or "/" in f for f in formats):
        return _UNKNOWN
    return (prefix + "00",), ()


def _patch(args: list[str | None]) -> tuple[Paths, Paths]:
    """patch writes the file it is given (none: the files the patch names, only known when it
    runs), ``-o`` and ``-r`` files; ``-d``, ``-B``, ``-Y`` and a ``/`` in ``-z`` move them."""
    parsed = read_options(args, _PATCH)
    if not _understood(parsed) or not parsed.operands or len(parsed.operands) > 2:
        return _UNKNOWN
    names = _names(parsed)
    if "--dry-run" in names:
        return (), ()
    if any(v is None or "/" in v for v in _value(parsed, "--suffix")):
        return _UNKNOWN
    return (parsed.operands[0][1], *_value(parsed, "--output"), *_value(parsed, "--reject-file")), ()


def _scp(args: list[str | None]) -> tuple[Paths, Paths]:
    """scp copies to its last operand. Where that is a path on this machine it writes there as cp
    does (for a local source it runs ``cp``: ``scp out/rc ~/.bashrc`` overwrote it): the
    destination, each source's name in it, anywhere below it with ``-r``. A ``host:path`` or
    ``scp://`` destination writes nothing here. Its options end at the first operand."""
    parsed = read_options(args, table.SCP)
    if not _understood(parsed):
        return _UNKNOWN
    operands = args[parsed.rest:] if parsed.rest is not None else []
    if any(v is None for v in operands):
        return _UNKNOWN
    if len(operands) < 2 or _scp_remote(operands[-1] or ""):
        return (), ()
    destination = operands[-1]
    if "-r" in _names(parsed):
        return (destination,), (destination,)
    names = [_scp_path(s or "") for s in operands[:-1]]
    inside = tuple(os.path.join(destination or "", os.path.basename(n.rstrip("/"))) if n else None for n in names)
    return (destination, *inside), ()


def _scp_remote(word: str) -> bool:
    """Whether scp reads ``word`` as on another machine: an ``scp://`` address, or a ``:`` before
    any ``/`` (``host:path``, ``user@[::1]:path``; a leading ``:`` is a local name), as OpenSSH's
    ``colon()`` reads it."""
    if word.startswith("scp://"):
        return True
    if word.startswith(":"):
        return False
    bracket = word.startswith("[")
    for k, c in enumerate(word):
        following = word[k + 1:k + 2]
        if c == "@" and following == "[":
            bracket = True
        if c == "]" and following == ":" and bracket:
            return True
        if c == ":" and not bracket:
            return True
        if c == "/":
            return False
    return False


def _scp_path(word: str) -> str | None:
    """The path part of an scp source (``host:dir/f`` gives ``dir/f``); ``None``: not known."""
    if word.startswith("scp://"):
        return None
    if _scp_remote(word):
        return word.rsplit(":", 1)[1] or None
    return word


def _unzip(args: list[str | None]) -> tuple[Paths, Paths]:
    """unzip extracts below ``-d DIR`` (the current folder without); ``-l``, ``-v``, ``-t``,
    ``-p``, ``-c``, ``-z``, ``-Z`` only print. Its options may follow the archive; ``-x`` lists
    names to leave out."""
    folders: list[str | None] = []
    printing = False
    i, n = 0, len(args)
    while i < n:
        word = args[i]
        if word is None:
            return _UNKNOWN
        if word == "-d":
            folders.append(args[i + 1] if i + 1 < n else None)
            i += 2
            continue
        if word.startswith("-d") and len(word) > 2:
            folders.append(word[2:])
        elif word == "-x":
            i += 1
            while i < n and args[i] != "-d":
                i += 1
            continue
        elif word.startswith("-") and len(word) > 1:
            letters = word[1:]
            if not set(letters) <= _UNZIP_FLAGS:
                return _UNKNOWN
            printing = printing or bool(set(letters) & set("lvtpczZ"))
        i += 1
    if printing:
        return (), ()
    if len(folders) > 1:
        return _UNKNOWN
    return (), (folders[0] if folders else ".",)


_UNZIP_FLAGS = frozenset("lvtpczZfunoqjCLVXaUbMKTDs")
