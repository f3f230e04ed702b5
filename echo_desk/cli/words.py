"""The terminal's words for the engine's values (risk, defaults, verdicts, breaker states) and
columns that line up when a cell holds Chinese (two terminal cells per character).

The same message ids as the app's labels (``ui.core.labels``), so one translation serves both;
the CLI cannot import the UI's modules (they load Qt).
"""

from __future__ import annotations

import unicodedata

from echo_desk.i18n import N_, _

RISK_LABELS = {"read": N_("Read"), "write": N_("Write"), "exec": N_("Execute")}
DEFAULT_LABELS = {"runs": N_("runs"), "asks": N_("asks"), "refused": N_("refused")}
BREAKER_LABELS = {"closed": N_("closed"), "open": N_("open"), "half_open": N_("half open")}
VERDICT_LABELS = {"allow": N_("Allowed"), "allow_in_sandbox": N_("Allowed in the sandbox, asks outside it"),
                  "ask": N_("Asks"), "deny": N_("Refused")}
EFFECT_LABELS = {"allow": N_("allow"), "allow_in_sandbox": N_("allow in the sandbox"), "ask": N_("ask"),
                 "deny": N_("deny")}


def label(labels: dict[str, str], value: str) -> str:
    """``value``'s label in the current language; a value with none is shown as it is."""
    return _(labels[value]) if value in labels else value


def yes_no(value: bool) -> str:
    return _("yes") if value else _("no")


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes (wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def padded(text: str, width: int) -> str:
    """``text`` left-aligned in ``width`` terminal cells (``f"{text:<width}"`` counts characters)."""
    return text + " " * max(0, width - cells(text))


def row(values: list[tuple[str, int]]) -> str:
    """One table row: each (text, width) padded, one space apart; the last one as it is."""
    *first, (last, _width) = values
    return " ".join(padded(text, width) for text, width in first) + (" " if first else "") + last
