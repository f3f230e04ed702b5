"""What the checks at sandboxed servers' ends put aside that no call's result has said yet:
when the manager closes (Echo Desk quits) there is no next call to say it, so whoever closes it
tells the person some other way (the terminal, or the app's next start)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from echo_desk.tools.planted import Planted


@dataclass(frozen=True)
class Untold:
    """What one server left in its folder and had put aside, not yet told to anyone."""

    server: str
    #: The folder it works in (its ``cwd``): each ``Planted.path`` is relative to it.
    folder: str
    planted: tuple[Planted, ...]
    #: Those of ``planted`` already in the audit log (recorded as the server stopped).
    recorded: frozenset[Planted] = frozenset()
