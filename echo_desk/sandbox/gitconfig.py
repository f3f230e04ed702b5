"""``core.hooksPath`` from git's configuration files, read as git reads them (no git process:
this runs for every repository of the workspace before and after every sandboxed command)."""

from __future__ import annotations

import os
import time

#: A file read less than this after it last changed is read again next time (see repositories).
_RACY_NS = 2_000_000_000
_MAX_CACHED = 10_000


def hooks_path(config_files: list[str]) -> str | None:
    """``core.hooksPath`` from git configuration files, the first that sets it winning (pass
    them as git ranks them: the repository's own first, then global, then system)."""
    for path in config_files:
        value = _core_value(path, "hookspath")
        if value is not None:
            return value
    return None


_values: dict[tuple[str, str], tuple[tuple[int, int, int, int, int], str | None]] = {}


def forget() -> None:
    _values.clear()


def _core_value(path: str, key: str) -> str | None:
    """The last value of ``core.<key>`` in one git config file (sections and keys are
    case-insensitive; quotes and backslash escapes as git reads them). ``include`` is not followed.
    Kept per file until the file changes (its size, times or inode)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    stamp = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    known = _values.get((path, key))
    if known is not None and known[0] == stamp and time.time_ns() - st.st_ctime_ns > _RACY_NS:
        return known[1]
    try:
        with open(path, "rb") as f:
            text = f.read(1 << 20).decode("utf-8", "replace")
    except OSError:
        return None
    value = _parse_core(text, key)
    if len(_values) > _MAX_CACHED:
        _values.clear()
    _values[(path, key)] = (stamp, value)
    return value


def _parse_core(text: str, key: str) -> str | None:
    section = ""
    value: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            end = line.find("]")
            section = line[1:end].strip().split()[0].lower() if end > 1 else ""
            line = line[end + 1:].strip() if end > 0 else ""
            if not line:
                continue
        if section != "core" or "=" not in line:
            continue
        name, _, rest = line.partition("=")
        if name.strip().lower() == key:
            value = _config_value(rest)
    return value


def _config_value(rest: str) -> str:
    out: list[str] = []
    quoted = False
    i = 0
    text = rest.strip()
    while i < len(text):
        c = text[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and i + 1 < len(text):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(text[i], text[i]))
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()
