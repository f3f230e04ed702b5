"""A form field the person answers with several of its choices (a JSON schema ``array`` of ``enum``
items), as every host reads it.

The field reaches a host as ``{"type": "array", "items": {"enum": [...], "enumNames": [...]},
"minItems": 1, "maxItems": 3, "default": [...]}``: an MCP server's titled spelling
(``items.anyOf`` of ``{const, title}``) is made this one shape in the core, as a single choice's
is. The answer is a list of the chosen values, in the order of the choices, never their titles.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from echo_desk.i18n import _, ngettext


@dataclass(frozen=True)
class MultiChoice:
    """The choices of a several-choice field, what bounds their count, and which are chosen first."""

    values: tuple[Any, ...]
    titles: tuple[str, ...]
    least: int = 0
    most: int | None = None
    #: The positions of the default's values among the choices.
    first_chosen: frozenset[int] = frozenset()

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> MultiChoice | None:
        """The field's choices, or ``None`` when ``spec`` is not a several-choice field."""
        items = spec.get("items")
        if spec.get("type") != "array" or not isinstance(items, Mapping) or not isinstance(items.get("enum"), list):
            return None
        values = tuple(items["enum"])
        titles = items.get("enumNames")
        if not (isinstance(titles, list) and len(titles) == len(values) and all(isinstance(t, str) for t in titles)):
            titles = [str(value) for value in values]
        default = spec.get("default")
        first = frozenset(values.index(v) for v in default if v in values) if isinstance(default, list) else frozenset()
        return cls(values, tuple(titles), _count(spec.get("minItems")) or 0, _count(spec.get("maxItems")), first)

    def chosen(self, positions: Sequence[int] | frozenset[int]) -> list[Any]:
        """The values at ``positions``, in the order of the choices (what the answer sends)."""
        return [self.values[i] for i in sorted(set(positions))]

    def rule(self) -> str:
        """How many may be chosen, as a sentence; empty when any number may."""
        if self.most is not None and self.least == self.most:
            return ngettext("Choose exactly {count}.", "Choose exactly {count}.", self.most).format(count=self.most)
        if self.most is not None and self.least:
            return _("Choose {least} to {most}.").format(least=self.least, most=self.most)
        if self.most is not None:
            return ngettext("Choose at most {count}.", "Choose at most {count}.", self.most).format(count=self.most)
        if self.least:
            return ngettext("Choose at least {count}.", "Choose at least {count}.", self.least).format(
                count=self.least)
        return ""

    def problem(self, count: int) -> str | None:
        """Why ``count`` chosen cannot be the answer, or ``None`` when it can."""
        if count < self.least:
            return ngettext("Choose at least {count} to answer ({chosen} chosen).",
                            "Choose at least {count} to answer ({chosen} chosen).",
                            self.least).format(count=self.least, chosen=count)
        if self.most is not None and count > self.most:
            return ngettext("Choose at most {count} to answer ({chosen} chosen).",
                            "Choose at most {count} to answer ({chosen} chosen).",
                            self.most).format(count=self.most, chosen=count)
        return None


def _count(value: object) -> int | None:
    """A bound as a count of choices: a whole number of zero or more, else none (the core refuses
    a server's form with any other; an agent's own form gets no bound it did not mean)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
