"""``echo-desk mcp ...``: list servers, approve a first start, sign in and out, import another
client's config."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from echo_desk.cli.browser import open_in_browser
from echo_desk.common.visible_text import visible, visible_json
from echo_desk.i18n import shown
from echo_desk.mcp.config import ConfigError
from echo_desk.mcp.importers import ImportAction, apply_import, preview_import
from echo_desk.mcp.manager import McpManager
from echo_desk.mcp.oauth import OpenUrl, client_metadata_document
from echo_desk.mcp.sanitize import server_prefix
from echo_desk.mcp.status import ServerState

if TYPE_CHECKING:
    from echo_desk.runtime import Runtime


def _v(text: object) -> str:
    """Server names, details and stderr as printed: escapes shown, never obeyed by the terminal."""
    return visible(str(text), one_line=True)


async def run_mcp_command(runtime: Runtime, args: argparse.Namespace) -> int:
    if args.mcp_command == "import":
        return _import(args)
    if args.mcp_command == "client-metadata":
        return _client_metadata(args.url)
    manager = McpManager(runtime.settings, registry=runtime.registry, loop=asyncio.get_running_loop(),
                         handshake_timeout=CLI_HANDSHAKE_TIMEOUT)
    try:
        if manager.config_error:
            print(f"mcp.json: {manager.config_error}", file=sys.stderr)
            return 1
        if args.mcp_command == "approve":
            return await _approve(manager, args)
        if args.mcp_command in ("login", "logout"):
            return await sign_in_out(manager, args)
        statuses = await manager.start_all()
        if args.json:
            print(visible_json([_status_json(s) for s in statuses], indent=2))
            return 0
        for status in statuses:
            print(f"{_v(status.name):<20} {status.transport:<6} {status.state.value}  {_v(status.detail)}")
            for tool in status.tools:
                flags = "".join(f"  [{f.kind}: {_v(f.detail)}]" for f in tool.flags if f.kind != "annotation")
                print(f"    {_v(tool.registry_name):<40} {'ready' if tool.ready else 'BLOCKED'}{flags}")
            for problem in status.problems:
                print(f"    problem: {_v(problem)}")
            if status.state.value == "error":
                for line in status.stderr_tail[-5:]:
                    print(f"    stderr: {_v(line)}")  # a server's stderr may hold ESC sequences
        return 0
    finally:
        await manager.aclose()


def _status_json(status: Any) -> dict[str, Any]:
    from dataclasses import asdict

    out = asdict(status)
    out["icon"] = status.icon is not None  # the image itself is for the app's rows
    return out


async def _approve(manager: McpManager, args: argparse.Namespace) -> int:
    if args.name not in manager.server_names():
        print(f"no MCP server named '{_v(args.name)}' in mcp.json", file=sys.stderr)
        return 2
    request = manager.start_request(args.name)
    if request is None:
        print(f"{_v(args.name)} is already approved")
        return 0
    print(f"MCP server '{_v(args.name)}' ({_v(request.transport)}) wants to start:")
    if request.command:
        print("  command line: " + _v(" ".join(request.command_line)))
        print("  env names:    " + (_v(", ".join(request.env_names)) or "(none)"))
        if request.cwd:
            print(f"  folder:       {_v(request.cwd)}")
    else:
        print(f"  url:          {_v(request.url)}")
        print("  headers:      " + (_v(", ".join(request.header_names)) or "(none)"))
    if request.previous_fingerprint:
        print("  (the configuration changed since you last approved it)")
    if not args.yes:
        if not sys.stdin.isatty():
            print("not approved: no terminal to ask on (use --yes)", file=sys.stderr)
            return 1
        answer = await asyncio.to_thread(input, "Approve? [y/N] ")
        if answer.strip().lower()[:1] != "y":
            print("not approved")
            return 1
    manager.approve_start(args.name, request.fingerprint)
    print("approved")
    return 0


def _opener(use_browser: bool) -> OpenUrl:
    async def open_url(url: str) -> None:
        # The address comes from the server's metadata: printed with escapes visible, in full.
        print(f"Open this address in your browser to sign in:\n  {visible(url)}", flush=True)
        if use_browser:
            await open_in_browser(url)
        print("Waiting for the sign-in to finish in the browser (Ctrl+C cancels)…", flush=True)

    return open_url


async def sign_in_out(manager: McpManager, args: argparse.Namespace) -> int:
    """``mcp login NAME`` / ``mcp logout NAME``."""
    if args.name not in manager.server_names():
        print(f"no MCP server named '{_v(args.name)}' in mcp.json", file=sys.stderr)
        return 2
    if manager.config_of(args.name).is_stdio:
        print(f"'{_v(args.name)}' is a local (stdio) server: it has no sign-in", file=sys.stderr)
        return 2
    if args.mcp_command == "logout":
        result = await manager.sign_out(args.name)
        if result.problem:
            print(f"signed out here; the service did not revoke the sign-in: {_v(shown(result.problem))}",
                  file=sys.stderr)
            return 1
        print("signed out" + (" (revoked at the service)" if result.revoked else ""))
        return 0
    if manager.start_request(args.name) is not None:
        print(f"approve the server first: echo-desk mcp approve {_v(args.name)}", file=sys.stderr)
        return 1
    status = await manager.sign_in(args.name, _opener(not args.no_browser))
    if status.state is not ServerState.CONNECTED:
        print(f"not signed in: {_v(shown(status.detail))}", file=sys.stderr)
        return 1
    who = status.sign_in.issuer if status.sign_in is not None else "?"
    print(f"signed in to {_v(args.name)} with {_v(who)}; {len(status.tools)} tools")
    return 0


def _client_metadata(url: str) -> int:
    print(json.dumps(client_metadata_document(url), indent=2))
    return 0


def _import(args: argparse.Namespace) -> int:
    try:
        preview = preview_import(args.file, use_keyring=not args.no_keyring)
    except ConfigError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"from {_v(preview.source)} ({preview.source_kind}):")
    for item in preview.items:
        extra = ""
        if item.to_keyring:
            extra += f"  secrets to keyring: {_v(', '.join(item.to_keyring))}"
        if item.left_in_file:
            extra += f"  left in mcp.json (no system keyring): {_v(', '.join(item.left_in_file))}"
        if item.needs_secrets:
            extra += f"  set in keyring first: {_v(', '.join(item.needs_secrets))}"
        print(f"  {item.action.value:<7} {_v(item.name)}  {_v(item.reason)}{extra}")
    if not args.apply:
        print("nothing written (add --apply to write mcp.json)")
        return 0
    written = apply_import(preview)
    print(f"written to mcp.json: {_v(', '.join(written)) or 'nothing'}")
    skipped = [i.name for i in preview.items if i.action is ImportAction.SKIP]
    return 1 if skipped and not written else 0


#: How long ``echo-desk`` waits for a server's handshake before reporting it as failing
#: (the app waits longer, in the background: nobody is blocked by it there). Not much less:
#: a Python server importing its SDK took over 10 s on a busy 2-core machine.
CLI_HANDSHAKE_TIMEOUT = 20.0


def servers_for_call(tool_name: str, server_names: list[str]) -> list[str]:
    """The servers that may offer ``tool_name`` (by its ``server__`` prefix); all of them if
    none matches (a long name is shortened with a hash and keeps no full prefix)."""
    matching = [name for name in server_names if tool_name.startswith(server_prefix(name))]
    return matching or list(server_names)


def report_failed_servers(manager: McpManager) -> None:
    """One line on stderr per server that could not be started (no traceback)."""
    for status in manager.statuses():
        if status.state is ServerState.ERROR:
            print(f"MCP server {status.name!r} is failing: {status.detail!r}", file=sys.stderr)
