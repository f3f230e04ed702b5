"""The headless command line. ``echo-desk`` alone starts the desktop app."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from echo_desk import __version__, sandbox
from echo_desk.agent.dispatcher import new_call_id
from echo_desk.agent.host import ApprovalChoice
from echo_desk.agent.model import ToolCall
from echo_desk.agent.scope import Scope
from echo_desk.agent.visible_text import visible, visible_json
from echo_desk.mcp.cli import (
    CLI_HANDSHAKE_TIMEOUT,
    add_mcp_parser,
    report_failed_servers,
    run_mcp_command,
    servers_for_call,
)
from echo_desk.mcp.config import ConfigError, load_config
from echo_desk.mcp.status import ServerState
from echo_desk.runtime import Runtime
from echo_desk.terminal_host import TerminalHost


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="echo-desk", description="Chat with an agent that uses tools, safely.")
    parser.add_argument("--version", action="version", version=f"echo-desk {__version__}")
    parser.add_argument("--no-mcp", action="store_true", help="do not start the MCP servers of mcp.json")
    sub = parser.add_subparsers(dest="command")

    tools = sub.add_parser("tools", help="inspect the tool catalog")
    tools_sub = tools.add_subparsers(dest="tools_command", required=True)
    listing = tools_sub.add_parser("list", help="every tool with source, risk, enabled, ready, breaker")
    listing.add_argument("--json", action="store_true", help="machine-readable output")
    schema = tools_sub.add_parser("schema", help="the definitions a provider would receive")
    schema.add_argument("--provider", choices=["openai", "anthropic", "gemini", "bedrock"], default="openai")

    call = sub.add_parser("call", help="run one tool through the dispatcher and print its envelope")
    call.add_argument("name")
    call.add_argument("--args", default="{}", help="the arguments as a JSON object")
    call.add_argument("--workspace", type=Path, default=None, help="workspace folder (default: current)")
    answer = call.add_mutually_exclusive_group()
    answer.add_argument("--yes", action="store_true", help="approve without asking")
    answer.add_argument("--no", action="store_true", help="deny without asking")
    add_mcp_parser(sub)
    from echo_desk.cli_ask import add_parser as add_ask

    add_ask(sub)
    from echo_desk.cli_rules import add_parser as add_rules

    add_rules(sub)
    from echo_desk.cli_changes import add_parser as add_changes

    add_changes(sub)
    from echo_desk.cli_connected import add_gateway_parser

    add_gateway_parser(sub)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from echo_desk.cli_connected import handles, run_install_command

    if handles(args):  # the clients' config files and mcp.json only: no engine, no MCP server
        return run_install_command(args)
    # Known at start, off the main thread: the settings page, the approval dialog and the
    # command plans read the cached answer instead of probing bwrap at first use.
    sandbox.check_at_start()
    if args.command is None:
        return _run_gui(argv)
    runtime = Runtime.create()
    try:
        code = asyncio.run(_with_mcp(runtime, args))
    finally:
        runtime.close()
    if code is None:
        parser.print_help()
        return 2
    return code


async def _with_mcp(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """Run one command with the MCP servers of mcp.json attached (the app sees the same tools)."""
    if args.command == "mcp":
        return await run_mcp_command(runtime, args)
    if args.command == "rules":
        from echo_desk.cli_rules import run_rules_command

        return run_rules_command(runtime.permissions, args)
    if args.command == "changes":  # files on disk only: no MCP server needs to start
        from echo_desk.cli_changes import run_changes

        return run_changes(runtime, args)
    servers = _servers_needed(runtime, args)
    if servers is None or servers:
        # No window to keep responsive: the sessions share this loop (fewer thread hops per call).
        manager = await runtime.attach_mcp(
            TerminalHost(auto=ApprovalChoice.DENY), own_thread=False, only=servers,
            handshake_timeout=CLI_HANDSHAKE_TIMEOUT,
        )
        report_failed_servers(manager)
    try:
        if args.command == "tools" and args.tools_command == "list":
            return _tools_list(runtime, as_json=args.json)
        if args.command == "tools" and args.tools_command == "schema":
            definitions, errors = runtime.schema_factory.for_provider(args.provider)
            print(visible_json(definitions, indent=2))
            for error in errors:
                print(f"not sent: {visible(str(error), one_line=True)}", file=sys.stderr)
            return 0
        if args.command == "call":
            return await _call(runtime, args)
        if args.command == "ask":
            from echo_desk.cli_ask import run_ask

            return await run_ask(runtime, args)
        return None
    finally:
        await runtime.close_mcp()


def _servers_needed(runtime: Runtime, args: argparse.Namespace) -> list[str] | None:
    """Which MCP servers the command needs started: ``None`` all, ``[]`` none.

    ``call`` of a built-in or plugin tool needs none, and of an MCP tool only its server: a
    server that hangs must not delay commands that do not use it."""
    if args.no_mcp:
        return []
    if args.command != "call":
        return None  # listing tools and chatting show every server's tools
    if runtime.registry.get(args.name) is not None:
        return []
    try:
        names = list(load_config())
    except ConfigError:
        return None  # attaching reports the broken mcp.json
    return servers_for_call(args.name, names)


def _run_gui(argv: list[str]) -> int:
    try:
        from echo_desk.ui.app import run_gui
    except ImportError as exc:
        print(f"The desktop app is not available: {exc}. The CLI works: echo-desk --help", file=sys.stderr)
        return 1
    return int(run_gui(argv))


def _tools_list(runtime: Runtime, *, as_json: bool) -> int:
    availability = {a.name: a for a in runtime.schema_factory.availability()}
    rows: list[dict[str, Any]] = []
    for entry in runtime.registry.entries():
        breaker = runtime.breakers.status(entry.name)
        standing = runtime.standing(entry.name)
        assert standing is not None
        rows.append({
            "name": entry.name,
            "source": entry.source,
            "risk": standing.risk,
            "enabled": standing.enabled,
            "default": standing.default.value,
            "default_by": standing.default_by,
            "rules": standing.rule_count,
            "ready": entry.tool.is_ready(),
            "readiness": entry.tool.readiness_detail(),
            "breaker": breaker.state.value,
            "visible": availability[entry.name].visible,
        })
    # A server waiting for its first-start approval has no tools yet: say why they are missing.
    waiting = awaiting_approval(runtime)
    if as_json:
        print(visible_json({"tools": rows, "mcp_awaiting_approval": waiting}, indent=2))
    else:
        _print_tool_rows(rows)
    if waiting:
        print(visible(awaiting_note(waiting)), file=sys.stderr)
    if as_json:
        return 0
    for problem in runtime.problems:
        print(f"not loaded: {visible(problem.message, one_line=True)}", file=sys.stderr)
    return 0


def awaiting_approval(runtime: Runtime) -> list[str]:
    """The MCP servers of mcp.json that wait for the person to approve their first start."""
    if runtime.mcp is None:
        return []
    return sorted(s.name for s in runtime.mcp.statuses() if s.state is ServerState.AWAITING_APPROVAL)


def awaiting_note(names: list[str]) -> str:
    """``1 MCP server awaits approval: echo-desk mcp approve memory`` (one command per server)."""
    commands = "; ".join(f"echo-desk mcp approve {name}" for name in names)
    if len(names) == 1:
        return f"1 MCP server awaits approval: {commands}"
    return f"{len(names)} MCP servers await approval: {commands}"


def _print_tool_rows(rows: list[dict[str, Any]]) -> None:
    print(f"{'NAME':<24} {'SOURCE':<14} {'RISK':<6} {'ENABLED':<8} {'DEFAULT':<8} {'RULES':<6} {'READY':<6} BREAKER")
    for r in rows:
        ready = "yes" if r["ready"] else "no"
        name, source, readiness = (visible(str(r[k]), one_line=True) for k in ("name", "source", "readiness"))
        print(f"{name:<24} {source:<14} {r['risk']:<6} {('yes' if r['enabled'] else 'no'):<8} "
              f"{r['default']:<8} {r['rules']:<6} {ready:<6} {r['breaker']}" + (f"  ({readiness})" if r["readiness"] else ""))


async def _call(runtime: Runtime, args: argparse.Namespace) -> int:
    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        print(f"workspace {workspace} is not a folder", file=sys.stderr)
        return 2
    auto = ApprovalChoice.ALLOW_ONCE if args.yes else ApprovalChoice.DENY if args.no else None
    host = TerminalHost(auto=auto)
    scope = Scope(label="cli", workspace_roots=(workspace,))
    envelope = await runtime.dispatcher.execute_tool(
        ToolCall(id=new_call_id(), name=args.name, arguments=args.args), scope, host
    )
    print(visible_json(envelope.to_json(), indent=2))
    return 0 if envelope.ok else 1
