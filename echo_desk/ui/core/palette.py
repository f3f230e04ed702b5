"""The two palettes (light, dark) as plain data, and the one in use.

No Qt here: the tool cards' HTML is a pure function of what they show and a palette, rendered
and tested without Qt. ``theme`` owns the switching (Qt's colour scheme, the application
palette) and tells this module which palette is in use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtGui import QColor


@dataclass(frozen=True)
class Palette:
    """Named colour roles (``#rrggbb`` strings, usable in style sheets, HTML and ``QColor``)."""

    name: str
    window: str
    base: str
    text: str
    muted: str
    faint: str
    border: str
    #: The edge of every input field (``field_edges``): 3:1 or more against ``base`` and ``window``.
    field_border: str
    accent: str
    link: str
    ok: str
    warn: str
    danger: str
    denied: str
    warn_bg: str
    warn_border: str
    danger_bg: str
    danger_text: str
    user_bubble: str
    user_border: str
    assistant_bubble: str
    assistant_border: str
    card: str
    card_border: str
    code_bg: str
    code_border: str
    inline_code_bg: str
    table_header: str
    diff_add: str
    diff_delete: str
    diff_hunk: str
    diff_meta: str
    diff_filler: str
    selection: str
    #: Find in the conversation: every match, and the current one.
    find_match: str
    find_current: str
    # Syntax colours for code blocks (Pygments token families, see ``code_highlight``).
    syn_keyword: str
    syn_string: str
    syn_comment: str
    syn_number: str
    syn_function: str
    syn_type: str
    syn_operator: str

    def qcolor(self, role: str) -> QColor:
        """The colour of ``role`` (a field name) as a ``QColor``."""
        from PySide6.QtGui import QColor  # only a widget asks for a QColor; the HTML needs none

        return QColor(str(getattr(self, role)))


LIGHT = Palette(
    name="light", window="#f6f8fa", base="#ffffff", text="#1f2328", muted="#57606a", faint="#8c959f",
    border="#d0d7de", field_border="#818b98", accent="#0969da", link="#0969da", ok="#1a7f37", warn="#9a6700", danger="#cf222e",
    denied="#8250df", warn_bg="#fff8c5", warn_border="#d4a72c", danger_bg="#ffebe9", danger_text="#82071e",
    user_bubble="#ddf4ff", user_border="#b6e3ff", assistant_bubble="#ffffff", assistant_border="#ffffff",
    card="#f6f8fa", card_border="#d0d7de", code_bg="#f6f8fa", code_border="#d0d7de", inline_code_bg="#eff1f3",
    table_header="#eaeef2", diff_add="#e6ffec", diff_delete="#ffebe9", diff_hunk="#ddf4ff", diff_meta="#f6f8fa",
    diff_filler="#f0f0f0", selection="#b6e3ff", find_match="#fff8c5", find_current="#ffb77c",
    syn_keyword="#cf222e", syn_string="#0a3069", syn_comment="#6e7781", syn_number="#0550ae",
    syn_function="#8250df", syn_type="#953800", syn_operator="#24292f",
)

DARK = Palette(
    name="dark", window="#161b22", base="#0d1117", text="#e6edf3", muted="#9198a1", faint="#6e7681",
    border="#30363d", field_border="#656c76", accent="#4493f8", link="#4493f8", ok="#3fb950", warn="#d29922", danger="#f85149",
    denied="#ab7df8", warn_bg="#3a2e05", warn_border="#9e6a03", danger_bg="#490202", danger_text="#ffa198",
    user_bubble="#122d4f", user_border="#1f6feb", assistant_bubble="#0d1117", assistant_border="#0d1117",
    card="#161b22", card_border="#30363d", code_bg="#161b22", code_border="#30363d", inline_code_bg="#262c36",
    table_header="#21262d", diff_add="#12261e", diff_delete="#25171c", diff_hunk="#121d2f", diff_meta="#161b22",
    diff_filler="#1c2128", selection="#1f6feb", find_match="#5c4700", find_current="#9e4c00",
    syn_keyword="#ff7b72", syn_string="#a5d6ff", syn_comment="#8b949e", syn_number="#79c0ff",
    syn_function="#d2a8ff", syn_type="#ffa657", syn_operator="#e6edf3",
)


_in_use = LIGHT


def in_use() -> Palette:
    """The palette the application shows now (``LIGHT`` before any theme is applied)."""
    return _in_use


def use(palette: Palette) -> None:
    """Called by ``theme`` after every switch."""
    global _in_use
    _in_use = palette


def tint(colour_hex: str, over: str, amount: float) -> str:
    """``colour_hex`` laid at ``amount`` (0–1) opacity over ``over`` (both ``#rrggbb``): a chip's background."""
    a, b = _rgb(colour_hex), _rgb(over)
    return "#" + "".join(f"{round(x * amount + y * (1 - amount)):02x}" for x, y in zip(a, b, strict=True))


def _rgb(colour_hex: str) -> tuple[int, int, int]:
    if len(colour_hex) != 7 or colour_hex[0] != "#":
        raise ValueError(f"not a #rrggbb colour: {colour_hex!r}")
    return int(colour_hex[1:3], 16), int(colour_hex[3:5], 16), int(colour_hex[5:7], 16)


def contrast(one: str, other: str) -> float:
    """The WCAG 2 contrast ratio of two ``#rrggbb`` colours: 1 (the same light) to 21 (black on white)."""
    light, dark = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _luminance(colour_hex: str) -> float:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in _rgb(colour_hex))]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
