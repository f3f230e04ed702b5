"""What the model reads of what a sandbox planted (a command's, a sandboxed MCP server's): a bounded
list, never every entry. A command that plants 50,000 files would otherwise flood the model's
context (a small local model has 4-8k tokens; the envelope's cap cuts the end of the text, the total
and the advice with it) and the stored conversation with it. The model gets the first
``MOST_NAMED`` entries, each name at most ``LONGEST_NAME`` characters, then how many more and the
total. The card keeps its own cap (``sandbox_kept``); the audit row its own (``store.audit``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from echo_desk.tools.planted import Change, Planted

#: Entries named to the model; those past it are counted, not named.
MOST_NAMED = 10
#: A name longer than this is cut in its middle (a path may be 4 KiB long): its start says where
#: it is, its end what it is.
LONGEST_NAME = 200


def most_telling_first(planted: Sequence[Planted]) -> list[Planted]:
    """``planted`` in the order a cut keeps: what the reader must act on before what only informs.

    Every entry is in a place that makes a program run code later (that is why the guard reports
    it), so the kind of file says little; what was done with it says more. First what is still in
    the workspace (the model must not use it), then a file of the person's that could not be put
    back (it is damaged), then their files changed or removed and put back, then what was created.
    Within each, the shallowest paths first: thousands of files planted deep below one place show
    that place (``.git/hooks``) instead of filling the list with its leaves. Then by path, so the
    same plants are always told alike."""
    return sorted(planted, key=_telling)


def _telling(p: Planted) -> tuple[int, int, str]:
    if p.still_there:
        rank = 0
    elif p.change is not Change.CREATED and not p.put_back:
        rank = 1
    elif p.change is not Change.CREATED:
        rank = 2
    else:
        rank = 3
    return rank, p.path.count("/"), p.full()


def the_named(planted: Sequence[Planted], most: int = MOST_NAMED) -> Sequence[Planted]:
    """The entries of ``planted`` a bounded list names: all of them, in the guard's order, when
    they are ``most`` or fewer; else the ``most`` most telling (``most_telling_first``)."""
    return planted if len(planted) <= most else most_telling_first(planted)[:most]


def named_and_counted(planted: Sequence[Planted], name: Callable[[Planted], str], most: int = MOST_NAMED) -> str:
    """``planted`` as text for the model: each entry ``the_named`` keeps as ``name`` gives it (cut
    to ``LONGEST_NAME``), ``; `` between them, then how many more and the total."""
    return first_and_counted([name(p) for p in the_named(planted, most)], len(planted), most)


def first_and_counted(texts: Sequence[str], total: int | None = None, most: int = MOST_NAMED,
                      between: str = "; ") -> str:
    """The first ``most`` of ``texts`` (each cut to ``LONGEST_NAME``), ``between`` them, then how
    many more of ``total`` (``len(texts)`` when not given) were not named: for any list a model or
    a log line is given (hosts the sandbox refused, what a check put aside), never all of it."""
    total = len(texts) if total is None else total
    named = between.join(_cut(text) for text in texts[:most])
    if total <= most:
        return named
    return f"{named}{between}and {total - most:,} more ({total:,} in all, not named here)"


def _cut(text: str) -> str:
    if len(text) <= LONGEST_NAME:
        return text
    head = (LONGEST_NAME - 1) // 2
    return f"{text[:head]}…{text[head + 1 - LONGEST_NAME:]}"
