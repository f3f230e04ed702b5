"""``echo-desk gateway install|uninstall --client NAME [--dry-run]``: move a client's MCP servers
behind Echo Desk (or put them back) from a terminal. The same calls as Settings › Connected apps.

Parsing is cheap and the MCP code loads only when one of these commands runs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from echo_desk.cli import words
from echo_desk.common.client_names import KNOWN_CLIENTS
from echo_desk.i18n import _, list_text

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

    print(_("dry run: nothing written to {client_file} or to Echo Desk's {mcp_json}").format(
        client_file=_v(client_file), mcp_json=_v(config_path())))


def run_install_command(args: argparse.Namespace) -> int:
    """``args.action`` is ``install`` or ``uninstall`` (parsed by ``cli.gateway``)."""
    if args.client not in CLIENT_NAMES:
        print(_("{command}: --client must be one of {names}").format(
            command=f"echo-desk gateway {args.action}", names=list_text(CLIENT_NAMES)), file=sys.stderr)
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

    shown = visible(diff) if diff else _("(no change)")
    print(shown, end="" if shown.endswith("\n") else "\n")  # a diff ends its own last line


def _print_not_changed(path: object, reason: str) -> None:
    print(_("{path}: not changed: {why}").format(path=_v(path), why=_say(reason)), file=sys.stderr)


def _print_moves(plan: Any) -> None:
    """Each server of the plan: moved behind Echo Desk (where to, its secrets) or left in place.
    The two words head their lines as a column, whatever their length in the language."""
    move_word = _("move")
    stay_word = _("stay")
    width = max(words.cells(move_word), words.cells(stay_word))
    indent = " " * (2 + width + 2)
    for move in plan.moves:
        where = _("already in Echo Desk") if move.already else _("added to Echo Desk")
        if move.echo_name != move.name:
            where = _("{where} as “{name}”").format(where=where, name=_v(move.echo_name))
        if move.config.sandbox:
            where = _("{where} (sandboxed)").format(where=where)
        what = _("{name}: {where}").format(name=_v(move.name), where=where)
        print(f"  {words.padded(move_word, width)}  {what}")
        if move.to_keyring:
            secrets = _("to the keyring: {names}").format(names=_v(list_text(move.to_keyring)))
            print(f"{indent}{secrets}")
        if move.left_in_file:
            left = _("left in Echo Desk's mcp.json, not the keyring (this machine has none): {names}").format(
                names=_v(list_text(move.left_in_file)))
            print(f"{indent}{left}")
    for stay in plan.stays:
        why = _("{name}: {why}").format(name=_v(stay.name), why=_say(stay.reason))
        print(f"  {words.padded(stay_word, width)}  {why}")


def _install(args: argparse.Namespace, locations: list[Any], records: Any) -> int:
    from echo_desk.mcp.connected import PlanError, apply_install, plan_install
    from echo_desk.mcp.connected.plan import inspect

    chosen = [loc for loc in locations if not loc.read_only and inspect(loc).servers]
    for loc in locations:
        if loc.read_only and inspect(loc).servers:
            print(_("left as it is: {path}: {why}").format(path=_v(loc.path), why=_say(loc.read_only)))
    if not chosen:
        if not locations[0].path.parent.is_dir():
            print(_("{client}: no config file found ({path})").format(client=args.client, path=_v(locations[0].path)),
                  file=sys.stderr)
            return 1
        chosen = [locations[0]]  # no servers yet: the client gets Echo Desk's entry only
    failed = 0
    for loc in chosen:
        try:
            plan = plan_install(loc, keep=frozenset(args.keep), use_keyring=not args.no_keyring,
                                sandbox=None if not args.no_sandbox else {n: False for n in inspect(loc).servers})
        except PlanError as exc:
            _print_not_changed(loc.path, exc.reason)
            failed += 1
            continue
        _print_diff(plan.diff)
        _print_moves(plan)
        if args.dry_run:
            _print_dry_run(loc.path)
            continue
        try:
            outcome = apply_install(plan, records=records)
        except PlanError as exc:
            _print_not_changed(loc.path, exc.reason)
            failed += 1
            continue
        print(_("rewrote {path}").format(path=_v(loc.path)))
        backup = _v(outcome.record.backup) if outcome.record.backup else _("(the file did not exist)")
        print(_("backup: {path}").format(path=backup))
        for name in outcome.added:
            print(_("approve its first start when Echo Desk asks, or now: echo-desk mcp approve {name}").format(name=_v(name)))
        print(_("restart {client} so it starts Echo Desk's gateway; undo: echo-desk gateway uninstall --client "
                "{client}").format(client=args.client))
    return 1 if failed else 0


def _uninstall(args: argparse.Namespace, locations: list[Any], records: Any) -> int:
    from echo_desk.mcp.connected import PlanError, apply_uninstall, plan_uninstall

    saved = records.all()
    chosen = [(loc, saved[loc.id]) for loc in locations if loc.id in saved]
    if not chosen:
        print(_("{client}: Echo Desk has not moved its servers (nothing to undo)").format(client=args.client),
              file=sys.stderr)
        return 1
    others = [r for r in saved.values()]
    failed = 0
    for loc, record in chosen:
        try:
            plan = plan_uninstall(loc, record, others=others)
        except PlanError as exc:
            _print_not_changed(loc.path, exc.reason)
            if exc.diff:
                print(_("what changed in the file since Echo Desk wrote it:"), file=sys.stderr)
                from echo_desk.common.visible_text import visible

                print(visible(exc.diff), file=sys.stderr)
            failed += 1
            continue
        if plan.delete_file:
            print(_("Echo Desk created {path}: undo removes it").format(path=_v(loc.path)))
        else:
            _print_diff(plan.diff)
        for name in plan.remove_from_echo_desk:
            print("  " + _("remove from Echo Desk: {name}").format(name=_v(name)))
        for name, why in plan.kept_in_echo_desk:
            print("  " + _("keep in Echo Desk: {name}: {why}").format(name=_v(name), why=_say(why)))
        if args.dry_run:
            _print_dry_run(loc.path)
            continue
        try:
            outcome = apply_uninstall(plan, records=records)
        except PlanError as exc:
            _print_not_changed(loc.path, exc.reason)
            failed += 1
            continue
        print(_("restored {path} (the file before the undo: {backup})").format(path=_v(loc.path),
                                                                            backup=_v(outcome.backup)))
    return 1 if failed else 0
