"""``echo-desk gateway``: Echo Desk as an MCP server for other clients (docs/gateway.md).

    echo-desk gateway --client NAME [--workspace DIR] [--no-start]   MCP on stdio, relayed to the app
    echo-desk gateway --http PORT                                    MCP over HTTP on 127.0.0.1
    echo-desk gateway status [--json]                                is the app reachable, who is connected
    echo-desk gateway token --client NAME                            a new HTTP bearer token (printed once)
    echo-desk gateway install|uninstall --client NAME [--dry-run]    move a client's servers behind Echo Desk
                                                                     (docs/connected-apps.md; cli/connected.py)

Imports stay inside the functions: a client starts this process often and waits for it.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

from echo_desk.i18n import _, shown


def add_parser(sub: Any) -> None:
    gateway = sub.add_parser("gateway", help=_("serve Echo Desk's tools to another MCP client (docs/gateway.md)"))
    add_arguments(gateway)


def add_arguments(gateway: argparse.ArgumentParser) -> None:
    gateway.add_argument("action", nargs="?", default="serve",
                         choices=["serve", "status", "token", "install", "uninstall"],
                         help=_("serve (default): MCP on stdio, or over HTTP with --http; status; token; "
                                "install/uninstall: move a client's MCP servers behind Echo Desk, or back"))
    gateway.add_argument("--client", help=_("the client's name: cursor, claude-code, vscode, claude-desktop, goose…"))
    gateway.add_argument("--workspace", type=Path, default=None,
                         help=_("the client's project folder (default: the folder it starts the gateway in)"))
    gateway.add_argument("--http", type=_port, metavar="PORT", default=None,
                         help=_("serve streamable HTTP on 127.0.0.1:PORT instead of stdio (bearer token per client)"))
    gateway.add_argument("--no-start", action="store_true",
                         help=_("never start the Echo Desk app when it is not running"))
    gateway.add_argument("--json", action="store_true", help=_("status: machine-readable"))
    gateway.add_argument("--dry-run", action="store_true",
                         help=_("install/uninstall: print the diff of the client's file; write nothing"))
    gateway.add_argument("--keep", action="append", default=[], metavar="SERVER",
                         help=_("install: leave this server in the client's file (repeatable)"))
    gateway.add_argument("--no-sandbox", action="store_true",
                         help=_("install: start the moved stdio servers unsandboxed"))
    gateway.add_argument("--no-keyring", action="store_true", help=_("install: keep env/header values in mcp.json"))


def _port(text: str) -> int:
    """A TCP port, 1 to 65535 (a larger one made the socket raise ``OverflowError``, a traceback)."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(_("{value} is not a port: give a number from 1 to 65535").format(
            value=text))
    return port


def main(argv: list[str]) -> int:
    """``echo-desk gateway ARGS`` without the rest of the CLI's imports (``echo_desk.__main__``
    comes here directly: a client starts the gateway often and waits for it)."""
    from echo_desk.cli.language import localise_help, use_chosen_language

    use_chosen_language()  # its help and errors in the person's language, as the rest of the CLI
    parser = argparse.ArgumentParser(prog="echo-desk gateway",
                                     description=_("Serve Echo Desk's tools to another MCP client (docs/gateway.md)."))
    add_arguments(parser)
    localise_help(parser)
    return run(parser.parse_args(argv))


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="echo-desk gateway: %(message)s")
    if args.action == "status":
        return _status(as_json=args.json)
    if args.action == "token":
        return _token(args.client)
    if args.action in ("install", "uninstall"):  # the clients' files and mcp.json only: no app, no engine
        from echo_desk.cli.connected import run_install_command

        return run_install_command(args)
    if args.http is not None:
        from echo_desk.gateway.http_failure import listen_failure

        try:
            asyncio.run(_serve_http(args.http, start_app=not args.no_start))
        except OSError as exc:  # the port is taken, or not ours to use: said as a sentence, not "[Errno 98] …"
            print(f"echo-desk gateway: {listen_failure(args.http, exc)}", file=sys.stderr)
            return 1
        return 0
    if not args.client:
        print(_("{command}: --client NAME is required (for example --client cursor)").format(command="echo-desk gateway"),
              file=sys.stderr)
        return 2
    return _serve_stdio(args)


def _serve_stdio(args: argparse.Namespace) -> int:
    from echo_desk.gateway.backend import AppBackend
    from echo_desk.gateway.clients import BadClientName, client_key
    from echo_desk.gateway.launch import AppLauncher
    from echo_desk.gateway.local_socket import socket_path
    from echo_desk.gateway.stdio_gateway import serve_stdio

    try:
        client = client_key(args.client)
    except BadClientName as exc:
        print(f"echo-desk gateway: {exc}", file=sys.stderr)  # already in this command's language
        return 2
    workspace = str((args.workspace or Path(os.getcwd())).resolve())
    backend = AppBackend(socket_path(), client, workspace=workspace, launcher=AppLauncher(allowed=not args.no_start),
                         fallback_factory=lambda why: _fallback_factory(client, workspace, why))
    return asyncio.run(serve_stdio(backend))


async def _serve_http(port: int, *, start_app: bool) -> None:
    from echo_desk.gateway.backend import AppBackend
    from echo_desk.gateway.http import HttpGateway, settings_clients
    from echo_desk.gateway.launch import AppLauncher
    from echo_desk.gateway.local_socket import socket_path
    from echo_desk.store.paths import config_dir
    from echo_desk.store.settings import SETTINGS_FILE

    path, launcher = socket_path(), AppLauncher(allowed=start_app)

    def make_backend(client: str) -> AppBackend:
        return AppBackend(path, client, transport="http", launcher=launcher,
                          fallback_factory=lambda why: _fallback_factory(client, "", why))

    async def announce(listening: asyncio.Event) -> None:
        await listening.wait()  # only once it listens: it may refuse to start, saying why
        print(_("{command}: MCP over HTTP on {url} (a client's bearer token needed)").format(
            command="echo-desk gateway", url=f"http://127.0.0.1:{port}/mcp"), file=sys.stderr)

    listening = asyncio.Event()
    announcing = asyncio.ensure_future(announce(listening))
    try:
        await HttpGateway(port, settings_clients(config_dir() / SETTINGS_FILE), make_backend).serve(listening)
    finally:
        announcing.cancel()


async def _fallback_factory(client: str, workspace: str, why: str) -> Any:
    """The engine in this process, for when the app cannot be reached: what the rules allow
    runs; what needs the person is refused at once, saying why. It makes the checks an earlier
    Echo Desk owed (``cli.owed_checks``), as the app and the CLI do at their start."""
    from echo_desk.cli.owed_checks import make_owed_checks
    from echo_desk.gateway.fallback import NobodyHost, local_backend
    from echo_desk.gateway.service import workspace_of
    from echo_desk.mcp.first_starts import FirstStarts
    from echo_desk.runtime import Runtime
    from echo_desk.store.secrets import install_system_store

    # mcp.json's keyring references and MCP sign-ins, as the app reads them (it may probe D-Bus).
    await asyncio.to_thread(install_system_store)
    runtime = await asyncio.to_thread(functools.partial(Runtime.create, client=client))
    # This engine runs sandboxed commands and servers in the person's folders while the app may
    # stay closed for days: what a killed Echo Desk left unchecked is checked now, beside the
    # client's calls (a client waits for none of it). Each check is claimed first, so that the
    # app, the CLI or another gateway starting at once never makes it too; the person is told by
    # the app's notice at its next start, and Activity has it at once.
    checks = asyncio.ensure_future(asyncio.to_thread(make_owed_checks, runtime))
    starts: FirstStarts | None = None

    async def close() -> None:
        if starts is not None:
            await starts.aclose()
        await checks  # its records go to this engine's audit log, so before that closes
        await runtime.aclose()

    try:
        # None started yet (``only``): each starts on its own below, so that a call waits for its
        # own tool's server only, not for the slowest of them.
        manager = await runtime.attach_mcp(NobodyHost(why=why), own_thread=False, handshake_timeout=20.0, only=())
    except Exception:  # a broken mcp.json: the built-ins still answer
        logging.getLogger(__name__).exception("the MCP servers could not be started")
        return local_backend(runtime, client, workspace_of(workspace), close, why)
    starts = FirstStarts(manager)

    return local_backend(runtime, client, workspace_of(workspace), close, why, starts.for_tool, starts.every,
                         starts.still_starting)


def _status(*, as_json: bool) -> int:
    from echo_desk.gateway.local_socket import socket_path
    from echo_desk.gateway.relay import AppUnreachable, app_status

    path = socket_path()
    try:
        answer = asyncio.run(app_status(path))
    except AppUnreachable as exc:
        why = exc.args[0] if exc.args else ""
        if as_json:
            print(json.dumps({"reachable": False, "why": str(why), "socket": str(path)}))
        else:
            print(_("{why} (socket {path})").format(why=shown(why), path=path))
        return 1
    clients = answer.get("clients") or []
    if as_json:
        print(json.dumps({"reachable": True, "socket": str(path), "app": answer.get("app"), "clients": clients}))
        return 0
    from echo_desk.cli.words import padded
    from echo_desk.common.visible_text import visible
    from echo_desk.gateway.clients import display_name

    print(_("Echo Desk is running ({app}); socket {path}").format(app=visible(str(answer.get("app")), one_line=True),
                                                                  path=path))
    if not clients:
        print(_("No client is connected."))
    for c in clients:
        counts = _("{running} running, {waiting} waiting for you").format(running=c.get("running", 0),
                                                                          waiting=c.get("waiting_for_person", 0))
        # The transport is what the client's own hello said: shown as text, never as terminal codes.
        transport = visible(str(c.get("transport", "")), one_line=True)
        # Named as Settings › Connected apps and the approval dialog name it ("Cursor", not "cursor").
        client = visible(display_name(str(c.get("client"))), one_line=True)
        print(f"  {padded(client, 16)} {transport:<6} {counts}")
    return 0


def _token(client: str | None) -> int:
    from echo_desk.gateway.clients import BadClientName, client_key
    from echo_desk.gateway.tokens import new_token, tokens_path

    if not client:
        print(_("{command}: --client NAME is required").format(command="echo-desk gateway token"), file=sys.stderr)
        return 2
    try:
        key = client_key(client)
        token = new_token(key)
    except (BadClientName, OSError) as exc:
        print(f"echo-desk gateway token: {exc}", file=sys.stderr)
        return 2
    print(token)
    print(_("(the bearer token of {client} for the HTTP gateway; it is shown once: Echo Desk keeps only its hash, "
            "in {path})").format(client=key, path=tokens_path()), file=sys.stderr)
    return 0
