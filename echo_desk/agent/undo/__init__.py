"""Undo of what tools wrote: the journal that keeps previous contents, and the revert."""

from echo_desk.agent.undo.journal import UndoJournal, current_turn, turn
from echo_desk.agent.undo.revert import (
    LeftAlone,
    Resolution,
    Reverter,
    RevertIssue,
    RevertPlan,
    RevertReport,
    RevertStep,
)

__all__ = [
    "LeftAlone",
    "Resolution",
    "RevertIssue",
    "RevertPlan",
    "RevertReport",
    "RevertStep",
    "Reverter",
    "UndoJournal",
    "current_turn",
    "turn",
]
