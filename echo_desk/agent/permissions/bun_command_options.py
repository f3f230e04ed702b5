"""The options of bun's own commands other than ``build``, ``test``, ``install``/``add``, ``x`` and
``exec`` (``bun_commands``), as each command's ``--help`` (``--help --all`` for ``fmt``) lists
them in bun 1.4.5. An option not listed asks; so does a command of bun's not here (``upgrade``
replaces bun itself, ``completions`` writes shell files, ``link`` without a package registers the
project in bun's global folder in the home folder, ``repl`` runs what is typed, ``pm version``,
``pm pkg``, ``pm trust`` and ``pm cache rm`` change the project or run its dependencies' scripts).

The package manager's commands share install's options: those reading a settings file as code
(``-c``, ``--env-file``), running lifecycle scripts (``--trust``) or writing outside the project
(``-g``, ``--cache-dir``, ``--patches-dir``) are covered only by a rule naming them. ``bun fmt``
rewrites the files, folders and patterns its words name (``bun fmt ../x.js`` rewrote a file
outside the workspace under ``bun **``: bun 1.4.5, bash and dash, s276): the write rules judge
them; ``--staged``, ``--changed`` and ``--init`` (which writes bunfig.toml, whose ``preload`` bun
runs) write files the line does not name, ``--config`` and ``--plugin`` load code: covered only
by naming them.
"""

from __future__ import annotations

from echo_desk.agent.permissions.options import Does, Option, OptionSet, Takes, flags, opt, values

__all__ = ["COMMANDS", "FMT_READS_ONLY", "PM_COMMANDS"]

V = Takes.VALUE

#: The options every package manager command of bun's lists (``bun install --help``).
_SHARED_FLAGS = ("-y|--yarn -p|--production --no-save --save --dry-run --frozen-lockfile -f|--force --no-cache "
                 "--silent --quiet --verbose --no-progress --no-summary --no-verify --offline --prefer-offline "
                 "--ignore-scripts --no-env-file --save-text-lockfile --lockfile-only --use-system-ca "
                 "--use-openssl-ca --use-bundled-ca -h|--help")
_SHARED_VALUES = ("--ca --cafile --cwd --backend --registry --concurrent-scripts --network-concurrency --omit --linker "
                  "--minimum-release-age --minimum-release-age-excludes --cpu --os --libc")
_SHARED_RISKY = (
    opt("-c --config", V, Does.READS_CODE), opt("--env-file", V, Does.READS_CODE), opt("--trust", does=Does.RUNS),
    opt("-g --global", does=Does.WRITES), opt("--cache-dir", V, Does.WRITES),
)


def _package_command(more_flags: str = "", more_values: str = "", *more: Option) -> OptionSet:
    """install's options and the command's own (``more_*``: as its ``--help`` lists them)."""
    return OptionSet((*flags(f"{_SHARED_FLAGS} {more_flags}"), *values(f"{_SHARED_VALUES} {more_values}"),
                      *_SHARED_RISKY, *more), abbreviations=False)


_PATCHES = opt("--patches-dir", V, Does.WRITES)
_REMOVE = _package_command(more_values="-F|--filter")
_UPDATE = _package_command("-L|--latest -i|--interactive -r|--recursive -d|--dev --no-optional -E|--exact",
                           "-F|--filter --depth")
#: ``bun fmt --help --all``: the options choosing how it formats, and those that only read.
_FMT_PLAIN = (
    *flags("--no-config --no-editorconfig --doctor --use-tabs --no-semi --single-quote --jsx-single-quote "
           "--no-bracket-spacing --bracket-same-line --single-attribute-per-line --vue-indent-script-and-style "
           "--no-insert-final-newline --sort-imports --sort-tailwindcss --sort-package-json --jsdoc --svelte "
           "--no-svelte --with-node-modules --no-error-on-unmatched-pattern -u|--ignore-unknown --allow-unsupported "
           "--list-files -c|--check -l|--list-different --color --no-color --timing --debug-check --no-script "
           "-v|--version -h|--help --all --help-all -w|--write --require-pragma --check-ignore-pragma "
           "--insert-pragma --experimental-ternaries --jsx-bracket-same-line --cache --experimental-cli "
           "--disable-nested-config"),
    *values("--print-width --tab-width --quote-props --trailing-comma --arrow-parens --object-wrap "
            "--html-whitespace-sensitivity --prose-wrap --embedded-language-formatting --end-of-line "
            "--stdin-filepath --ignore-path --ignore-pattern --cwd --log-level -f|--format --threads "
            "--config-precedence --find-config-path --parser --range-start --range-end --cursor-offset "
            "--experimental-operator-position --cache-location --cache-strategy --flavor"),
)
FMT = OptionSet((
    *_FMT_PLAIN, opt("--staged --init", does=Does.WRITES), opt("--changed", Takes.OPTIONAL, Does.WRITES),
    opt("--config", V, Does.READS_CODE), opt("--plugin", V, Does.RUNS),
), abbreviations=False)
#: bun fmt's options that make it write nothing.
FMT_READS_ONLY = frozenset({"-c", "-l", "--list-files", "--doctor", "--debug-check", "--stdin-filepath",
                            "--find-config-path", "-h", "-v"})
#: ``bun init --help``: its one operand is the folder it makes the project in.
INIT = OptionSet((*flags("--help -y|--yes -m|--minimal"), opt("-r"), opt("--react", Takes.OPTIONAL)),
                 abbreviations=False)
#: The commands read with their options here (``fmt`` and ``init`` write: see ``bun_commands``).
COMMANDS: dict[str, OptionSet] = {
    "ci": _package_command("-d|--dev --optional --peer --save-prod -E|--exact -a|--analyze --only-missing",
                           "-F|--filter --catalog"),
    **dict.fromkeys(("remove", "rm", "uninstall", "r"), _REMOVE),
    **dict.fromkeys(("update", "up"), _UPDATE),
    "outdated": _package_command("-r|--recursive", "-F|--filter"),
    "info": _package_command("--json"),
    "why": _package_command("--top", "--depth"),
    "patch": _package_command("--commit", "", _PATCHES),
    "patch-commit": _package_command("", "", _PATCHES),
    "publish": _package_command("--tolerate-republish -r|--recursive",
                                "--access --tag --otp --auth-type --gzip-level -F|--filter"),
    "audit": OptionSet((*flags("-p|--production --json --dry-run -h|--help"),
                        *values("--audit-level --omit --ignore --cwd"),
                        opt("-L --latest", does=Does.WRITES)), abbreviations=False),  # (rewrites package.json)
    "dedupe": OptionSet((*flags("--check --dry-run --lockfile-only --frozen-lockfile --silent -h|--help"),
                         *values("--linker --cwd")), abbreviations=False),
    "prune": OptionSet((*flags("-p|--production --check --dry-run --silent -h|--help"),
                        *values("--omit --os --cpu --libc --linker -F|--filter --cwd")), abbreviations=False),
    "check": OptionSet((*flags("-b|--build --no-pretty --all --timing --no-script -h|--help"),
                        *values("-p|--project --pretty --threads --cwd")), abbreviations=False),
    "fmt": FMT,
    "init": INIT,
}
_NONE = OptionSet((*flags("-h|--help"),), abbreviations=False)
#: ``bun pm --help``: the subcommands that only read or print, with their options; ``bun list``
#: is ``bun pm ls``. ``pack`` writes the tarball where ``--destination`` and ``--filename`` say,
#: else in the folder it runs in (``bun_commands``: the write rules judge it).
_LS = OptionSet((*flags("--all --trusted --prod -g -h|--help"),), abbreviations=False)
PM_COMMANDS: dict[str, OptionSet] = {
    **dict.fromkeys(("ls", "list"), _LS),
    "bin": OptionSet((*flags("-g -h|--help"),), abbreviations=False),
    "why": COMMANDS["why"],
    "diff": OptionSet((*flags("--stat --name-only --json -h|--help"), *values("-U")), abbreviations=False),
    "licenses": OptionSet((*flags("--json --prod --dev --long -h|--help"), *values("--filter")), abbreviations=False),
    "pack": OptionSet((*flags("--dry-run --ignore-scripts --quiet -h|--help"),
                       *values("--gzip-level --destination --filename")), abbreviations=False),
    **dict.fromkeys(("whoami", "view", "hash", "hash-string", "hash-print", "untrusted", "default-trusted", "scan"),
                    _NONE),
}
COMMANDS.update({"list": _LS, "whoami": _NONE})
