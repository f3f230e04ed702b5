"""The settings git takes from its environment rather than a file: ``GIT_CONFIG_COUNT`` with
``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``, and ``GIT_CONFIG_PARAMETERS`` (where ``git
-c`` leaves its settings for the git commands it runs: ``'core.hooksPath'='out/hooks'``).
They weigh as a settings file does (proven with git 2.39 under bash and dash, the variables in
the environment the shell was started with, as Echo Desk's commands inherit its own:
``core.fsmonitor`` ran under ``git status``, a relative ``core.hooksPath`` ran the hook there
under ``git commit``).

They are read with ``line_environment``: Echo Desk's own environment with what the line gives
the command on top. What cannot be read as git reads it (a count that is not a number, a
missing key, quoting not understood here) is ``None``: the reader counts it as naming any file.
"""

from __future__ import annotations

from echo_desk.agent.permissions import line_environment

__all__ = ["Entry", "entries"]

#: ``(section, subsection, key, value)``, section and key lowercase, as ``git_config`` reads them.
Entry = tuple[str, str | None, str, str]
#: More settings than this are not read one by one (people pass a few).
_MAX_COUNT = 1000


def entries() -> tuple[Entry, ...] | None:
    """The settings the environment gives git (``None``: not read, so they may name anything)."""
    found: list[Entry] = []
    count = line_environment.get("GIT_CONFIG_COUNT")
    if count:
        if not count.isdigit() or int(count) > _MAX_COUNT:
            return None  # (git refuses a count that is not a number; a huge one is not read here)
        for n in range(int(count)):
            entry = _entry(line_environment.get(f"GIT_CONFIG_KEY_{n}"), line_environment.get(f"GIT_CONFIG_VALUE_{n}"))
            if entry is None:
                return None
            found.append(entry)
    parameters = _parameters(line_environment.get("GIT_CONFIG_PARAMETERS"))
    if parameters is None:
        return None
    for key, value in parameters:
        entry = _entry(key, value)
        if entry is None:
            return None
        found.append(entry)
    return tuple(found)


def _entry(key: str, value: str) -> Entry | None:
    """``section[.subsection].key`` and its value (``None``: not a key git takes)."""
    section, dot, rest = key.partition(".")
    subsection, _, name = rest.rpartition(".")
    if not dot or not section or not name:
        return None
    return section.lower(), subsection if subsection else None, name.lower(), value


def _parameters(text: str) -> list[tuple[str, str]] | None:
    """The ``(key, value)`` pairs of ``GIT_CONFIG_PARAMETERS``: words between spaces, each made
    of single-quoted parts and ``\\'`` (git's quoting), ``'key'='value'`` or the older
    ``'key=value'`` (``None``: another spelling, not read here)."""
    pairs: list[tuple[str, str]] = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return pairs
        key: str | None = None
        parts: list[str] = []
        while i < len(text) and not text[i].isspace():
            char = text[i]
            if char == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    return None
                parts.append(text[i + 1:end])
                i = end + 1
            elif char == "\\" and i + 1 < len(text):
                parts.append(text[i + 1])
                i += 2
            elif char == "=" and key is None:
                key, parts = "".join(parts), []
                i += 1
            else:
                return None
        if key is None:
            key, _, value = "".join(parts).partition("=")
        else:
            value = "".join(parts)
        pairs.append((key, value))
