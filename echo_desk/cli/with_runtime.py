"""The commands that need the whole runtime: the tool catalog, one call, a chat (``ask``), the
MCP servers and the undo journal (``changes``). Each runs with the MCP servers of mcp.json
attached where it lists or calls tools (the app sees the same tools)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from echo_desk.agent.breaker import BreakerStatus
from echo_desk.agent.dispatcher import new_call_id
from echo_desk.agent.host import ApprovalChoice
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import ToolStanding
from echo_desk.agent.readiness import Readiness, readiness_of
from echo_desk.agent.registry import RegisteredTool
from echo_desk.agent.scope import Scope
from echo_desk.cli import owed_checks, words
from echo_desk.cli.left_at_quit import close_and_tell
from echo_desk.cli.mcp import (
    CLI_HANDSHAKE_TIMEOUT,
    report_failed_servers,
    run_mcp_command,
    servers_for_call,
)
from echo_desk.cli.terminal_host import TerminalHost
from echo_desk.common.visible_text import visible, visible_json
from echo_desk.i18n import N_, _, ngettext, said_by_tool, shown
from echo_desk.mcp.config import ConfigError, load_config
from echo_desk.mcp.status import ServerState
from echo_desk.runtime import Runtime
from echo_desk.store.secrets import install_system_store
from echo_desk.ui.core.labels import (
    DEFAULT_POLICIES,
    approval_label,
    breaker_label,
    not_ready_label,
    risk_label,
    source_label,
)


def run(args: argparse.Namespace) -> int | None:
    """Run one command on a runtime made for it; ``None`` when ``args`` names none."""
    install_system_store()  # API keys, mcp.json's keyring references and MCP sign-ins persist
    runtime = Runtime.create()
    try:
        return asyncio.run(_with_mcp(runtime, args))
    finally:
        runtime.close()


async def _with_mcp(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """Run one command, beside the checks an earlier Echo Desk owed (said once it ended)."""
    checks = asyncio.ensure_future(asyncio.to_thread(owed_checks.make_owed_checks, runtime))
    try:
        return await _command(runtime, args)
    finally:
        owed_checks.tell(await checks)


async def _command(runtime: Runtime, args: argparse.Namespace) -> int | None:
    """Run one command with the MCP servers of mcp.json attached (the app sees the same tools)."""
    if args.command == "mcp":
        return await run_mcp_command(runtime, args)
    if args.command == "changes":  # files on disk only: no MCP server needs to start
        from echo_desk.cli.changes import run_changes

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
                print(_("not sent: {error}").format(error=visible(str(error), one_line=True)), file=sys.stderr)
            return 0
        if args.command == "call":
            return await _call(runtime, args)
        if args.command == "ask":
            from echo_desk.cli.ask import run_ask

            return await run_ask(runtime, args)
        return None
    finally:
        await close_and_tell(runtime)


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


def _tools_list(runtime: Runtime, *, as_json: bool) -> int:
    availability = {a.name: a for a in runtime.schema_factory.availability()}
    rows: list[dict[str, Any]] = []
    #: Each row as the person reads it, in Settings › Tools' words (the JSON keeps the values).
    table: list[list[str]] = []
    for entry in runtime.registry.entries():
        readiness = readiness_of(entry.tool)  # a check that raises: not ready, and why (never a crash)
        breaker = runtime.breakers.status(entry.name)
        standing = runtime.standing(entry.name)
        assert standing is not None
        table.append(_tool_cells(entry, readiness, breaker, standing))
        rows.append({
            "name": entry.name,
            "source": entry.source,
            "risk": standing.risk,
            "enabled": standing.enabled,
            "default": standing.default.value,
            "default_by": standing.default_by,
            "rules": standing.rule_count,
            "ready": readiness.ready,
            "readiness": str(readiness.detail),
            "breaker": breaker.state.value,
            "visible": availability[entry.name].visible,
        })
    # A server waiting for its first-start approval has no tools yet: say why they are missing.
    waiting = awaiting_approval(runtime)
    if as_json:
        print(visible_json({"tools": rows, "mcp_awaiting_approval": waiting}, indent=2))
    else:
        for line in words.table([[_(heading) for heading in _TOOL_HEADINGS], *table]):
            print(line)
    if waiting:
        print(visible(awaiting_note(waiting)), file=sys.stderr)
    if as_json:
        return 0
    for problem in runtime.problems:
        print(_("not loaded: {problem}").format(problem=visible(problem.message, one_line=True)), file=sys.stderr)
    return 0


def awaiting_approval(runtime: Runtime) -> list[str]:
    """The MCP servers of mcp.json that wait for the person to approve their first start."""
    if runtime.mcp is None:
        return []
    return sorted(s.name for s in runtime.mcp.statuses() if s.state is ServerState.AWAITING_APPROVAL)


def awaiting_note(names: list[str]) -> str:
    """``1 MCP server awaits approval: echo-desk mcp approve memory`` (one command per server)."""
    commands = "; ".join(f"echo-desk mcp approve {name}" for name in names)  # not prose: commands to type
    return ngettext("{n} MCP server awaits approval: {commands}", "{n} MCP servers await approval: {commands}",
                    len(names)).format(n=len(names), commands=commands)


_TOOL_HEADINGS = (N_("NAME"), N_("SOURCE"), N_("RISK"), N_("ENABLED"), N_("APPROVAL"), N_("RULES"), N_("STATUS"))


def _tool_cells(entry: RegisteredTool, readiness: Readiness, breaker: BreakerStatus, standing: ToolStanding) -> list[str]:
    """A tool's row in the words and case of Settings › Tools: its source ("Built-in"), risk,
    approval ("Default (Ask)") and status ("Ready", "Not ready: …", "Paused after …")."""
    status = []
    if not readiness.ready:
        status.append(not_ready_label(said_by_tool(entry.tool, readiness.detail) if readiness.detail else ""))
    offline = getattr(entry.tool, "offline_detail", None)  # an MCP tool's server that failed
    if callable(offline) and (note := offline()):
        status.append(shown(note))
    if breaker_text := breaker_label(breaker):
        status.append(breaker_text)
    approval = approval_label(DEFAULT_POLICIES[standing.default.value], explicit=standing.policy_explicit)
    return [visible(entry.name, one_line=True), visible(source_label(entry.source), one_line=True),
            risk_label(standing.risk), words.yes_no(standing.enabled), approval, str(standing.rule_count),
            visible(" · ".join(status), one_line=True) if status else _("Ready")]


async def _call(runtime: Runtime, args: argparse.Namespace) -> int:
    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        print(_("workspace {path} is not a folder").format(path=workspace), file=sys.stderr)
        return 2
    auto = ApprovalChoice.ALLOW_ONCE if args.yes else ApprovalChoice.DENY if args.no else None
    host = TerminalHost(auto=auto)
    scope = Scope(label="cli", workspace_roots=(workspace,))
    envelope = await runtime.dispatcher.execute_tool(
        ToolCall(id=new_call_id(), name=args.name, arguments=args.args), scope, host
    )
    print(visible_json(envelope.to_json(), indent=2))
    return 0 if envelope.ok else 1
