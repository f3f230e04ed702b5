"""The headless command line. ``echo-desk`` alone starts the desktop app.

Light on purpose: parsing the arguments (``arguments``) imports no engine, no tool and no MCP
SDK, so ``--help`` answers at once; ``rules`` asks the rules engine alone; the other commands
load the whole runtime (``with_runtime``), and no command the window.
"""

from __future__ import annotations

import sys

from echo_desk.cli.arguments import build_parser
from echo_desk.cli.language import use_chosen_language


def main(argv: list[str]) -> int:
    use_chosen_language()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "rules":  # the rules engine and its files only: no tools, no MCP
        from echo_desk.cli.rules import run_with_own_engine

        return run_with_own_engine(args)
    if args.command == "gateway":  # a client waits for it: no engine, no sandbox probe up front
        from echo_desk.cli.gateway import run as run_gateway

        return run_gateway(args)
    from echo_desk import sandbox

    # Known at start, off the main thread: the settings page, the approval dialog and the
    # command plans read the cached answer instead of probing bwrap at first use.
    sandbox.check_at_start()
    if args.command is None:
        return _run_gui(argv)
    from echo_desk.cli.with_runtime import run

    try:
        code = run(args)
    except OSError as exc:
        from echo_desk.store.not_saved import WRITE_FAILURES, not_saved_text

        if exc.errno not in WRITE_FAILURES:
            raise
        print(not_saved_text(exc), file=sys.stderr)
        if exc.filename:
            print(f"  {exc.filename}", file=sys.stderr)
        return 1
    if code is None:
        parser.print_help()
        return 2
    return code


def _run_gui(argv: list[str]) -> int:
    try:
        from echo_desk.ui.app.main import run_gui
    except ImportError as exc:
        from echo_desk.i18n import _

        print(_("The desktop app is not available: {error}. The command line works: see “echo-desk --help”.").format(
            error=exc), file=sys.stderr)
        return 1
    return int(run_gui(argv))
