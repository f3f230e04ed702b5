"""``echo-desk rules …``: list the rules, check a command/path/URL/MCP call, manage grants and trust.

Everything here asks the engine (``PermissionEngine``) — the same code path ``execute_tool``
takes. Untrusted text (patterns, commands, paths) is printed JSON-escaped (``ensure_ascii``), so
control, bidi and invisible characters show as ``\\uXXXX`` instead of acting on the terminal;
``trust`` shows the workspace's rule files whole through ``visible`` (``⟨U+202E⟩``) and trusts
exactly the bytes it showed.

``rules check`` exits 0 for allow, 1 for ask (or no rule: the tool's default asks), 2 for deny,
3 for allow-in-sandbox (runs without asking only inside the sandbox; the JSON then says whether
the sandbox works on this system).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from echo_desk.agent.permissions import (
    Effect,
    Layer,
    Part,
    PermissionEngine,
    Provenance,
    Verdict,
    workspace_files,
)
from echo_desk.agent.permissions.floor import SETTINGS_FOLDER
from echo_desk.cli import words
from echo_desk.cli.terminal_host import can_show_brackets
from echo_desk.common.json_text import read_json
from echo_desk.common.visible_text import has_hidden, visible
from echo_desk.i18n import _, aside, ngettext
from echo_desk.store import paths
from echo_desk.store.grants import GRANTS_FILE, GrantStore


def run_with_own_engine(args: argparse.Namespace) -> int:
    """Run a rules command on the person's rule files and grants, without the rest of the
    runtime: the same folders ``Runtime.create`` gives the dispatcher's engine, no tool loaded and
    no MCP server started (a policy check other programs call answers at once)."""
    engine = PermissionEngine(config_dir=paths.config_dir(), grants=GrantStore(paths.data_dir() / GRANTS_FILE))
    try:
        return run_rules_command(engine, args)
    finally:
        engine.grants.close()


def run_rules_command(engine: PermissionEngine | None, args: argparse.Namespace) -> int:
    if engine is None:
        print(_("permission rules are not available in this set-up"), file=sys.stderr)
        return 2
    command = args.rules_command
    if command == "list":
        return _list(engine, _workspace(args.workspace), as_json=args.json)
    if command == "check":
        return _check(engine, args)
    if command == "grants":
        return _grants(engine, as_json=args.json)
    if command == "revoke":
        if args.all:
            revoked = engine.revoke_all()
            print(ngettext("revoked {n} grant", "revoked {n} grants", revoked).format(n=revoked))
            return 0
        if engine.revoke(args.grant_id):
            print(_("revoked {id}").format(id=_show(args.grant_id)))
            return 0
        print(_("no grant {id} (nothing was changed)").format(id=_show(args.grant_id)), file=sys.stderr)
        return 1
    if command == "trust":
        return _trust(engine, _workspace(args.workspace), assume_yes=args.yes)
    return 2


def _workspace(given: Path | None) -> Path:
    return (given or Path.cwd()).resolve()


def _show(text: str | None) -> str:
    return json.dumps(text, ensure_ascii=True)


def _ours(text: str | None) -> str:
    return json.dumps(text, ensure_ascii=False)


def _list(engine: PermissionEngine, workspace: Path, *, as_json: bool) -> int:
    report = engine.load((workspace,))
    if as_json:
        rows = [{"effect": r.effect.value, "tool": r.tool, "pattern": r.pattern, "reason": r.reason,
                 "layer": r.source.layer.value, "file": str(r.source.path) if r.source.path else None,
                 "line": r.source.line, "active": r.active, "inactive": r.inactive.value if r.inactive else None}
                for r in report.rules]
        problems = [{"severity": p.severity.value, "kind": p.kind.value, "file": str(p.path), "line": p.line,
                     "message": p.message, "example": p.example} for p in report.problems]
        print(json.dumps({"rules": rows, "problems": problems}, indent=2, ensure_ascii=True))
    else:
        for r in report.rules:
            state = "" if r.active else "  " + _("[inactive: {why}]").format(why=r.inactive.value if r.inactive else "")
            # A built-in rule's reason and placeholder are ours, translated; a file's are its author's.
            built_in = r.source.layer is Layer.FLOOR
            rule_reason = _(r.reason) if built_in and r.reason else r.reason
            rule_pattern = r.pattern.replace(SETTINGS_FOLDER, _(SETTINGS_FOLDER)) if built_in and r.pattern else r.pattern
            # Built-in text is ours and shown as it is; a file's is escaped (``_show``).
            quote = _ours if built_in else _show
            print(_("{effect} {tool} {pattern}  <{place}>{state}{reason}").format(
                effect=words.padded(words.label(words.EFFECT_LABELS, r.effect.value), 5), tool=_show(r.tool),
                pattern=quote(rule_pattern) if rule_pattern is not None else _("(whole tool)"),
                place=_("built-in rule") if r.source.path is None else r.source.describe(), state=state,
                reason="  # " + quote(rule_reason) if rule_reason else ""))  # not prose: a comment mark
        for p in report.problems:
            print(_show(p.describe())[1:-1], file=sys.stderr)
    return 1 if report.errors else 0


def _provenance(p: Provenance | None) -> dict[str, Any] | None:
    if p is None:
        return None
    out: dict[str, Any] = {"kind": p.kind.value, "describe": p.describe()}
    if p.rule is not None:
        out["rule"] = {"effect": p.rule.effect.value, "tool": p.rule.tool, "pattern": p.rule.pattern,
                       "file": str(p.rule.source.path) if p.rule.source.path else None, "line": p.rule.source.line}
    if p.grant is not None:
        out["grant"] = p.grant.id
    if p.detail:
        out["detail"] = p.detail
    return out


def _part(part: Part) -> dict[str, Any]:
    return {"text": part.text, "kind": part.kind.value, "verdict": part.effect.value if part.effect else None,
            "opaque": part.opaque.value if part.opaque else None, "decided_by": _provenance(part.provenance),
            "also": [why.value for why in part.also]}


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """The verdict as printed by ``rules check`` (also useful to tests and scripts)."""
    overall = verdict.effect.value if verdict.effect else "ask"
    return {
        "verdict": overall,
        "rules_said": verdict.effect.value if verdict.effect else None,
        "decided_by": _provenance(verdict.provenance),
        "parts": [_part(p) for p in verdict.parts],
        "suggestions": [{"tool": s.tool, "pattern": s.pattern, "label": s.label, "also_runs": list(s.also_runs),
                         "needs": list(s.needs)}
                        for s in verdict.suggestions],
        "still_asks": list(verdict.still_asks),
    }


def _check(engine: PermissionEngine, args: argparse.Namespace) -> int:
    workspace = _workspace(args.workspace)
    if args.path is not None:
        verdict = engine.check_path(args.path, write=args.write, workspace=workspace)
    elif args.url is not None:
        verdict = engine.check_url(args.url, method=args.method, workspace=workspace)
    elif args.mcp is not None:
        server, _slash, tool = args.mcp.partition("/")
        try:
            arguments = read_json(args.args)
        except json.JSONDecodeError as exc:
            print(_("--args is not JSON: {error}").format(error=exc), file=sys.stderr)
            return 2
        if not server or not tool or not isinstance(arguments, dict):
            print(_("--mcp takes SERVER/TOOL and --args a JSON object"), file=sys.stderr)
            return 2
        verdict = engine.check_mcp(server, tool, arguments, workspace=workspace)
    else:
        words = list(args.command_line)
        if words and words[0] == "--":
            words = words[1:]
        if not words:
            print(_("give a command line after --, or --path/--url/--mcp"), file=sys.stderr)
            return 2
        # One argument is the line as typed; several are joined with spaces (as the shell passed them).
        verdict = engine.check_command(words[0] if len(words) == 1 else " ".join(words), workspace=workspace)
    out = verdict_json(verdict)
    if args.path is None and args.url is None and args.mcp is None:
        from echo_desk.sandbox.shell import command_shell

        out["shell"] = command_shell().shown  # the shell whose grammar was checked runs the line
    if verdict.effect is Effect.ALLOW_IN_SANDBOX:
        from echo_desk import sandbox

        found = sandbox.availability()
        out["sandbox"] = {"available": found.available, "status": found.status.value, "why": found.english()}
    print(json.dumps(out, indent=2, ensure_ascii=True))
    # For the person at the terminal: the verdict in words, apart from the JSON scripts read.
    print(_verdict_line(verdict), file=sys.stderr)
    return (verdict.effect or Effect.ASK).exit_code


def _verdict_line(verdict: Verdict) -> str:
    """``Asks — decided by: no rule matches…`` in the person's language (untrusted text JSON-escaped)."""
    verdict_text = words.label(words.VERDICT_LABELS, verdict.effect.value) if verdict.effect else _("No rule")
    if verdict.provenance is not None and verdict.provenance.rule is not None:
        rule = verdict.provenance.rule
        where = (_("{file} line {line}").format(file=rule.source.path.name, line=rule.source.line)
                 if rule.source.path is not None else _("built-in rule"))
        who = aside(_show(rule.pattern if rule.pattern is not None else rule.tool), where)
    elif verdict.provenance is not None and verdict.provenance.grant is not None:
        who = _("grant {id}").format(id=verdict.provenance.grant.id)
    else:
        return aside(verdict_text, _("no rule or grant: the tool's own setting decides"))
    return _("{verdict} — decided by {who}").format(verdict=verdict_text, who=who)


def _grants(engine: PermissionEngine, *, as_json: bool) -> int:
    grants = engine.active_grants()
    rows = [{"id": g.id, "tool": g.tool, "pattern": g.pattern, "scope": g.scope.value, "created_at": g.created_at,
             "expires_at": g.expires_at, "created_by_call": g.created_by_call, "conversation": g.conversation_id,
             "workspace": g.workspace, "client": g.client, "uses": g.uses} for g in grants]
    if as_json:
        print(json.dumps(rows, indent=2, ensure_ascii=True))
        return 0
    if not rows:
        print(_("no grants in force"))
    for g in grants:
        until = (_("until {time}").format(time=time.strftime('%H:%M:%S', time.localtime(g.expires_at))) if g.expires_at
                 else g.scope.value)
        print(_("{id}  {tool} {pattern}  {until}  uses={uses}  by {call}").format(
            id=g.id, tool=_show(g.tool), pattern=_show(g.pattern) if g.pattern is not None else _("(whole tool)"),
            until=until, uses=g.uses, call=g.created_by_call))
    return 0


def _trust(engine: PermissionEngine, workspace: Path, *, assume_yes: bool) -> int:
    """Show both workspace rule files whole (hidden characters made visible) and the allow rules
    they hold, then trust exactly those bytes: a file changed since it was shown is refused."""
    try:
        snapshot = engine.trust_snapshot(workspace)
    except ValueError as exc:
        print(_("not trusted: {why}").format(why=exc), file=sys.stderr)
        return 1
    if not snapshot.present:
        print(_("{path} does not exist: nothing to trust").format(path=workspace_files(workspace)[0]), file=sys.stderr)
        return 1
    ascii_only = not can_show_brackets(sys.stdout)

    def show(text: str, *, one_line: bool = False) -> str:
        return visible(text, one_line=one_line, ascii_only=ascii_only)

    if has_hidden(str(snapshot.workspace)) or any(has_hidden(f.text) for f in snapshot.present):
        print(_("! these files contain hidden or control characters, shown as {marks}: read them carefully").format(
            marks="\\x.. / \\u...." if ascii_only else "⟨…⟩"))
    for shown in snapshot.present:
        print(f"── {show(str(shown.path), one_line=True)}  (sha256 {shown.sha256})")
        lines = shown.text.split("\n")
        for number, line in enumerate(lines[:-1] if lines[-1] == "" else lines, start=1):
            text = show(line.removesuffix("\r"), one_line=True)  # a CRLF end is no hidden text
            print(f"{number:>5}  {text}")
        if shown.error is not None:
            print("   " + _("error: {problem}").format(problem=show(shown.error.describe(), one_line=True)))
    print(_("Trusting {workspace} as shown above would allow:").format(
        workspace=show(str(snapshot.workspace), one_line=True)))
    for r in snapshot.allows:
        pattern = show(r.pattern, one_line=True) if r.pattern is not None else _("(whole tool)")
        reason = f"  — {show(r.reason, one_line=True)}" if r.reason else ""
        print("  " + _("{place}: {effect} {tool}  {pattern}{reason}").format(
            place=_("{file} line {line}").format(file=r.source.path.name if r.source.path else "", line=r.source.line),
            effect=words.label(words.EFFECT_LABELS, r.effect.value), tool=show(r.tool, one_line=True),
            pattern=pattern, reason=reason))
    if not snapshot.allows:
        print("  " + _("(no allow rules: their deny and ask rules apply already)"))
    if not assume_yes:
        if not sys.stdin.isatty():
            print(_("not trusted: confirm with --yes (no terminal to ask)"), file=sys.stderr)
            return 1
        if input(_("Trust exactly what is shown? [y/N] ")).strip().lower() not in ("y", "yes"):
            print(_("not trusted"))
            return 1
    try:
        engine.trust(snapshot)
    except ValueError as exc:
        print(_("not trusted: {why}").format(why=exc), file=sys.stderr)
        return 1
    print(_("trusted; a change to the file will ask again"))
    return 0
