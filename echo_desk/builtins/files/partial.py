"""Per-hunk approval for the file-write lifecycle: narrow a plan to the hunks the person kept.

The partial content is computed from the previewed base (the plan's old text) and the hunks
whose ids were kept (the very hunks the preview showed: same content, same ids); the lifecycle
then writes it with the same hash check and atomic save as a whole change.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from echo_desk.common.diffs import file_change, named
from echo_desk.common.hunks import Hunk, apply_hunks, hunks_of
from echo_desk.common.textcodec import TextFormat, decode, encode
from echo_desk.i18n import N_, for_person
from echo_desk.tools import ErrorKind, ToolError, ToolExecutionContext

if TYPE_CHECKING:
    from echo_desk.builtins.files.lifecycle import Plan


def chosen_hunks(ctx: ToolExecutionContext, path: str) -> frozenset[str] | None:
    """The ids of the hunks of ``path`` the person kept (``None``: no selection, take everything)."""
    return ctx.hunk_selection.of(path) if ctx.hunk_selection is not None else None


def narrow(plan: Plan, chosen: Collection[str]) -> tuple[Plan | None, list[Hunk], list[Hunk]]:
    """``(plan for the kept hunks or None when none is kept, applied hunks, declined hunks)``."""
    hunks = hunks_of(plan.old_text, plan.new_text)
    if not set(chosen) <= {h.id for h in hunks}:
        raise ToolError(for_person(
            f"the hunks approved for {plan.target} are not the ones of this change any more; nothing was written",
            N_("The parts approved for {path} are not the ones of this change any more; nothing was written."),
            path=str(plan.target)), kind=ErrorKind.BUSINESS)
    applied = [h for h in hunks if h.id in chosen]
    declined = [h for h in hunks if h.id not in chosen]
    if not declined:
        return plan, applied, declined
    if not applied:
        return None, applied, declined
    text = apply_hunks(plan.old_text, hunks, set(chosen))
    fmt = decode(plan.before, plan.target)[1] if plan.before is not None else TextFormat()
    after = encode(text, fmt, plan.target)
    change = file_change(str(plan.target), plan.before, after, plan.old_text, text)
    return replace(plan, after=after, change=change, new_text=text), applied, declined


def report(path: str, applied: list[Hunk], declined: list[Hunk], ctx: ToolExecutionContext) -> str:
    """What the model is told: which hunks were written and which the person declined, with text."""
    total = len(applied) + len(declined)
    if not declined:
        return ""
    numbers = ", ".join(str(h.index + 1) for h in applied) or "none"
    lines = [f"The person reviewed the {total} hunks of {named(path)} and approved only hunk(s) {numbers}; "
             f"{'nothing was written' if not applied else 'only those were written'}. "
             "Declined (not written):"]
    lines += [h.describe() for h in declined]
    message = ctx.hunk_selection.message if ctx.hunk_selection is not None else ""
    if message:
        lines.append(f"The person said about the declined hunks: {message}")
    lines.append("Read the file again before changing it further.")
    return "\n".join(lines)
