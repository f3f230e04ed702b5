"""bun's own options, and the commands it runs (bun 1.4). The engine read bun as a program it
did not know, whose words a rule for it covered: ``bunx CMD`` and its spelling ``bun x CMD`` run
the bin CMD names from node_modules/.bin of the folder they run in, else any program on PATH
(``bunx touch PWNED`` ran /usr/bin/touch, ``cd out && bunx tsc`` ran out/node_modules/.bin/tsc),
and ``bun -e CODE`` ran the code given, ``bun -r ./out/x.js a.js`` the agent's module first
(proven, bun 1.4.5 under bash and dash, s255), all under ``bun **`` or ``bunx **``. ``bun exec
SCRIPT`` runs SCRIPT with Bun's own shell (``bun exec "touch ../PWNED"``: s268): a grammar the
engine does not read, so no rule allows it.

Now the command ``bunx`` and ``bun x`` run is judged on its own, as npx's is (a rule naming it,
``bunx tsc **``, covers it too); their options must be known, and those installing a package
of the line's choosing (``-p``) or running its lifecycle scripts (``--trust``) are covered only
by naming them. bun's options that run code given on the line or load a module or settings
file (``-e``, ``-p``, ``-r`` and its aliases, ``-c``, ``--env-file``, ``--inspect``…) are covered
only by a rule naming them, as node's are, wherever they stand (bun reads its options before and
after its command and script: where a word belongs to the script, naming the option is asked
for all the same). Before ``x``, every option must be known: one taking a value could take
``x`` as it. Which folder's package.json and bunfig.toml count is ``program_options``' business
(``FOLDER_SETTINGS``, ``FOLDER_OPTIONS``).

``bun build`` writes where ``--outdir`` (anywhere below), ``--outfile``, ``--metafile`` and
``--metafile-md`` say (``bun build a.ts --outdir ../x`` wrote ../x/a.js under ``bun **``: bun
1.4.5, bash and dash, s261): the write rules judge those places, from the folder ``--cwd``
names. Its other options must be known (it reads them after the entry points too), and those
naming files by a pattern or embedding one (``--entry-naming``, ``--root``, ``--asset``,
``--compile`` without ``--outfile``…) are covered only by naming them. On other commands,
whose later words may be a script's, those writing options are covered only by naming them.

``bun test``, ``bun install`` and ``bun add`` (and their short names) are read with the options
their ``--help`` lists (bun 1.4.5): one not listed asks. ``--trust`` (``bun add --trust ./out/pkg``
ran its install scripts), ``-g`` (``bun add -g`` wrote bun's global folder in the home folder) and
``--cache-dir`` are covered only by naming them (bash and dash, s268). Since s276 bun's other
commands are read with the options their ``--help`` lists too (``bun_command_options``), a command
of bun's on no list is covered only by a rule naming it, the places ``bun fmt``, ``bun init`` and
``bun pm pack`` write are judged by the write rules, and the words ``bun create`` passes to the
scaffolder it runs count as a script's words (``script_words``). Since s287 what ``bun create``
writes in the folder it runs in, the templates it takes and the Prettier settings ``bun fmt`` runs
are judged too (``scaffolds``, ``formatted``: see ``javascript_lookups``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from echo_desk.agent.permissions import bun_command_options
from echo_desk.agent.permissions.options import (
    Does,
    OptionSet,
    Parsed,
    Seen,
    Takes,
    flags,
    opt,
    read_options,
    values,
)
from echo_desk.agent.permissions.reading import Argv, Flag, Inner, Reading, flags_of, spellings_of
from echo_desk.agent.permissions.wrappers import Wrapper, wrapper_reading

__all__ = ["bun_reading", "bunx_reading", "formatted", "run_name", "scaffolds", "script_words"]

V = Takes.VALUE

#: bun's options that run or load code, or write where they say (``bun --help``).
_CODE = (
    opt("-e --eval", V, Does.RUNS), opt("-p --print", V, Does.RUNS),
    opt("-r --preload --require --import", V, Does.RUNS), opt("-c --config", V, Does.READS_CODE),
    opt("--env-file", V, Does.READS_CODE), opt("--inspect --inspect-wait --inspect-brk", Takes.OPTIONAL, Does.RUNS),
    opt("--cpu-prof-dir --cpu-prof-name --heap-prof-dir --heap-prof-name", V, Does.WRITES),
    opt("--shell", V, Does.CONFIG),
)
#: Options writing where they say (bun build's and bun test's): on a command other than bun
#: build (``bun run build --outdir ../x`` may hand them to a script) a rule must name them.
_WRITING = (opt("--outdir --outfile --coverage-dir --reporter-outfile", V, Does.WRITES),
            opt("--metafile --metafile-md", Takes.OPTIONAL, Does.WRITES))
#: The options ``bun --help`` lists before a command, that only choose how it runs.
_PLAIN = (
    *flags("--silent -v|--version --revision -b|--bun --no-orphans --workspaces --parallel --sequential "
           "--no-exit-on-error --watch --hot --no-clear-screen --check --smol --interactive --cpu-prof "
           "--cpu-prof-md --heap-prof --heap-prof-md --if-present --no-install -i -h|--help --no-macros "
           "--no-deprecation --throw-deprecation --expose-gc --zero-fill-buffers --prefer-offline "
           "--prefer-latest --no-env-file --experimental-http2-fetch --experimental-http3-fetch"),
    *values("--elide-lines -F|--filter --watch-kill-signal --install --cpu-prof-interval --heap-prof-interval "
            "--cwd --port --conditions --fetch-preconnect --max-http-header-size --dns-result-order "
            "--title --unhandled-rejections --console-depth --user-agent --main-fields --extension-order "
            "--tsconfig-override -d|--define --drop -l|--loader --jsx-factory --jsx-fragment "
            "--jsx-import-source --jsx-runtime --jsx-side-effects --ignore-dce-annotations"),
)
#: Before the command: every option must be known (see the module).
_BEFORE = OptionSet((*_PLAIN, *_CODE), permute=False, abbreviations=False)
#: Anywhere on the line: the options that run or load code or write, the others let through.
_ANYWHERE = OptionSet((*_CODE, *_WRITING), strict=False, abbreviations=False)
#: ``bun build --help`` (1.4.5): options choosing how it bundles.
_BUILD_PLAIN = (
    *flags("--production --compile-autoload-dotenv --no-compile-autoload-dotenv --compile-autoload-bunfig "
           "--no-compile-autoload-bunfig --compile-autoload-tsconfig --no-compile-autoload-tsconfig "
           "--compile-autoload-package-json --no-compile-autoload-package-json --bytecode --no-optimize-bytecode "
           "--splitting --no-split-require --no-module-preload --reject-unresolved --react-fast-refresh "
           "--react-compiler --no-bundle --emit-dce-annotations --no-deprecated-namespace-object-setters --minify "
           "--minify-syntax --minify-whitespace --minify-identifiers --keep-names --css-chunking "
           "--windows-hide-console"),
    *values("--compile-exec-argv --compile-jit-policy --bytecode-depth --target --banner --footer --format "
            "--min-chunk-size --public-path --external --allow-unresolved --packages --env --windows-title "
            "--windows-publisher --windows-version --windows-description --windows-copyright"),
    opt("--sourcemap", Takes.OPTIONAL),
)
#: Where bun build writes: judged by the write rules at their value, not by a rule naming them.
_BUILD_WRITES = (opt("--outdir", V), opt("--outfile", V), opt("--metafile", Takes.OPTIONAL),
                 opt("--metafile-md", Takes.OPTIONAL))
#: Files named by a pattern, written where bun chooses (--app) or read into the output: covered
#: only by naming them.
_BUILD_NAMED = (
    opt("--entry-naming --chunk-naming --asset-naming --root", V, Does.WRITES), opt("--app", does=Does.WRITES),
    opt("--asset --bytecode-order --windows-icon", V, Does.READS_CODE),
    opt("--compile-executable-path", V, Does.RUNS),
)
_BUILD = OptionSet((*_PLAIN, *_CODE, *_BUILD_PLAIN, *_BUILD_WRITES, *_BUILD_NAMED, opt("--compile")),
                   abbreviations=False)
#: ``bun test --help`` (1.4.5): its own options, less those writing where they say (``_WRITING``);
#: it takes bun's runtime options too.
_TEST_OWN = (
    *flags("--no-orphans -u|--update-snapshots --todo --only --pass-with-no-tests --concurrent --randomize --coverage "
           "--dots --only-failures --isolate --no-isolate --test-worker"),
    *values("--timeout --rerun-each --retry --seed --coverage-reporter -t|--test-name-pattern --reporter "
            "--max-concurrency --path-ignore-patterns --parallel --parallel-delay --shard --timings"),
    opt("--bail --changed", Takes.OPTIONAL),
    opt("--update-timings", does=Does.WRITES),  # (writes the file --timings names)
)
_TEST = OptionSet((*_PLAIN, *_CODE, *_TEST_OWN, *_WRITING), abbreviations=False)
#: ``bun install --help`` and ``bun add --help`` (1.4.5, the same options). ``--trust`` runs the
#: named packages' lifecycle scripts, ``-g`` installs bins into bun's global folder on PATH,
#: ``--cache-dir`` writes where it says: covered only by naming them.
_INSTALL = OptionSet((
    *flags("-y|--yarn -p|--production --no-save --save --dry-run --frozen-lockfile -f|--force --no-cache --silent "
           "--quiet --verbose --no-progress --no-summary --no-verify --offline --prefer-offline --ignore-scripts "
           "--no-env-file --save-text-lockfile --lockfile-only --use-system-ca --use-openssl-ca --use-bundled-ca "
           "-h|--help -d|--dev --optional --peer --save-prod -E|--exact -a|--analyze --only-missing"),
    *values("--ca --cafile --cwd --backend --registry --concurrent-scripts --network-concurrency --omit --linker "
            "--minimum-release-age --minimum-release-age-excludes --cpu --os --libc -F|--filter --catalog"),
    opt("-c --config", V, Does.READS_CODE), opt("--env-file", V, Does.READS_CODE), opt("--trust", does=Does.RUNS),
    opt("-g --global", does=Does.WRITES), opt("--cache-dir", V, Does.WRITES),
), abbreviations=False)
#: The commands whose options are read strictly: an option not in their ``--help`` asks.
_COMMAND_OPTIONS = {"test": _TEST, **dict.fromkeys(("install", "i", "add", "a"), _INSTALL),
                    **bun_command_options.COMMANDS}
#: bun's commands that write the paths their operands name (``bun fmt ../x.js``), or the folder
#: they run in given none (``bun init``, ``bun fmt``): the write rules judge them.
_WRITES_OPERANDS = frozenset({"fmt", "init"})
#: bun's commands read loosely: those handing their words to a program bun runs (``bun create
#: vite ../app`` runs create-vite with them: ``script_words`` counts them as places it may write).
_LOOSE_COMMANDS = frozenset({"create", "c"})
#: Characters that make one of bun fmt's words a pattern, matching files not known here.
_PATTERN = frozenset("*?[{!")
#: bun build's file for a writing option given without its value.
_BUILD_DEFAULT_FILES = {"--metafile": "meta.json", "--metafile-md": "meta.md"}
#: ``bunx --help``: its options come before the package.
_BUNX = Wrapper(OptionSet((
    *flags("--bun --no-install --verbose --silent --ignore-scripts -h|--help"),
    *values("--cwd --minimum-release-age --registry --ca --cafile"),
    opt("-p --package", V, Does.READS_CODE), opt("--env-file", V, Does.READS_CODE), opt("--trust", does=Does.RUNS),
), permute=False, abbreviations=False))


def bunx_reading(argv: Argv, program: str) -> Reading:
    """``bunx [options] CMD …`` runs CMD (see the module)."""
    return wrapper_reading(argv, program, _BUNX)


def bun_reading(argv: Argv, program: str) -> Reading:
    """``bun [options] COMMAND|FILE …``; ``bun x`` is ``bunx``."""
    before = read_options(argv[1:], _BEFORE)
    at = 1 + before.rest if before.rest is not None else None
    # (an option not known here may take the next word, and leave `x` as the command)
    unknown_command = before.dynamic or any(s.option is None for s in before.seen) or (
        at is not None and argv[at] is None)
    command = argv[at] if at is not None and not unknown_command else None
    if at is not None and command is not None:
        if command == "x":
            inner = bunx_reading(argv[at:], program)
            return replace(inner, flags=(*flags_of(before, _BEFORE), *inner.flags),
                           inners=tuple(i if i.start is None else replace(i, start=i.start + at) for i in inner.inners))
        if command == "build":
            return _build_reading(argv, program, at, before)
        if command == "pm":
            return _pm_reading(argv, program, at, before)
        own = _COMMAND_OPTIONS.get(command)
        if own is not None:
            parsed = read_options(argv[at + 1:], own)
            places = _operand_places(parsed, (*before.seen, *parsed.seen)) if command in _WRITES_OPERANDS else ()
            return Reading(program, flags=(*flags_of(before, _BEFORE), *flags_of(parsed, own)),
                           spellings=spellings_of(argv, read_options(argv[1:], _ANYWHERE)),
                           written=places, written_below=places)
        if command == "exec":
            # (Bun's own shell, whose grammar the engine does not read: never allowed by a rule)
            script = argv[at + 1] if len(argv) > at + 1 else None
            return Reading(program, flags=tuple(flags_of(before, _BEFORE)),
                           inners=(Inner(line=script or "", grammar=None),))
        if command in _OWN_COMMANDS and command not in _LOOSE_COMMANDS:
            # (a command of bun's whose options are on no list here: see bun_command_options)
            return Reading(program, flags=(*flags_of(before, _BEFORE), _named_only(command)),
                           spellings=spellings_of(argv, read_options(argv[1:], _ANYWHERE)))
    anywhere = read_options(argv[1:], _ANYWHERE)
    return Reading(program, flags=tuple(flags_of(anywhere, _ANYWHERE)), spellings=spellings_of(argv, anywhere),
                   unreadable=unknown_command)


#: bun's own commands (bun 1.4.5: each wins over a package.json script of its name), whose words
#: are bun's; any other word runs the script (or file) it names with the words after it.
_OWN_COMMANDS = frozenset({
    "a", "add", "audit", "build", "bun", "c", "check", "ci", "completions", "config", "create", "dedupe", "discord",
    "exec", "fmt", "getcompletes", "help", "i", "info", "init", "install", "link", "list", "login", "logout",
    "outdated", "patch", "patch-commit", "pm", "prune", "publish", "r", "remove", "repl", "rm", "test",
    "uninstall", "unlink", "up", "update", "upgrade", "whoami", "why", "x",
})


def script_words(argv: Argv) -> list[str | None]:
    """The words ``bun [options] [run [options]] NAME …`` passes on to the package.json script
    (or file) NAME: every word after NAME, options too (``bun run build --outDir ../x``, ``bun
    build2 ../x``; bun 1.4.5), and those ``bun create`` passes to the scaffolder it runs. None
    for bun's other commands; ``None``: a word only known when the line runs, or an option not
    known before the name, which could take the next word."""
    at = _name_at(argv, 1)
    if at is not None and at != _UNKNOWN:
        command = argv[at]
        if command == "run":
            at = _name_at(argv, at + 1)
        elif command in _LOOSE_COMMANDS:
            return _scaffolder_words(argv[at + 1:])
        elif command in _OWN_COMMANDS:
            return []
    if at is None:
        return []
    return [None] if at == _UNKNOWN else list(argv[at + 1:])


def _scaffolder_words(words: Argv) -> list[str | None]:
    """What ``bun create`` passes on: its words, less a template named as a package (``vite``:
    create-vite from the registry), not as a path (``./App.tsx``, a GitHub ``org/repo``)."""
    template = next((i for i, word in enumerate(words) if word is None or not word.startswith("-")), None)
    if template is None or words[template] is None:
        return list(words)
    name = words[template] or ""
    named_package = "/" not in name and not name.startswith(".") and not name.startswith("~")
    return [w for i, w in enumerate(words) if not (i == template and named_package)]


def run_name(argv: Argv) -> str | None:
    """The file (or package.json script) ``bun [options] [run [options]] NAME`` runs, as seen
    from the folder it runs in (``""``: none, or one of bun's own commands; ``None``: a word only
    known when the line runs, or an option not known before it)."""
    at = _name_at(argv, 1)
    seen: list[Seen] = []
    if at is not None and at != _UNKNOWN and argv[at] == "run":
        seen += read_options(argv[1:at], _BEFORE).seen
        start, at = at + 1, _name_at(argv, at + 1)
    elif at is not None and at != _UNKNOWN and argv[at] in _OWN_COMMANDS:
        return ""
    else:
        start = 1
    if at is None:
        return ""
    if at == _UNKNOWN:
        return None
    return _under(_cwd_of((*seen, *read_options(argv[start:at], _BEFORE).seen)), argv[at])


def scaffolds(argv: Argv) -> bool:
    """Whether ``argv`` is ``bun create``, which runs a scaffolder (or copies a template) in the
    folder it runs in."""
    at = _name_at(argv, 1)
    return at is not None and at != _UNKNOWN and argv[at] in _LOOSE_COMMANDS


def formatted(argv: Argv) -> tuple[str | None, ...]:
    """What ``bun fmt`` formats, from the folder it runs in (``"."``: it was given nothing;
    ``None``: a pattern, or a word only known when it runs), each with the Prettier settings
    found beside it; empty for another command, or one told to look for none (``--no-config``)."""
    at = _name_at(argv, 1)
    if at is None or at == _UNKNOWN or argv[at] != "fmt":
        return ()
    parsed = read_options(argv[at + 1:], bun_command_options.FMT)
    if any(s.option is not None and s.option.names[0] == "--no-config" for s in parsed.seen):
        return ()
    folder = _cwd_of((*read_options(argv[1:at], _BEFORE).seen, *parsed.seen))
    named = [None if word is None or _PATTERN & set(word) else word for _, word in parsed.operands]
    return tuple(dict.fromkeys(_under(folder, path) for path in (named or ["."])))


#: ``_name_at``'s answer for a name not known here.
_UNKNOWN = -1


def _name_at(argv: Argv, start: int) -> int | None:
    """Where the first word from ``start`` not one of bun's options stands (``None``: nowhere)."""
    before = read_options(argv[start:], _BEFORE)
    if before.dynamic or any(s.option is None for s in before.seen):
        return _UNKNOWN
    if before.rest is None:
        return None
    at = start + before.rest
    return _UNKNOWN if argv[at] is None else at


def _build_reading(argv: Argv, program: str, at: int, before: Parsed) -> Reading:
    """``bun [options] build [options] ENTRY…``: where it writes, from the folder ``--cwd`` names."""
    parsed = read_options(argv[at + 1:], _BUILD)
    files: list[str | None] = []
    below: list[str | None] = []
    for seen in parsed.seen:
        name = seen.option.names[0] if seen.option is not None else ""
        if name == "--outdir":
            below.append(seen.value)
        elif name in ("--outfile", *_BUILD_DEFAULT_FILES):
            files.append(seen.value if seen.value is not None else _BUILD_DEFAULT_FILES.get(name))
    compiles = any(s.option is not None and s.option.names[0] == "--compile" for s in parsed.seen)
    if compiles and not any(s.option is not None and s.option.names[0] == "--outfile" for s in parsed.seen):
        files.append(None)  # an executable named after the entry point, in the folder it runs in
    folder = _cwd_of((*before.seen, *parsed.seen))
    return Reading(program, flags=(*flags_of(before, _BEFORE), *flags_of(parsed, _BUILD)),
                   spellings=spellings_of(argv, read_options(argv[1:], _ANYWHERE)),
                   written=tuple(_under(folder, f) for f in files), written_below=tuple(_under(folder, b) for b in below))


def _pm_reading(argv: Argv, program: str, at: int, before: Parsed) -> Reading:
    """``bun [options] pm SUBCOMMAND [options] …``: only the subcommands that read or print
    (``bun_command_options.PM_COMMANDS``), with their options; any other asks."""
    if len(argv) == at + 1:
        return Reading(program, flags=tuple(flags_of(before, _BEFORE)))  # (its help)
    subcommand = argv[at + 1]
    own = bun_command_options.PM_COMMANDS.get(subcommand or "")
    if own is None:
        return Reading(program, flags=(*flags_of(before, _BEFORE), _named_only(subcommand)),
                       spellings=spellings_of(argv, read_options(argv[1:], _ANYWHERE)))
    parsed = read_options(argv[at + 2:], own)
    folder = _cwd_of(before.seen)
    given = {s.option.names[0]: s.value for s in parsed.seen if s.option is not None}
    # (the tarball: the file --filename names, else one bun names in --destination's folder)
    files = [given["--filename"]] if "--filename" in given else []
    below = [] if files else [given.get("--destination", ".")]
    pack = subcommand == "pack" and "--dry-run" not in given
    return Reading(program, flags=(*flags_of(before, _BEFORE), *flags_of(parsed, own)),
                   spellings=spellings_of(argv, read_options(argv[1:], _ANYWHERE)),
                   written=tuple(_under(folder, f) for f in files) if pack else (),
                   written_below=tuple(_under(folder, b) for b in below) if pack else ())


def _named_only(word: str | None) -> Flag:
    """A command covered only by a rule naming it (``bun upgrade``); ``None``: one only known
    when the line runs, which no rule names."""
    return Flag(frozenset({word}) if word is not None else frozenset(), word or "", None)


def _operand_places(parsed: Parsed, seen: Sequence[Seen]) -> tuple[str | None, ...]:
    """The files and folders bun fmt or bun init writes: those its operands name, else the folder
    it runs in (``None``: a pattern, or a word only known when it runs), from ``--cwd``'s folder."""
    if any(s.option is not None and s.option.names[0] in bun_command_options.FMT_READS_ONLY for s in parsed.seen):
        return ()
    folder = _cwd_of(seen)
    named = [None if word is None or _PATTERN & set(word) else word for _, word in parsed.operands]
    return tuple(_under(folder, path) for path in (named or ["."]))


def _cwd_of(seen: Sequence[Seen]) -> str | None:
    """The folder bun's ``--cwd`` names (``"."``: none given; ``None``: only known when it runs,
    or given more than once)."""
    given = [s.value for s in seen if s.option is not None and "--cwd" in s.option.names]
    if not given:
        return "."
    return given[0] if len(given) == 1 else None


def _under(folder: str | None, path: str | None) -> str | None:
    """``path`` as seen from the folder bun runs in, given the one ``--cwd`` names."""
    if folder is None or path is None:
        return None
    return path if folder == "." else os.path.join(folder, path)
