"""``echo-desk mcp ...``: list servers, approve a first start, sign in and out, import another
client's config."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from echo_desk.cli import words
from echo_desk.cli.browser import open_in_browser
from echo_desk.common.visible_text import visible, visible_json
from echo_desk.i18n import N_, _, aside, clause_text, labelled, list_text, ngettext, shown
from echo_desk.mcp.config import ConfigError
from echo_desk.mcp.importers import ImportAction, apply_import, preview_import
from echo_desk.mcp.manager import McpManager
from echo_desk.mcp.oauth import OpenUrl, client_metadata_document
from echo_desk.mcp.sanitize import server_prefix
from echo_desk.mcp.status import FLAG_LABELS, STATE_LABELS, FlagKind, ServerState
from echo_desk.ui.core.labels import not_ready_label

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
                         handshake_timeout=CLI_HANDSHAKE_TIMEOUT, owed=runtime.owed_server_checks())
    try:
        if manager.config_error:
            print(f"mcp.json: {_v(manager.config_error)}", file=sys.stderr)
            return 1
        if args.mcp_command == "approve":
            return await _approve(manager, args)
        if args.mcp_command in ("login", "logout"):
            return await sign_in_out(manager, args)
        statuses = await manager.start_all()
        if args.json:
            print(visible_json([_status_json(s) for s in statuses], indent=2))
            return 0
        _print_statuses(statuses)
        return 0
    finally:
        from echo_desk.cli.left_at_quit import close_manager_and_tell

        await close_manager_and_tell(runtime, manager)


def _print_statuses(statuses: list[Any]) -> None:
    for status in statuses:
        state = _(STATE_LABELS[status.state])
        detail = f"  {_v(shown(status.detail))}" if status.detail else ""
        print(f"{words.padded(_v(status.name), 20)} {status.transport:<6} {state}{detail}")
        for tool in status.tools:
            # The words of Settings: "Ready" / "Not ready: …" (the catalog), each flag by its label.
            flags = clause_text(labelled(_(FLAG_LABELS[f.kind]), _v(shown(f.detail)))
                                for f in tool.flags if f.kind != FlagKind.ANNOTATION)
            ready = _("Ready") if tool.ready else not_ready_label(_v(shown(tool.readiness)))
            print(f"    {words.padded(_v(tool.registry_name), 40)} {aside(ready, flags) if flags else ready}")
        for problem in status.problems:
            print("    " + _("problem: {problem}").format(problem=_v(shown(problem))))
        if status.state is ServerState.ERROR:
            for line in status.stderr_tail[-5:]:
                print(f"    stderr: {_v(line)}")  # a server's stderr may hold ESC sequences


def _status_json(status: Any) -> dict[str, Any]:
    from dataclasses import asdict

    out = asdict(status)
    out["icon"] = status.icon is not None  # the image itself is for the app's rows
    return out


async def _approve(manager: McpManager, args: argparse.Namespace) -> int:
    if args.name not in manager.server_names():
        print(_no_such_server(args.name), file=sys.stderr)
        return 2
    request = manager.start_request(args.name)
    if request is None:
        print(_("{name} is already approved").format(name=_v(args.name)))
        return 0
    print(_("MCP server “{name}” ({transport}) wants to start:").format(name=_v(args.name),
                                                                       transport=_v(request.transport)))
    # A two-column table (no colons: a full-width one would stand before the padding in Chinese).
    none = _("(none)")
    if request.command:
        facts = [[_("command line"), _v(" ".join(request.command_line))],
                 [_("environment variable names"), _v(list_text(request.env_names)) or none]]
        if request.cwd:
            facts.append([_("folder"), _v(request.cwd)])
    else:
        facts = [[_("server URL"), _v(request.url)], [_("headers"), _v(list_text(request.header_names)) or none]]
    for line in words.table(facts):
        print(f"  {line}")
    if request.previous_fingerprint:
        print("  " + _("(the configuration changed since you last approved it)"))
    if not args.yes:
        if not sys.stdin.isatty():
            print(_("not approved: no terminal to ask on (use --yes)"), file=sys.stderr)
            return 1
        answer = await asyncio.to_thread(input, _("Approve? [y/N] "))
        if answer.strip().lower()[:1] != "y":
            print(_("not approved"))
            return 1
    manager.approve_start(args.name, request.fingerprint)
    print(_("approved"))
    return 0


def _no_such_server(name: str) -> str:
    return _("no MCP server named “{name}” in mcp.json").format(name=_v(name))


def _opener(use_browser: bool) -> OpenUrl:
    async def open_url(url: str) -> None:
        # The address comes from the server's metadata: printed with escapes visible, in full.
        print(_("Open this address in your browser to sign in:\n  {url}").format(url=visible(url)), flush=True)
        if use_browser:
            await open_in_browser(url)
        print(_("Waiting for the sign-in to finish in the browser (Ctrl+C cancels)…"), flush=True)

    return open_url


async def sign_in_out(manager: McpManager, args: argparse.Namespace) -> int:
    """``mcp login NAME`` / ``mcp logout NAME``."""
    if args.name not in manager.server_names():
        print(_no_such_server(args.name), file=sys.stderr)
        return 2
    if manager.config_of(args.name).is_stdio:
        print(_("“{name}” is a local (stdio) server: it has no sign-in").format(name=_v(args.name)), file=sys.stderr)
        return 2
    if args.mcp_command == "logout":
        result = await manager.sign_out(args.name)
        if result.problem:
            print(_("signed out here; the service did not revoke the sign-in: {problem}").format(
                problem=_v(shown(result.problem))), file=sys.stderr)
            return 1
        print(_("signed out (revoked at the service)") if result.revoked else _("signed out"))
        return 0
    if manager.start_request(args.name) is not None:
        print(_("approve the server first: echo-desk mcp approve {name}").format(name=_v(args.name)), file=sys.stderr)
        return 1
    status = await manager.sign_in(args.name, _opener(not args.no_browser))
    if status.state is not ServerState.CONNECTED:
        print(_("not signed in: {why}").format(why=_v(shown(status.detail))), file=sys.stderr)
        return 1
    who = status.sign_in.issuer if status.sign_in is not None else "?"
    print(ngettext("signed in to {name} with {issuer}; {n} tool", "signed in to {name} with {issuer}; {n} tools",
                   len(status.tools)).format(name=_v(args.name), issuer=_v(who), n=len(status.tools)))
    return 0


def _client_metadata(url: str) -> int:
    print(json.dumps(client_metadata_document(url), indent=2))
    return 0


def _import(args: argparse.Namespace) -> int:
    try:
        preview = preview_import(args.file, use_keyring=not args.no_keyring)
    except ConfigError as exc:
        print(_v(shown(str(exc))), file=sys.stderr)
        return 1
    print(_("from {path} ({kind}):").format(path=_v(preview.source), kind=preview.source_kind))
    actions = [_(_IMPORT_ACTIONS[item.action]) for item in preview.items]
    width = max(words.cells(_(word)) for word in _IMPORT_ACTIONS.values())  # one column, whichever appear
    for item, action in zip(preview.items, actions, strict=True):
        notes = [_v(_(shown(item.reason)))] if item.reason else []  # a Deferred, or a message id (N_)
        if item.to_keyring:
            notes.append(_("secrets to keyring: {names}").format(names=_v(list_text(item.to_keyring))))
        if item.left_in_file:
            notes.append(_("left in mcp.json (no system keyring): {names}").format(names=_v(list_text(item.left_in_file))))
        if item.needs_secrets:
            notes.append(_("set in keyring first: {names}").format(names=_v(list_text(item.needs_secrets))))
        notes_text = "".join(f"  {note}" for note in notes)
        print(f"  {words.padded(action, width)} {_v(item.name)}{notes_text}")
    if not args.apply:
        print(_("nothing written (add --apply to write mcp.json)"))
        return 0
    written = apply_import(preview)
    print(_("written to mcp.json: {names}").format(names=_v(list_text(written)) or _("nothing")))
    skipped = [i.name for i in preview.items if i.action is ImportAction.SKIP]
    return 1 if skipped and not written else 0


#: What ``mcp import`` would do with each server, as its preview heads the line.
_IMPORT_ACTIONS = {ImportAction.ADD: N_("add"), ImportAction.CHANGE: N_("change"), ImportAction.SAME: N_("same"),
                   ImportAction.SKIP: N_("skip")}

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
            print(_("MCP server “{name}” is failing: {why}").format(name=_v(status.name), why=_v(shown(status.detail))),
                  file=sys.stderr)
