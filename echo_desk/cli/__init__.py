"""The command line: ``echo-desk`` and its subcommands (argparse), and the terminal host that asks
the person in the terminal. ``echo-desk`` alone starts the desktop app.

``main`` parses the arguments and runs one command; each subcommand's module (``ask``,
``changes``, ``rules``, ``mcp``) adds its parser and runs it. Nothing here is imported before
the arguments say it is needed: ``--help`` and ``rules check`` answer without the built-in tools,
the MCP SDK or the dispatcher.
"""
