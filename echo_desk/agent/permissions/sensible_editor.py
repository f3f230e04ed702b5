"""What Debian's ``sensible-editor`` runs: the editor hg starts there (the system's settings,
/etc/mercurial/hgrc.d, set ``ui.editor = sensible-editor``), and git where the person names it.

sensible-utils 0.0.17's script runs ``"$VISUAL"`` (one word), else sources ``~/.selected_editor``
(as shell code: ``select-editor`` writes ``SELECTED_EDITOR="/usr/bin/vim.basic"`` there) and runs
``${EDITOR:-${SELECTED_EDITOR:-editor}}`` (split into words), and when that is not found (exit
126 or 127; its own ``nano`` gives 126 without ``TERM``) ``nano``, ``nano-tiny``, ``vi`` in turn.
Each counts as a command the line runs (``editor_starts``). A ``~/.selected_editor`` holding more
than that one setting may run anything: it is not read here, so the line asks; one the agent may
write is code it planted (counted among git's and hg's settings files: ``program_options``).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from echo_desk.agent.permissions import line_environment, path_search
from echo_desk.agent.permissions.git_config import settings_text

__all__ = ["PROGRAM", "SELECTED_FILE", "editors", "selected"]

PROGRAM = "sensible-editor"
SELECTED_FILE = ".selected_editor"
_FALLBACKS = ("nano", "nano-tiny", "vi")
_NAME = "SELECTED_EDITOR"


def selected(home: Path | None) -> str | None:
    """The ``SELECTED_EDITOR`` ``~/.selected_editor`` sets (``""``: no file, or none set;
    ``None``: a file holding more than that setting and comments, or not read)."""
    if home is None:
        return None
    path = home / SELECTED_FILE
    if not path.exists():
        return ""
    text = settings_text(str(path))
    if text is None:
        return None
    value = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, equals, rest = stripped.partition("=")
        if name != _NAME or not equals:
            return None
        read = _plain_value(rest)
        if read is None:
            return None
        value = read
    return value


def editors(chosen: str | None, file: str) -> list[str | None]:
    """The shell lines ``sensible-editor FILE`` may run, the file being ``file`` (``chosen``:
    ``selected``'s answer; ``None`` in the list: one not known here)."""
    lines: list[str | None] = []
    visual = line_environment.get("VISUAL")
    if visual:
        lines.append(f"{shlex.quote(visual)} {file}")
    editor = line_environment.get("EDITOR") or chosen
    if editor is None:
        return [*lines, None]
    editor = editor or "editor"
    lines.append(f"{editor} {file}")
    if not _found(editor):
        lines += [f"{fallback} {file}" for fallback in _FALLBACKS]
    return lines


def _plain_value(text: str) -> str | None:
    """A value the shell gives as written: quoted without expansions, or one plain word."""
    try:
        words = shlex.split(text, comments=True)
    except ValueError:
        return None
    if len(words) > 1 or any(c in text for c in "$`\\;&|<>()"):
        return None
    return words[0] if words else ""


def _found(editor: str) -> bool:
    """Whether the first word of ``editor`` names a program that runs (not one ``sensible-editor``
    falls back from): a builtin, a runnable file, one found in an absolute folder of ``PATH``."""
    words = editor.split()
    if not words:
        return False
    word = words[0]
    if word == "nano" and not line_environment.get("TERM"):
        return False  # (its own nano gives 126 without TERM)
    if "/" in word:
        # (a relative one is looked for from the folder it runs in: not known to be there)
        return os.path.isabs(word) and os.path.isfile(word) and os.access(word, os.X_OK)
    if not path_search.looked_up(word):
        return True
    for entry in line_environment.get("PATH").split(os.pathsep):
        if not os.path.isabs(entry):
            return False  # (the folder it runs in: not known to hold it or not)
        candidate = os.path.join(entry, word)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return True
    return False
