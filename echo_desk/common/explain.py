"""An exception said for a person, whatever raised it: the system's refusal in Echo Desk's own
sentence ("the disk is full", not ``[Errno 28] No space left on device``), and the developer's
words kept beside it (``technical_detail``: a tooltip, the log, a report) in English.

No MCP, no Qt here: the settings pages, the window, the model providers and the MCP code all use
it. ``echo_desk.mcp.explain.explained`` names the failures of an MCP server on top of these.
"""

from __future__ import annotations

import errno

from echo_desk.i18n import N_, Deferred, deferred

#: The most of a server's or a library's own text quoted on a row.
MOST_QUOTED = 500


#: The system's refusals a person meets when Echo Desk reads or writes a settings file, in
#: sentences of Echo Desk's own: ``strerror`` is the C library's English.
_SYSTEM_SAYS = {
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOENT: N_("no such file or folder"),
    errno.ENOSPC: N_("the disk is full"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EISDIR: N_("it is a folder, not a file"),
    errno.ENOTDIR: N_("a part of the path is not a folder"),
}


def technical_detail(exc: BaseException) -> str:
    """The developer's words for ``exc`` and for what caused it, a line each (``Type: text``):
    never the sentence a person reads, kept beside it (a tooltip, a details view) for a report,
    in English whatever the language (Echo Desk's own sentences by their message ids)."""
    lines: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        first = current.args[0] if len(current.args) == 1 else None
        text = in_english(first) if isinstance(first, Deferred) else str(current)
        lines.append(f"{type(current).__name__}: {text}"[:MOST_QUOTED] if text else type(current).__name__)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return "\n".join(lines)


def in_english(text: object) -> str:
    """A ``deferred`` text as its message id reads (English), its parameters alike: for the log
    and a report, whatever the language of the moment."""
    if isinstance(text, tuple):
        return ", ".join(in_english(item) for item in text)
    if not isinstance(text, Deferred):
        return str(text)
    if not text.params:
        return text.msgid
    try:
        return text.msgid.format(**{key: in_english(value) if isinstance(value, Deferred | tuple) else value
                                    for key, value in text.params.items()})
    except (KeyError, IndexError, ValueError):  # not a message id after all: as it was said
        return str(text)


def refusal_cause(exc: OSError) -> str | None:
    """The system's refusal ``exc`` in Echo Desk's words alone ("the disk is full", ``deferred``),
    for a sentence that already says something was refused; ``None`` for a refusal not listed."""
    return deferred(_SYSTEM_SAYS[exc.errno]) if exc.errno in _SYSTEM_SAYS else None


def refused(exc: OSError, *, quote_detail: bool = True) -> str:
    """The system's refusal ``exc`` as a person reads it (``deferred``), whatever the file: for a
    settings file or an export, where ``explained`` would read a missing program into
    ``FileNotFoundError`` (an MCP server's command)."""
    cause = refusal_cause(exc)
    if cause is not None:
        return deferred(N_("the system refused it: {error}"), error=cause)
    if exc.strerror and quote_detail:
        return deferred(N_("the system refused it: {error}"), error=exc.strerror[:MOST_QUOTED])
    return deferred(N_("the system refused it (error {code})"), code=errno.errorcode.get(exc.errno or 0, exc.errno))
