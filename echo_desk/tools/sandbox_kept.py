"""A call's sandbox facts (``metadata["sandbox"]``) as a conversation keeps them: each list cut to
``MAX_ENTRIES``, and the plants past the cut counted (``PLANTED_MORE_KEY``) so the card still says
how many there were. A command that plants thousands of files must not bloat the stored
conversation; the audit log keeps every entry. The chat's card reads the same cap
(``ui.chat.card_parse``), and ``delegate`` stores its sub-agent's calls' facts through it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Entries kept of each list of a call's sandbox facts (domains, hosts, what was refused, planted).
MAX_ENTRIES = 50
#: How many planted entries there were past ``MAX_ENTRIES`` (not kept).
PLANTED_MORE_KEY = "planted_more"
#: How many hosts the network proxy refused past ``MAX_ENTRIES`` (not kept).
REFUSED_MORE_KEY = "refused_more"
#: How many folders the guard checked when its search stopped at its bound (``search_cut``).
FOLDERS_CHECKED_KEY = "folders_checked"


def planted_more(facts: Mapping[str, Any]) -> int:
    """The count of plants past the cut kept in ``facts`` (0 when none or not a count)."""
    return count_of(facts, PLANTED_MORE_KEY)


def count_of(facts: Mapping[str, Any], key: str) -> int:
    """The positive count kept under ``key`` in ``facts`` (0 when none or not a count)."""
    value = facts.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def capped(facts: Mapping[str, Any]) -> dict[str, Any]:
    """``facts`` with every list cut to ``MAX_ENTRIES``; the plants cut off are added to its count."""
    kept = {key: value[:MAX_ENTRIES] if isinstance(value, list) else value for key, value in facts.items()}
    planted = facts.get("planted")
    more = planted_more(facts) + (max(len(planted) - MAX_ENTRIES, 0) if isinstance(planted, list) else 0)
    if more:
        kept[PLANTED_MORE_KEY] = more
    else:
        kept.pop(PLANTED_MORE_KEY, None)
    return kept
