"""``echo-desk gateway install|uninstall --client NAME [--dry-run]``: move a client's MCP servers
behind Echo Desk (or put them back) from a terminal. The same calls as Settings › Connected apps.

Parsing is cheap and the MCP code loads only when one of these commands runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from echo_desk.common.client_names import KNOWN_CLIENTS

CLIENT_NAMES = tuple(KNOWN_CLIENTS)


def _v(text: object) -> str:
    from echo_desk.common.visible_text import visible

    return visible(str(text), one_line=True)


def _say(text: str) -> str:
    """A deferred, translatable message shown in the current language."""
    from echo_desk.i18n import shown

    return _v(shown(text))


def _print_dry_run(client_file: object) -> None:
    from echo_desk.mcp.config import config_path

    print(f"dry run: nothing written to {_v(client_file)} or to Echo Desk's {_v(config_path())}")


def run_install_command(args: argparse.Namespace) -> int:
    """``args.action`` is ``install`` or ``uninstall`` (parsed by ``cli.gateway``)."""
    if args.client not in CLIENT_NAMES:
        print(f"echo-desk gateway {args.action}: --client must be one of {', '.join(CLIENT_NAMES)}", file=sys.stderr)
        return 2
    from echo_desk.mcp.connected import Records, locations_of
    from echo_desk.store.secrets import install_system_store

    # Before planning: the plan moves secrets to the keyring only where one keeps them, and a
    # dry run must show what the real run would do.
    install_system_store()
    records = Records()
    locations = locations_of(args.client)
    if args.action == "install":
        return _install(args, locations, records)
    return _uninstall(args, locations, records)


def _print_diff(diff: str) -> None:
    from echo_desk.common.visible_text import visible

    shown = visible(diff) if diff else "(no change)"
    print(shown, end="" if shown.endswith("\n") else "\n")  # a diff ends its own last line


def _install(args: argparse.Namespace, locations: list[Any], records: Any) -> int:
    from echo_desk.mcp.connected import PlanError, apply_install, plan_install
    from echo_desk.mcp.connected.plan import inspect

    chosen = [loc for loc in locations if not loc.read_only and inspect(loc).servers]
    for loc in locations:
        if loc.read_only and inspect(loc).servers:
            print(f"left as it is: {_v(loc.path)}: {_say(loc.read_only)}")
    if not chosen:
        if not locations[0].path.parent.is_dir():
            print(f"{args.client}: no config file found ({_v(locations[0].path)})", file=sys.stderr)
            return 1
        chosen = [locations[0]]  # no servers yet: the client gets Echo Desk's entry only
    failed = 0
    for loc in chosen:
        try:
            plan = plan_install(loc, keep=frozenset(args.keep), use_keyring=not args.no_keyring,
                                sandbox=None if not args.no_sandbox else {n: False for n in inspect(loc).servers})
        except PlanError as exc:
            print(f"{_v(loc.path)}: not changed: {_say(exc.reason)}", file=sys.stderr)
            failed += 1
            continue
        _print_diff(plan.diff)
        for move in plan.moves:
            where = "already in Echo Desk" if move.already else "added to Echo Desk"
            renamed = f" as '{_v(move.echo_name)}'" if move.echo_name != move.name else ""
            sandboxed = " (sandboxed)" if move.config.sandbox else ""
            print(f"  move  {_v(move.name)}{renamed}: {where}{sandboxed}")
            if move.to_keyring:
                print(f"        to the keyring: {_v(', '.join(move.to_keyring))}")
            if move.left_in_file:
                print(f"        left in Echo Desk's mcp.json, not the keyring (this machine has none): "
                      f"{_v(', '.join(move.left_in_file))}")
        for stay in plan.stays:
            print(f"  stay  {_v(stay.name)}: {_say(stay.reason)}")
        if args.dry_run:
            _print_dry_run(loc.path)
            continue
        try:
            outcome = apply_install(plan, records=records)
        except PlanError as exc:
            print(f"{_v(loc.path)}: not changed: {_say(exc.reason)}", file=sys.stderr)
            failed += 1
            continue
        print(f"rewrote {_v(loc.path)}")
        print(f"backup: {_v(outcome.record.backup) if outcome.record.backup else '(the file did not exist)'}")
        for name in outcome.added:
            print(f"approve its first start: echo-desk mcp approve {_v(name)}")
        print(f"restart {args.client} so it starts Echo Desk's gateway; undo: "
              f"echo-desk gateway uninstall --client {args.client}")
    return 1 if failed else 0


def _uninstall(args: argparse.Namespace, locations: list[Any], records: Any) -> int:
    from echo_desk.mcp.connected import PlanError, apply_uninstall, plan_uninstall

    saved = records.all()
    chosen = [(loc, saved[loc.id]) for loc in locations if loc.id in saved]
    if not chosen:
        print(f"{args.client}: Echo Desk has not moved its servers (nothing to undo)", file=sys.stderr)
        return 1
    others = [r for r in saved.values()]
    failed = 0
    for loc, record in chosen:
        try:
            plan = plan_uninstall(loc, record, others=others)
        except PlanError as exc:
            print(f"{_v(loc.path)}: not changed: {_say(exc.reason)}", file=sys.stderr)
            if exc.diff:
                print("what changed in the file since Echo Desk wrote it:", file=sys.stderr)
                from echo_desk.common.visible_text import visible

                print(visible(exc.diff), file=sys.stderr)
            failed += 1
            continue
        if plan.delete_file:
            print(f"Echo Desk created {_v(loc.path)}: undo removes it")
        else:
            _print_diff(plan.diff)
        for name in plan.remove_from_echo_desk:
            print(f"  remove from Echo Desk: {_v(name)}")
        for name, why in plan.kept_in_echo_desk:
            print(f"  keep in Echo Desk: {_v(name)}: {_say(why)}")
        if args.dry_run:
            _print_dry_run(loc.path)
            continue
        try:
            outcome = apply_uninstall(plan, records=records)
        except PlanError as exc:
            print(f"{_v(loc.path)}: not changed: {_say(exc.reason)}", file=sys.stderr)
            failed += 1
            continue
        print(f"restored {_v(loc.path)} (the file before the undo: {_v(outcome.backup)})")
    return 1 if failed else 0
