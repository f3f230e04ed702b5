"""The grammar of ``echo-desk``: every subcommand and its options (argparse).

Kept apart from the commands so that parsing imports nothing heavy: ``--help`` answers at once,
and each command's module (``ask``, ``changes``, ``mcp``, ``rules``, ``with_runtime``) loads
only when it runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from echo_desk import __version__
from echo_desk.agent.undo.resolution import Resolution
from echo_desk.cli.language import localise_help
from echo_desk.i18n import _


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="echo-desk", description=_("Chat with an agent that uses tools, safely."))
    parser.add_argument("--version", action="version", version=f"echo-desk {__version__}",
                        help=_("show program's version number and exit"))
    parser.add_argument("--no-mcp", action="store_true", help=_("do not start the MCP servers of mcp.json"))
    sub = parser.add_subparsers(dest="command")

    tools = sub.add_parser("tools", help=_("inspect the tool catalog"))
    tools_sub = tools.add_subparsers(dest="tools_command", required=True)
    listing = tools_sub.add_parser("list", help=_("every tool with its source, risk, approval, rules and status"))
    listing.add_argument("--json", action="store_true", help=_("machine-readable output"))
    schema = tools_sub.add_parser("schema", help=_("the definitions a provider would receive"))
    schema.add_argument("--provider", choices=["openai", "anthropic", "gemini", "bedrock"], default="openai")

    call = sub.add_parser("call", help=_("run one tool through the dispatcher and print its envelope"))
    call.add_argument("name")
    call.add_argument("--args", default="{}", help=_("the arguments as a JSON object"))
    call.add_argument("--workspace", type=Path, default=None, help=_("workspace folder (default: current)"))
    answer = call.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help=_("approve without asking"))
    answer.add_argument("--no", action="store_true", help=_("deny without asking"))
    _add_mcp(sub)
    _add_ask(sub)
    _add_rules(sub)
    _add_changes(sub)
    from echo_desk.cli.gateway import add_parser as add_gateway  # stdlib only at import

    add_gateway(sub)
    localise_help(parser)
    return parser


def _add_ask(sub: Any) -> None:
    ask = sub.add_parser("ask", help=_("one agent exchange in the terminal"))
    ask.add_argument("prompt")
    ask.add_argument("--workspace", type=Path, default=None, help=_("workspace folder (default: current)"))
    ask.add_argument("--provider", default=None,
                     help=_("a configured provider name, or a kind: local, ollama, openai, anthropic, gemini"))
    ask.add_argument("--base-url", default=None, help=_("endpoint of the provider (e.g. http://127.0.0.1:11434/v1)"))
    ask.add_argument("--model", default=None, help=_("model name at the provider"))
    ask.add_argument("--json", action="store_true", help=_("print the whole exchange as JSON at the end"))
    answer = ask.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help=_("approve every side effect without asking"))
    answer.add_argument("--no", action="store_true", help=_("deny every side effect without asking"))


def _add_mcp(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help=_("MCP servers: list, approve, sign in and out, import"))
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True)
    listing = mcp_sub.add_parser("list", help=_("configured servers, their state and tools (starts approved ones)"))
    listing.add_argument("--json", action="store_true")
    approve = mcp_sub.add_parser("approve", help=_("show a server's exact command line and approve its first start"))
    approve.add_argument("name")
    approve.add_argument("--yes", action="store_true", help=_("approve without asking"))
    login = mcp_sub.add_parser("login", help=_("sign in to an HTTP server that asks for it (OAuth in the browser)"))
    login.add_argument("name")
    login.add_argument("--no-browser", action="store_true", help=_("only print the address to open"))
    logout = mcp_sub.add_parser("logout", help=_("sign out: revoke at the service when it can, forget the access tokens"))
    logout.add_argument("name")
    metadata = mcp_sub.add_parser("client-metadata",
                                  help=_("print the client ID metadata document to publish at an https URL"))
    metadata.add_argument("url")
    imp = mcp_sub.add_parser("import", help=_("preview (or --apply) servers from Claude Desktop, Cursor or VS Code"))
    imp.add_argument("file", type=Path)
    imp.add_argument("--apply", action="store_true", help=_("write them to mcp.json"))
    imp.add_argument("--no-keyring", action="store_true", help=_("keep env/header values in mcp.json"))


def _add_rules(sub: Any) -> None:
    rules = sub.add_parser("rules", help=_("permission rules, grants and workspace trust"))
    rules_sub = rules.add_subparsers(dest="rules_command", required=True)
    listing = rules_sub.add_parser("list", help=_("every rule of every layer, with file and line"))
    listing.add_argument("--workspace", type=Path, default=None, help=_("workspace folder (default: current)"))
    listing.add_argument("--json", action="store_true")
    check = rules_sub.add_parser("check", help=_("the verdict for a command line, a path, a URL or an MCP call"))
    check.add_argument("--workspace", type=Path, default=None, help=_("workspace folder (default: current)"))
    what = check.add_mutually_exclusive_group()
    what.add_argument("--path", help=_("a file path a file tool would read (or write, with --write)"))
    check.add_argument("--write", action="store_true", help=_("with --path: check writing it"))
    what.add_argument("--url", help=_("a URL fetch_url would request"))
    check.add_argument("--method", default="GET")
    what.add_argument("--mcp", metavar="SERVER/TOOL", help=_("an MCP call; arguments with --args"))
    check.add_argument("--args", default="{}", help=_("with --mcp: the arguments as a JSON object"))
    check.add_argument("command_line", nargs=argparse.REMAINDER, help=_("-- <command line>"))
    grants = rules_sub.add_parser("grants", help=_("grants in force now"))
    grants.add_argument("--json", action="store_true")
    revoke = rules_sub.add_parser("revoke", help=_("revoke one grant (by id) or all of them"))
    target = revoke.add_mutually_exclusive_group(required=True)
    target.add_argument("grant_id", nargs="?")
    target.add_argument("--all", action="store_true")
    trust = rules_sub.add_parser("trust", help=_("trust a workspace's .echo-desk/permissions.toml as it is now"))
    trust.add_argument("workspace", nargs="?", type=Path, default=None)
    trust.add_argument("--yes", action="store_true", help=_("do not ask for confirmation"))


def _add_changes(sub: Any) -> None:
    changes = sub.add_parser("changes", help=_("files tools wrote, and reverting them"))
    changes_sub = changes.add_subparsers(dest="changes_command", required=True)
    listing = changes_sub.add_parser("list", help=_("every recorded file change, newest first"))
    listing.add_argument("--conversation", default=None, help=_("only this conversation's changes"))
    listing.add_argument("--json", action="store_true", help=_("machine-readable output"))
    revert = changes_sub.add_parser("revert", help=_("restore what a call's files held before it"))
    revert.add_argument("call_id")
    revert.add_argument(
        "--choose", choices=[r.value for r in Resolution], default=None,
        help=_("for a file changed since the tool wrote it: restore what it was (before), what the "
               "tool wrote (tool), or keep what it is now (current). Without it such a file is left alone."))
