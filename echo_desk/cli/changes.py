"""``echo-desk changes``: list what tools wrote and revert it, with the same checks as the chat."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import unicodedata
from typing import Any

from echo_desk.agent.undo.journal import UNREADABLE
from echo_desk.agent.undo.resolution import Resolution
from echo_desk.agent.undo.revert import LeftAlone, Reverter, RevertIssue, RevertReport, RevertStep
from echo_desk.cli import words
from echo_desk.common.diffs import labelled_diff
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, _, aside, ngettext
from echo_desk.runtime import Runtime
from echo_desk.store.changes import ChangeRecord

#: Exit status when a file changed after the tool wrote it and no ``--choose`` was given.
EXIT_NEEDS_CHOICE = 3
_COLUMNS = (N_("WHEN"), N_("CALL"), N_("TOOL"), N_("KIND"), N_("STATE"), N_("PATH"))
#: A change's kind (``create|modify|delete``): the app's words for it.
_KINDS = {"create": N_("new file"), "modify": N_("modified"), "delete": N_("deleted")}


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
        print(_("undo is not available"), file=sys.stderr)
        return 1
    if args.changes_command == "list":
        return _list(runtime.reverter, args.conversation, as_json=args.json)
    return _revert(runtime.reverter, args.call_id, Resolution(args.choose) if args.choose else None)


def _list(reverter: Reverter, conversation: str | None, *, as_json: bool) -> int:
    records = reverter.changes.listing(conversation)
    if as_json:
        print(json.dumps([_row(r) for r in records], indent=2, ensure_ascii=False))
        return 0
    table = [[_(h) for h in _COLUMNS]]
    for r in records:
        when = datetime.datetime.fromtimestamp(r.at).strftime("%Y-%m-%d %H:%M:%S")
        state = _("reverted") if r.reverted else _("restorable") if r.restorable else _("not restorable")
        table.append([when, _shown(r.call_id), _shown(r.tool), words.label(_KINDS, r.kind), state, _shown(r.path)])
    for line in words.table(table):
        print(line)
    return 0


def _revert(reverter: Reverter, call_id: str, choice: Resolution | None) -> int:
    plan = reverter.plan_calls([call_id])
    if not plan.steps and not plan.not_restorable:
        done = _("already reverted") if plan.already_reverted else _("no recorded file changes")
        print(_("{call}: {done}; nothing to do").format(call=_shown(call_id), done=done), file=sys.stderr)
        return 0 if plan.already_reverted else 1
    for step in plan.conflicts:
        absent = _("absent")
        now = {None: absent, UNREADABLE: _("not a regular file")}.get(step.current_sha256, step.current_sha256)
        print(_("changed since the tool wrote it: {path}").format(path=_shown(step.record.path)))
        for label, value in ((_("what it was:"), step.record.before_sha256 or absent),
                             (_("what the tool wrote:"), step.record.after_sha256 or absent),
                             (_("what it is now:"), now)):
            print("  " + words.padded(label, 21) + str(value))
        _print_changed_since(reverter, step)
    choices = {s.record.id: choice for s in plan.conflicts} if choice else {}
    report = reverter.apply(plan, choices)
    _print_report(report)
    if report.failed:
        return 1
    return EXIT_NEEDS_CHOICE if plan.conflicts and choice is None else 0


#: At most this many lines of the "changed since" diff are printed (the rest is counted).
SHOWN_DIFF_LINES = 40


def _print_changed_since(reverter: Reverter, step: RevertStep) -> None:
    """What changed in the file since the tool wrote it, as a diff, so the person can choose with
    the change in front of them (hashes alone say only that it changed). Text files only."""
    _before, wrote, now = reverter.contents(step)
    if (wrote is None and step.record.after_sha256) or (now is None and step.current_sha256 is not None):
        return  # a kept copy is gone, or the file cannot be read now: no diff rather than a wrong one
    try:
        old, new = (data.decode("utf-8") for data in (wrote or b"", now or b""))
    except UnicodeDecodeError:
        return
    diff = labelled_diff(old, new, _("what the tool wrote"), _("what it is now"))
    lines = visible(diff).splitlines()
    for line in lines[:SHOWN_DIFF_LINES]:
        print("  " + line)
    if len(lines) > SHOWN_DIFF_LINES:
        more = len(lines) - SHOWN_DIFF_LINES
        print("  " + ngettext("… {n} more line", "… {n} more lines", more).format(n=more))


def _issue(issue: RevertIssue) -> str:
    """The terminal's words for a typed outcome (the codes are in ``--json`` listings)."""
    if issue.reason is LeftAlone.NOT_RESTORABLE:
        why = issue.not_restorable.value if issue.not_restorable else "unknown"
        return _("not restorable: {why}").format(why=words.label(_NOT_RESTORABLE, why))
    text = _(_LEFT_ALONE[issue.reason]) if issue.reason in _LEFT_ALONE else issue.reason.value
    return aside(text, _shown(issue.detail)) if issue.detail else text


_LEFT_ALONE = {
    LeftAlone.WAITING_FOR_CHOICE: N_("changed since the tool wrote it; waiting for your choice (--choose)"),
    LeftAlone.KEPT_AS_IT_IS_NOW: N_("kept as it is now, as you chose"),
    LeftAlone.RESTORED_WHAT_THE_TOOL_WROTE: N_("holds what the tool wrote, as you chose"),
    LeftAlone.FOLDER_NOT_EMPTY: N_("the folder holds other files now; kept"),
    LeftAlone.NOT_A_FOLDER_NOW: N_("not a folder now; nothing was changed"),
    LeftAlone.NOT_A_REGULAR_FILE_NOW: N_("not a regular file now; nothing was changed"),
    LeftAlone.CHANGED_AGAIN: N_("changed again meanwhile; nothing was changed"),
    LeftAlone.CONTENT_NOT_KEPT: N_("no longer restorable: its kept copy is gone; nothing was changed"),
    LeftAlone.COULD_NOT_WRITE: N_("the system refused the write; nothing was changed"),
    LeftAlone.LINK_IN_THE_PATH_NOW: N_("a folder on its path is a symbolic link now; nothing was written through it"),
}
_NOT_RESTORABLE = {
    "too_large": N_("larger than undo_max_file_bytes"), "not_regular": N_("it was not a regular file"),
    "not_previewed": N_("its previous content was not previewed"),
    "changed_before_write": N_("it changed between the preview and the write"),
    # Printed after "not restorable: ": the reason alone.
    "too_old": N_("older than undo_keep_days, its copy was removed"),
    "over_space_limit": N_("its copy was removed to stay under undo_max_total_bytes"),
    "content_missing": N_("its kept copy is gone or damaged"),
}


def _print_report(report: RevertReport) -> None:
    for r in report.reverted:
        print(_("reverted: {path}").format(path=_shown(r.path)))
    for r, issue in report.kept:
        print(_("left alone: {path}").format(path=aside(_shown(r.path), _issue(issue))))
    for r, issue in report.failed:
        print(_("failed: {path}").format(path=aside(_shown(r.path), _issue(issue))), file=sys.stderr)
