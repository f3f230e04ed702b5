"""An approval's targets as text, in the person's language: what the dialog's target box and the
terminal's approval prompt both show, so neither names a kind by its internal id (``path``,
``modify``) or a protection in English.

Qt-free: the command line (``cli.terminal_host``) imports it.
"""

from __future__ import annotations

from echo_desk import sandbox
from echo_desk.agent.host import ApprovalRequest
from echo_desk.common.visible_text import visible, visible_path
from echo_desk.i18n import _, aside, labelled
from echo_desk.tools import ProtectionReason
from echo_desk.ui.approval.protection_text import shown_detail
from echo_desk.ui.core.labels import CHANGE_LABELS, TARGET_LABELS, target_value_text
from echo_desk.ui.core.sandbox_text import status_text

#: Target kinds whose value is one line by nature (a line feed in one is shown as ⟨LF⟩).
_ONE_LINE_KINDS = frozenset({"path", "url", "server", "database", "sandbox"})


def format_targets(request: ApprovalRequest, *, ascii_only: bool = False, changes: bool = True,
                   one_line: bool = False) -> str:
    """Every target in full: absolute paths, the whole command line with its folder, full URLs.
    (A sub-agent spawn's targets, its write folders, are in its manifest panel instead.)
    ``ascii_only``: hidden characters as ``\\x1b`` rather than ``⟨ESC⟩``, for a terminal that
    cannot print the brackets. ``changes=False`` leaves out the changed files that no target
    names (the terminal prints each above its diff). ``one_line``: every value on one line, a line
    feed in a command too (on a terminal, a value's second line could pass for one of Echo Desk's
    own, such as "→ allowed")."""
    lines: list[str] = []
    if request.spawn is not None:
        return ""
    for target in request.targets:
        label = _(TARGET_LABELS.get(target.kind, TARGET_LABELS["other"]))
        # A command line or an SQL statement may span lines (a here-document); a path, a URL, a
        # server, a database or a detail never does: a line feed in one (a file name may hold
        # it) is shown as ⟨LF⟩, not as a new line.
        if target.kind == "path":
            value = visible_path(target.value, ascii_only=ascii_only)
        else:
            value = visible(target_value_text(target.kind, target.value),
                            one_line=one_line or target.kind in _ONE_LINE_KINDS, ascii_only=ascii_only)
        lines.append(labelled(label, value))
        if target.detail or target.protections:
            detail_label = _("Working folder") if target.kind == "command" else _("Details")
            lines.append("    " + labelled(detail_label, visible(shown_detail(target), one_line=True,
                                                                  ascii_only=ascii_only)))
        if any(p.reason is ProtectionReason.OUTSIDE_SANDBOX_UNAVAILABLE for p in target.protections):
            lines.append(f"    {status_text(sandbox.availability())}".replace("\n", "\n    "))
    for change in request.file_changes if changes else ():
        if not any(t.value == change.path for t in request.targets):
            kind = _(CHANGE_LABELS.get(change.kind.value, change.kind.value))
            file_label = _(TARGET_LABELS["path"])
            lines.append(labelled(file_label, aside(visible_path(change.path, ascii_only=ascii_only), kind)))
    return "\n".join(lines) if lines or request.file_changes else _("(this call names no target)")
