"""The person's answer when a file changed after the tool wrote it (a value the command line's
grammar names too, so it lives apart from the reverter)."""

from __future__ import annotations

import enum


class Resolution(enum.StrEnum):
    """The person's answer when a file changed after the tool wrote it."""

    WHAT_IT_WAS = "before"
    WHAT_THE_TOOL_WROTE = "tool"
    WHAT_IT_IS_NOW = "current"
