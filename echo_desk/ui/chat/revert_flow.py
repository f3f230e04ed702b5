"""Revert from the chat: a card's "Revert", "Revert this turn" and "Revert everything since
this message". Asks the engine for the plan, confirms once when several files are involved,
asks about each file changed since the tool wrote it, then lets the engine write.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QWidget

from echo_desk.common.visible_text import visible_path
from echo_desk.i18n import N_, _, deferred
from echo_desk.ui.chat.revert_dialog import ConfirmRevertDialog, ConflictDialog, RevertProgress, visible_text
from echo_desk.ui.chat.revert_text import issue_text
from echo_desk.ui.chat.transcript import TOOL, USER, TranscriptItem, TranscriptModel
from echo_desk.ui.core.marshal import BackgroundOp, run_on_main

if TYPE_CHECKING:
    from echo_desk.agent.undo.resolution import Resolution
    from echo_desk.agent.undo.revert import Reverter, RevertPlan, RevertReport, RevertStep

log = logging.getLogger(__name__)


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
            ids.extend(item.subtranscript.call_ids)
    return ids


class RevertFlow(QObject):
    """One revert at a time; ``finished`` carries the engine's report.

    Planning, reading the three versions and writing all run off the UI thread (a revert of a
    large turn reads and writes many files); ``progress`` reports each step, and a progress
    dialog appears when the work lasts.
    """

    finished = Signal(object)
    #: (steps done, steps in all) while the engine writes.
    progress = Signal(int, int)
    busy_changed = Signal(bool)

    def __init__(self, reverter: Callable[[], Reverter | None], transcript: TranscriptModel,
                 parent_widget: QWidget) -> None:
        super().__init__(parent_widget)
        self._reverter = reverter
        self._transcript = transcript
        self._parent = parent_widget
        self.dialog: QDialog | None = None
        self.busy = False
        self.progress_dialog: RevertProgress | None = None

    def revert_call(self, call_id: str) -> None:
        self._plan(lambda r: r.plan_calls([call_id]), confirm=False)

    def revert_turn(self, row: int) -> None:
        ids = turn_call_ids(self._transcript.items(), row, to_end=False)
        self._plan(lambda r: r.plan_turns_of(ids), confirm=True)

    def revert_since(self, row: int, conversation_id: str) -> None:
        ids = turn_call_ids(self._transcript.items(), row, to_end=True)
        self._plan(lambda r: r.plan_since(conversation_id, ids), confirm=True)

    def mark_reverted_cards(self) -> None:
        """After a conversation is opened: cards whose changes were all reverted say so, and cards
        whose changes the change log took late offer Revert."""
        reverter = self._reverter()
        items = [i for i in self._transcript.items() if i.call_id and i.file_changes]
        if reverter is None or not items:
            return
        records = reverter.changes.for_calls(i.call_id for i in items)
        recorded = {r.call_id for r in records}
        done = recorded - {r.call_id for r in records if not r.reverted}
        for item in items:
            if item.not_recorded is not None and item.call_id in recorded:
                item.not_recorded = None  # the change log took them after all (it had room again)
                item.touch()
            if item.call_id in done and not item.reverted:
                item.reverted = True
                item.touch()
        self._transcript.relabel()

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.busy_changed.emit(busy)

    def _plan(self, make: Callable[[Reverter], RevertPlan], *, confirm: bool) -> None:
        reverter = self._reverter()
        if reverter is None:
            return
        if self.busy:
            self._transcript.add_notice(_("A revert is still running; try again when it is done."))
            return
        self._set_busy(True)
        (BackgroundOp(make, reverter)
         .on_success(lambda plan: self._start(reverter, plan, confirm=confirm))
         .on_failure(self._failed)
         .run())

    def _start(self, reverter: Reverter, plan: RevertPlan, *, confirm: bool) -> None:
        if not plan.steps and not plan.not_restorable:
            self._set_busy(False)
            self._transcript.add_notice(deferred(N_("Nothing to revert: these changes were already reverted.")
                                                 if plan.already_reverted else N_("Nothing to revert here.")))
            return
        if confirm or len(plan.steps) > 1:
            dialog = ConfirmRevertDialog(plan, self._parent)
            dialog.accepted.connect(lambda: self._ask_conflicts(reverter, plan, list(plan.conflicts), {}))
            dialog.rejected.connect(lambda: self._cancelled())
            self._show(dialog)
        else:
            self._ask_conflicts(reverter, plan, list(plan.conflicts), {})

    def _cancelled(self) -> None:
        self.dialog = None
        self._set_busy(False)

    def _ask_conflicts(self, reverter: Reverter, plan: RevertPlan, left: list[RevertStep],
                       choices: dict[int, Resolution]) -> None:
        if not left:
            self._apply(reverter, plan, choices)
            return
        step = left.pop(0)

        def chosen(resolution: Resolution) -> None:
            choices[step.record.id] = resolution
            self._ask_conflicts(reverter, plan, left, choices)

        (BackgroundOp(reverter.contents, step)
         .on_success(lambda contents: self._show(ConflictDialog(step, contents, chosen, self._parent)))
         .on_failure(self._failed)
         .run())

    def _apply(self, reverter: Reverter, plan: RevertPlan, choices: dict[int, Resolution]) -> None:
        self.dialog = None
        self.progress_dialog = RevertProgress(len(plan.steps), self._parent)
        self.progress.connect(self.progress_dialog.advance)

        def report_progress(done: int, total: int) -> None:
            run_on_main(self.progress.emit, done, total)

        (BackgroundOp(lambda: reverter.apply(plan, choices, progress=report_progress))
         .on_success(self._finish)
         .on_failure(self._failed)
         .run())

    def _show(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.open()

    def _close_progress(self) -> None:
        if self.progress_dialog is not None:
            self.progress.disconnect(self.progress_dialog.advance)
            self.progress_dialog.close()
            self.progress_dialog.deleteLater()
            self.progress_dialog = None

    def _failed(self, exc: BaseException) -> None:
        self.dialog = None
        self._close_progress()
        self._set_busy(False)
        log.error("revert failed", exc_info=exc)
        self.mark_reverted_cards()  # what was done before the error, from the change log
        self._transcript.add_notice(_("The revert stopped on an error; files already reverted are listed as "
                                      "reverted in their cards, the others were not changed."), error=True)

    def _finish(self, report: RevertReport) -> None:
        self.dialog = None
        self._close_progress()
        lines = [_("Reverted {path}").format(path=visible_path(r.path)) for r in report.reverted]
        lines += [_("Not reverted: {path} ({why})").format(path=visible_path(r.path), why=visible_text(issue_text(issue)))
                  for r, issue in report.kept + report.failed]
        reverted_calls = {r.call_id for r in report.reverted}
        for item in self._transcript.items():
            if item.call_id in reverted_calls:
                item.reverted = True
                item.touch()
        self._transcript.relabel()
        self._transcript.add_notice("\n".join(lines), error=bool(report.failed))
        self._set_busy(False)
        self.finished.emit(report)
