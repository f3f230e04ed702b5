"""``echo-desk``: the GUI with no arguments, the headless CLI with a subcommand."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["gateway"]:  # started by other MCP clients, who wait for it: none of the CLI's imports
        from echo_desk.cli.gateway import main as gateway_main

        return gateway_main(args[1:])
    from echo_desk.cli.main import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    raise SystemExit(main())
