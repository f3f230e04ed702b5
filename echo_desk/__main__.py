"""``echo-desk``: the GUI with no arguments, the headless CLI with a subcommand."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from echo_desk.cli.main import main as cli_main

    return cli_main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    raise SystemExit(main())
