"""Untrusted text cut to a size a person can read, and the words that say it was cut.

The cut is made where the text enters (the core), so no host ever lays out megabytes; each host
says where a text ends that it was cut and by how much.
"""

from __future__ import annotations

from echo_desk.i18n import ngettext


def cut(text: str, most: int) -> tuple[str, int]:
    """The first ``most`` characters of ``text`` and how many were left out."""
    if len(text) <= most:
        return text, 0
    return text[:most], len(text) - most


def cut_note(left_out: int) -> str:
    """What a host shows where a cut text ends: ``… (cut: 48,213 more characters)``."""
    return ngettext("… (cut: {count} more character)", "… (cut: {count} more characters)",
                    left_out).format(count=f"{left_out:,}")
