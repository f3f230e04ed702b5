"""cmake's script language read into its commands (``cmake_records``): each command's name
(lower case, as cmake matches names) and its arguments, quoted ones without their quotes. What
this reader does not take apart — a bracket argument or comment (``[[…]]``, ``#[[…]]``), a
command without its parentheses — makes the whole script unread (``None``), so nothing hides
in it."""

from __future__ import annotations

import re

__all__ = ["Command", "commands"]

#: A command's name and its arguments (a parenthesis within them is an argument of its own).
Command = tuple[str, list[str]]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNQUOTED_END = frozenset(" \t\r\n()\"#")


def commands(text: str) -> list[Command] | None:
    """The commands of the script ``text``, in order, or ``None``: a form not read here."""
    found: list[Command] = []
    at = 0
    while True:
        skipped = _skip_space(text, at)
        if skipped is None:
            return None
        at = skipped
        if at >= len(text):
            return found
        name = _NAME.match(text, at)
        if name is None:
            return None
        at = name.end()
        while at < len(text) and text[at] in " \t":
            at += 1
        if at >= len(text) or text[at] != "(":
            return None
        arguments = _arguments(text, at + 1)
        if arguments is None:
            return None
        words, at = arguments
        found.append((name.group().lower(), words))


def _skip_space(text: str, at: int) -> int | None:
    """Past blanks, line ends and line comments (``None``: a bracket comment)."""
    while at < len(text):
        if text[at] in " \t\r\n":
            at += 1
        elif text[at] == "#":
            if text.startswith("#[", at):
                return None
            end = text.find("\n", at)
            at = len(text) if end < 0 else end + 1
        else:
            break
    return at


def _arguments(text: str, at: int) -> tuple[list[str], int] | None:
    """The arguments from just past a command's ``(`` to its ``)``, and where the command ends."""
    words: list[str] = []
    depth = 1
    while True:
        skipped = _skip_space(text, at)
        if skipped is None or skipped >= len(text):
            return None
        at = skipped
        char = text[at]
        if char in "()":
            depth += 1 if char == "(" else -1
            at += 1
            if depth == 0:
                return words, at
            words.append(char)
        elif char == '"':
            end = at + 1
            while end < len(text) and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                return None
            words.append(text[at + 1:end])
            at = end + 1
        elif text.startswith(("[[", "[="), at):
            return None  # (a bracket argument)
        else:
            end = at
            while end < len(text) and text[end] not in _UNQUOTED_END:
                end += 2 if text[end] == "\\" else 1
            words.append(text[at:end])
            at = end
