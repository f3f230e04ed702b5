"""The editor the person's settings name for a git or hg command that starts one: git's
``core.editor`` (the system's, the person's and the repository's settings files, the files they
include, ``GIT_CONFIG_*`` and ``-c`` on the line), hg's ``ui.editor`` (its settings files,
``%include``, ``--config``; Debian's system settings name ``sensible-editor``, judged as what it
runs: ``sensible_editor``). git and hg run it through the shell, so it is judged as the shell
line it is, as if the line named it (``editor_starts``); settings that cannot be read may name
any program, so the line asks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from echo_desk.agent.permissions import git_aliases, hg_aliases, sensible_editor
from echo_desk.agent.permissions.editor_starts import git_set_editors, hg_set_editors
from echo_desk.agent.permissions.reading import Reading

__all__ = ["with_set_editors"]


def with_set_editors(reading: Reading, values: Sequence[str | None], program: str, folders: Sequence[Path],
                     home: Path | None) -> Reading:
    """``reading`` of the ``program`` (``git``, ``hg``) command ``values`` run in any of
    ``folders``, with the editor its settings name among the commands it runs, where it starts
    an editor no word names."""
    if not any(inner.editor for inner in reading.inners):
        return reading
    args = tuple(values[1:])
    if program == "git":
        entries = git_aliases.settings(args, folders, home, every_top=True)
        named = None if entries is None else [v for s, _, k, v in entries if s == "core" and k == "editor"]
        added = git_set_editors(named, sensible_editor.selected(home))
    else:
        hg_entries = hg_aliases.settings(args, folders, home, values[0])
        named = None if hg_entries is None else [v for s, k, v in hg_entries if s == "ui" and k == "editor"]
        added = hg_set_editors(named, sensible_editor.selected(home))
    added = tuple(inner for inner in added if inner not in reading.inners)
    return replace(reading, inners=(*reading.inners, *added)) if added else reading
