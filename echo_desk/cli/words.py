"""The terminal's words for the engine's values (risk, effects, verdicts) and
columns that line up when a cell holds Chinese (two terminal cells per character).

The words the app also uses come from the app's Qt-free labels (``ui.core.labels``), so one
translation serves both; only the terminal's own tables' words are here.
"""

from __future__ import annotations

import unicodedata

from echo_desk.i18n import _
from echo_desk.ui.core.labels import EFFECT_LABELS, RISK_LABELS, VERDICT_LABELS

__all__ = ["EFFECT_LABELS", "RISK_LABELS", "VERDICT_LABELS", "cells", "label", "padded", "row", "table", "yes_no"]


def label(labels: dict[str, str], value: str) -> str:
    """``value``'s label in the current language; a value with none is shown as it is."""
    return _(labels[value]) if value in labels else value


def yes_no(value: bool) -> str:
    """Capitalised, as the app's labels beside it in a table ("Read", "Ready")."""
    return _("Yes") if value else _("No")


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes (wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def padded(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal cells (``f"{text:<width}"`` counts characters)."""
    return text + " " * max(0, width - cells(text))


def table(rows: list[list[str]]) -> list[str]:
    """Rows (headings first) as lines whose columns line up: each column as wide as its widest
    cell in terminal cells, whatever the language or a tool's name; the last as it is."""
    widths = [max(cells(r[i]) for r in rows) for i in range(len(rows[0]) - 1)] + [0]
    return [row(list(zip(r, widths, strict=True))) for r in rows]


def row(values: list[tuple[str, int]]) -> str:
    """One table row: each (text, width) padded, one space apart; the last one as it is."""
    *first, (last, _width) = values
    return " ".join(padded(text, width) for text, width in first) + (" " if first else "") + last
