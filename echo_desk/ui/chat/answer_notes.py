"""Notes under an answer that the engine found reason to doubt, in the person's language."""

from __future__ import annotations

from echo_desk.agent.count_check import CountMismatch
from echo_desk.i18n import N_, deferred
from echo_desk.tools.results import Counted

#: One sentence per thing counted (whole sentences translate better than a sentence with a
#: translated word put in it).
_MISMATCH = {
    # A file's first line is often a header: the rows under it are said too (the count check
    # reads an answer that far off as a miscount of either).
    Counted.LINES: N_("Check this answer: it says {claimed}, but the text that was read has {found} lines "
                      "({rest} after the first)."),
    Counted.ENTRIES: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} entries."),
    Counted.FILES: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} files."),
    Counted.FOLDERS: N_("Check this answer: it says {claimed}, but the folder that was listed has {found} folders."),
    Counted.MATCHES: N_("Check this answer: it says {claimed}, but the search found {found} matches."),
}


def mismatch_note(mismatch: CountMismatch) -> str:
    """The note for an answer whose number contradicts what a tool counted (re-translatable)."""
    return deferred(_MISMATCH[mismatch.counted], claimed=mismatch.claimed, found=mismatch.found,
                    rest=max(mismatch.found - 1, 0))
