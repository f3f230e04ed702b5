"""Undo of what tools wrote: the journal that keeps previous contents, and the revert."""

from echo_desk.agent.undo.journal import UndoJournal, current_turn, turn
from echo_desk.agent.undo.revert import Resolution, Reverter, RevertPlan, RevertReport, RevertStep

__all__ = [
    "Resolution",
    "RevertPlan",
    "RevertReport",
    "RevertStep",
    "Reverter",
    "UndoJournal",
    "current_turn",
    "turn",
]
