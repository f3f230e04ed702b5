"""``echo-desk changes``: list what tools wrote and revert it, with the same checks as the chat."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import unicodedata
from typing import Any

from echo_desk.agent.undo.resolution import Resolution
from echo_desk.agent.undo.revert import UNREADABLE, LeftAlone, Reverter, RevertIssue, RevertReport
from echo_desk.runtime import Runtime
from echo_desk.store.changes import ChangeRecord

#: Exit status when a file changed after the tool wrote it and no ``--choose`` was given.
EXIT_NEEDS_CHOICE = 3


def _shown(text: str) -> str:
    """A path as plain text with control, bidi and invisible characters made visible."""
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c
                   for c in text)


def _row(r: ChangeRecord) -> dict[str, Any]:
    return {
        "call_id": r.call_id, "conversation_id": r.conversation_id, "turn_id": r.turn_id, "tool": r.tool,
        "path": r.path, "kind": r.kind, "at": r.at, "restorable": r.restorable,
        "not_restorable_why": r.not_restorable_why, "reverted": r.reverted,
    }


def run_changes(runtime: Runtime, args: argparse.Namespace) -> int:
    if runtime.reverter is None:
        print("undo is not available", file=sys.stderr)
        return 1
    if args.changes_command == "list":
        return _list(runtime.reverter, args.conversation, as_json=args.json)
    return _revert(runtime.reverter, args.call_id, Resolution(args.choose) if args.choose else None)


def _list(reverter: Reverter, conversation: str | None, *, as_json: bool) -> int:
    records = reverter.changes.listing(conversation)
    if as_json:
        print(json.dumps([_row(r) for r in records], indent=2, ensure_ascii=False))
        return 0
    print(f"{'WHEN':<19} {'CALL':<29} {'TOOL':<12} {'KIND':<7} {'STATE':<15} PATH")
    for r in records:
        when = datetime.datetime.fromtimestamp(r.at).strftime("%Y-%m-%d %H:%M:%S")
        state = "reverted" if r.reverted else "restorable" if r.restorable else "not restorable"
        print(f"{when:<19} {_shown(r.call_id):<29} {_shown(r.tool):<12} {r.kind:<7} {state:<15} {_shown(r.path)}")
    return 0


def _revert(reverter: Reverter, call_id: str, choice: Resolution | None) -> int:
    plan = reverter.plan_calls([call_id])
    if not plan.steps and not plan.not_restorable:
        done = "already reverted" if plan.already_reverted else "no recorded file changes"
        print(f"{_shown(call_id)}: {done}; nothing to do", file=sys.stderr)
        return 0 if plan.already_reverted else 1
    for step in plan.conflicts:
        now = {None: "absent", UNREADABLE: "not a regular file"}.get(step.current_sha256, step.current_sha256)
        print(f"changed since the tool wrote it: {_shown(step.record.path)}\n"
              f"  what it was:         {step.record.before_sha256 or 'absent'}\n"
              f"  what the tool wrote: {step.record.after_sha256 or 'absent'}\n"
              f"  what it is now:      {now}")
    choices = {s.record.id: choice for s in plan.conflicts} if choice else {}
    report = reverter.apply(plan, choices)
    _print_report(report)
    if report.failed:
        return 1
    return EXIT_NEEDS_CHOICE if plan.conflicts and choice is None else 0


def _issue(issue: RevertIssue) -> str:
    """The terminal's words for a typed outcome (the codes are in ``--json`` listings)."""
    if issue.reason is LeftAlone.NOT_RESTORABLE:
        why = issue.not_restorable.value if issue.not_restorable else "unknown"
        return f"not restorable: {_NOT_RESTORABLE.get(why, why)}"
    text = _LEFT_ALONE.get(issue.reason, issue.reason.value)
    return f"{text} ({_shown(issue.detail)})" if issue.detail else text


_LEFT_ALONE = {
    LeftAlone.WAITING_FOR_CHOICE: "changed since the tool wrote it; waiting for your choice (--choose)",
    LeftAlone.KEPT_AS_IT_IS_NOW: "kept as it is now, as you chose",
    LeftAlone.RESTORED_WHAT_THE_TOOL_WROTE: "holds what the tool wrote, as you chose",
    LeftAlone.FOLDER_NOT_EMPTY: "the folder holds other files now; kept",
    LeftAlone.NOT_A_FOLDER_NOW: "not a folder now; nothing was changed",
    LeftAlone.NOT_A_REGULAR_FILE_NOW: "not a regular file now; nothing was changed",
    LeftAlone.CHANGED_AGAIN: "changed again meanwhile; nothing was changed",
    LeftAlone.CONTENT_NOT_KEPT: "no longer restorable: its kept copy is gone; nothing was changed",
    LeftAlone.COULD_NOT_WRITE: "the system refused the write; nothing was changed",
    LeftAlone.LINK_IN_THE_PATH_NOW: "a folder on its path is a symbolic link now; nothing was written through it",
}
_NOT_RESTORABLE = {
    "too_large": "larger than undo_max_file_bytes", "not_regular": "it was not a regular file",
    "not_previewed": "its previous content was not previewed",
    "changed_before_write": "it changed between the preview and the write",
    "too_old": "no longer restorable: older than undo_keep_days, its copy was removed",
    "over_space_limit": "no longer restorable: its copy was removed to stay under undo_max_total_bytes",
    "content_missing": "no longer restorable: its kept copy is gone or damaged",
}


def _print_report(report: RevertReport) -> None:
    for r in report.reverted:
        print(f"reverted: {_shown(r.path)}")
    for r, issue in report.kept:
        print(f"left alone: {_shown(r.path)} ({_issue(issue)})")
    for r, issue in report.failed:
        print(f"failed: {_shown(r.path)} ({_issue(issue)})", file=sys.stderr)
