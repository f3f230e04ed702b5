"""bun's own options, and the commands it runs (bun 1.4). The engine read bun as a program it
did not know, whose words a rule for it covered: ``bunx CMD`` and its spelling ``bun x CMD`` run
the bin CMD names from node_modules/.bin of the folder they run in, else any program on PATH
(``bunx touch PWNED`` ran /usr/bin/touch, ``cd out && bunx tsc`` ran out/node_modules/.bin/tsc),
and ``bun -e CODE`` ran the code given, ``bun -r ./out/x.js a.js`` the agent's module first
(proven, bun 1.4.5 under bash and dash, s255), all under ``bun **`` or ``bunx **``.

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
"""

from __future__ import annotations

from dataclasses import replace

from echo_desk.agent.permissions.options import Does, OptionSet, Takes, flags, opt, read_options, values
from echo_desk.agent.permissions.reading import Argv, Reading, flags_of, spellings_of
from echo_desk.agent.permissions.wrappers import Wrapper, wrapper_reading

__all__ = ["bun_reading", "bunx_reading"]

V = Takes.VALUE

#: bun's options that run or load code, or write where they say (``bun --help``).
_CODE = (
    opt("-e --eval", V, Does.RUNS), opt("-p --print", V, Does.RUNS),
    opt("-r --preload --require --import", V, Does.RUNS), opt("-c --config", V, Does.READS_CODE),
    opt("--env-file", V, Does.READS_CODE), opt("--inspect --inspect-wait --inspect-brk", Takes.OPTIONAL, Does.RUNS),
    opt("--cpu-prof-dir --cpu-prof-name --heap-prof-dir --heap-prof-name", V, Does.WRITES),
    opt("--shell", V, Does.CONFIG),
)
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
#: Anywhere on the line: the options that run or load code, the others let through.
_ANYWHERE = OptionSet(_CODE, strict=False, abbreviations=False)
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
    if at is not None and argv[at] == "x" and not unknown_command:
        inner = bunx_reading(argv[at:], program)
        return replace(inner, flags=(*flags_of(before, _BEFORE), *inner.flags),
                       inners=tuple(i if i.start is None else replace(i, start=i.start + at) for i in inner.inners))
    anywhere = read_options(argv[1:], _ANYWHERE)
    return Reading(program, flags=tuple(flags_of(anywhere, _ANYWHERE)), spellings=spellings_of(argv, anywhere),
                   unreadable=unknown_command)
