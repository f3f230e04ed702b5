"""Several of a form field's choices, as typed on the terminal: their numbers or values,
separated by commas."""

from __future__ import annotations

from echo_desk.common.multi_choice import MultiChoice
from echo_desk.i18n import _

#: Typed alone, it chooses none (an empty answer keeps the default).
NONE_TYPED = "-"


def typed_positions(choice: MultiChoice, raw: str) -> list[int]:
    """The positions of the choices ``raw`` names, each by its value or, failing that, its
    number (a value that is a number is taken as the value). Raises ``ValueError`` naming the
    first part that names no choice."""
    if raw.strip() == NONE_TYPED:
        return []
    by_value = {str(value): position for position, value in enumerate(choice.values)}
    positions: list[int] = []
    for part in (part.strip() for part in raw.split(",")):
        if not part:
            continue
        if part in by_value:
            positions.append(by_value[part])
        elif part.isdecimal() and 1 <= int(part) <= len(choice.values):
            positions.append(int(part) - 1)
        else:
            raise ValueError(_("“{typed}” is not one of the choices: type their numbers or values, separated by "
                               "commas").format(typed=part))
    return sorted(set(positions))
