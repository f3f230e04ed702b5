"""Whether two file-name globs may match one name: the last part of a write rule's pattern
(gitignore's glob) and the names a program runs as code (``test*.txt``, ``*.py``).

A write rule made concrete under a folder gives a sample path (``@workspace/tests/test*`` gives
tests/testx): its name says nothing of the other names the rule allows there (tests/test_a.py,
which pytest collects). Asking whether the two globs share a name judges every one of them.

Read to err wide: a character class (``[ab]``, ``[!a]``) is taken as any one character, so the
answer is "may" whenever it cannot be ruled out by the literal characters and the lengths."""

from __future__ import annotations

#: A token of a glob: one literal character, ``_ONE`` (any one character) or ``_ANY`` (any run).
_ONE = "\x00one"
_ANY = "\x00any"


def gitignore_tokens(glob: str) -> tuple[str, ...]:
    """The tokens of one part of a gitignore pattern (``\\`` escapes the next character)."""
    tokens: list[str] = []
    at = 0
    while at < len(glob):
        char = glob[at]
        if char == "\\" and at + 1 < len(glob):
            tokens.append(glob[at + 1])
            at += 2
            continue
        if char == "[":
            close = glob.find("]", at + 2)
            at = close + 1 if close != -1 else at + 1
            tokens.append(_ONE)
            continue
        tokens.append(_ANY if char == "*" else _ONE if char == "?" else char)
        at += 1
    return _joined(tokens)


def fnmatch_tokens(glob: str) -> tuple[str, ...]:
    """The tokens of an fnmatch glob on a name (pytest's ``--doctest-glob``); one holding a ``/``
    is matched against the whole path, so it may match any name."""
    if "/" in glob:
        return (_ANY,)
    return gitignore_tokens(glob.replace("\\", "?"))


def suffix_tokens(suffix: str) -> tuple[str, ...]:
    """The tokens of "any name ending with ``suffix``" (``""``: any name)."""
    return (_ANY, *suffix)


def may_share_a_name(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Whether some name may match both globs (tokens from the functions above): a walk over
    the pairs of places reached in each, from both starts to both ends."""
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        i, j = todo.pop()
        if i == len(first) and j == len(second):
            return True
        for step in _steps(first, second, i, j):
            if step not in seen:
                seen.add(step)
                todo.append(step)
    return False


def _steps(a: tuple[str, ...], b: tuple[str, ...], i: int, j: int) -> list[tuple[int, int]]:
    """Where a name may go on from places ``i`` of ``a`` and ``j`` of ``b``: a run ends, or takes
    the other's next token, or two single characters that may be one are read."""
    steps: list[tuple[int, int]] = []
    if i < len(a) and a[i] == _ANY:
        steps += [(i + 1, j)] + ([(i, j + 1)] if j < len(b) else [])
    if j < len(b) and b[j] == _ANY:
        steps += [(i, j + 1)] + ([(i + 1, j)] if i < len(a) else [])
    if i < len(a) and j < len(b) and _ANY not in (a[i], b[j]) and (a[i] == b[j] or _ONE in (a[i], b[j])):
        steps.append((i + 1, j + 1))
    return steps


def _joined(tokens: list[str]) -> tuple[str, ...]:
    """``**`` inside a name is ``*``: one run token for each run of them."""
    out: list[str] = []
    for token in tokens:
        if not (token == _ANY and out and out[-1] == _ANY):
            out.append(token)
    return tuple(out)


def may_share_a_path(pattern: list[str], target: list[tuple[str, ...]]) -> bool:
    """Whether some path may match both the parts of a gitignore pattern (``**`` any number of
    parts) and ``target``, one glob's tokens per part (a literal part: its characters; any
    name: ``suffix_tokens("")``)."""
    tokens = [None if part == "**" else gitignore_tokens(part) for part in pattern]
    seen = {(0, 0)}
    todo = [(0, 0)]
    while todo:
        i, j = todo.pop()
        if i == len(tokens) and j == len(target):
            return True
        steps: list[tuple[int, int]] = []
        if i < len(tokens) and tokens[i] is None:
            steps += [(i + 1, j)] + ([(i, j + 1)] if j < len(target) else [])
        elif i < len(tokens) and j < len(target) and may_share_a_name(tokens[i] or (), target[j]):
            steps.append((i + 1, j + 1))
        for step in steps:
            if step not in seen:
                seen.add(step)
                todo.append(step)
    return False
