"""Revert from the chat: a card's "Revert", "Revert this turn" and "Revert everything since
this message". Asks the engine for the plan, confirms once when several files are involved,
asks about each file changed since the tool wrote it, then lets the engine write.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QWidget

from echo_desk.agent.undo import Resolution, Reverter, RevertPlan, RevertReport, RevertStep
from echo_desk.i18n import N_, _, deferred
from echo_desk.ui.revert_dialog import ConfirmRevertDialog, ConflictDialog, visible_text
from echo_desk.ui.transcript import TOOL, USER, TranscriptItem, TranscriptModel


def turn_call_ids(items: list[TranscriptItem], row: int, *, to_end: bool) -> list[str]:
    """Call ids shown from the turn holding ``row`` (its user message on) to the turn's end
    (or, ``to_end``, the end of the conversation); sub-agents' calls included."""
    start = row
    if not to_end:
        while start > 0 and items[start].kind != USER:
            start -= 1
    ids: list[str] = []
    for index in range(start, len(items)):
        item = items[index]
        if not to_end and index > start and item.kind == USER:
            break
        if item.kind == TOOL and item.call_id:
            ids.append(item.call_id)
            ids.extend(str(e["id"]) for e in item.subtranscript if e.get("id"))
    return ids


class RevertFlow(QObject):
    """One revert at a time; ``finished`` carries the engine's report."""

    finished = Signal(object)

    def __init__(self, reverter: Callable[[], Reverter | None], transcript: TranscriptModel,
                 parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self._reverter = reverter
        self._transcript = transcript
        self._parent = parent_widget
        self.dialog: QDialog | None = None

    def revert_call(self, call_id: str) -> None:
        reverter = self._reverter()
        if reverter is not None:
            self._start(reverter, reverter.plan_calls([call_id]), confirm=False)

    def revert_turn(self, row: int) -> None:
        reverter = self._reverter()
        if reverter is not None:
            ids = turn_call_ids(self._transcript.items(), row, to_end=False)
            self._start(reverter, reverter.plan_turns_of(ids), confirm=True)

    def revert_since(self, row: int, conversation_id: str) -> None:
        reverter = self._reverter()
        if reverter is not None:
            ids = turn_call_ids(self._transcript.items(), row, to_end=True)
            self._start(reverter, reverter.plan_since(conversation_id, ids), confirm=True)

    def mark_reverted_cards(self) -> None:
        """After a conversation is opened: cards whose changes were all reverted say so."""
        reverter = self._reverter()
        items = [i for i in self._transcript.items() if i.call_id and i.file_changes]
        if reverter is None or not items:
            return
        records = reverter.changes.for_calls(i.call_id for i in items)
        done = {r.call_id for r in records} - {r.call_id for r in records if not r.reverted}
        for item in items:
            if item.call_id in done and not item.reverted:
                item.reverted = True
                item.touch()
        self._transcript.relabel()

    def _start(self, reverter: Reverter, plan: RevertPlan, *, confirm: bool) -> None:
        if not plan.steps and not plan.not_restorable:
            self._transcript.add_notice(deferred(N_("Nothing to revert: these changes were already reverted.")
                                                 if plan.already_reverted else N_("Nothing to revert here.")))
            return
        if confirm or len(plan.steps) > 1:
            dialog = ConfirmRevertDialog(plan, self._parent)
            dialog.accepted.connect(lambda: self._ask_conflicts(reverter, plan, list(plan.conflicts), {}))
            self._show(dialog)
        else:
            self._ask_conflicts(reverter, plan, list(plan.conflicts), {})

    def _ask_conflicts(self, reverter: Reverter, plan: RevertPlan, left: list[RevertStep], choices: dict[int, Resolution]) -> None:
        if not left:
            self._finish(reverter.apply(plan, choices))
            return
        step = left.pop(0)

        def chosen(resolution: Resolution) -> None:
            choices[step.record.id] = resolution
            self._ask_conflicts(reverter, plan, left, choices)

        self._show(ConflictDialog(step, reverter.contents(step), chosen, self._parent))

    def _show(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.open()

    def _finish(self, report: RevertReport) -> None:
        self.dialog = None
        lines = [_("Reverted {path}").format(path=visible_text(r.path)) for r in report.reverted]
        lines += [_("Not reverted: {path} ({why})").format(path=visible_text(r.path), why=why)
                  for r, why in report.kept + report.failed]
        reverted_calls = {r.call_id for r in report.reverted}
        for item in self._transcript.items():
            if item.call_id in reverted_calls:
                item.reverted = True
                item.touch()
        self._transcript.relabel()
        self._transcript.add_notice("\n".join(lines), error=bool(report.failed))
        self.finished.emit(report)
