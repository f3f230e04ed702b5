"""Where a line's commands run: a folder change is seen behind bash's ``builtin`` and ``command``,
and a ``cd`` through a link counts both where bash goes (logically) and where the link leads.
The hostile corpus proves the harm (``wrapped-cd``, ``cd-logical``)."""

from __future__ import annotations

import pytest

from echo_desk.agent.permissions.shell import analyse


@pytest.mark.parametrize(("line", "changes"), [
    ("cd out", True), ("builtin cd out", True), ("command cd out", True), ("command -p cd out", True),
    ("builtin command pushd out", True), ("command -- popd", True),
    ("command -v cd", False), ("command -pV cd", False), ("echo cd out", False), ("builtin echo cd", False),
])
def test_a_folder_change_is_seen_behind_builtin_and_command(line: str, changes: bool) -> None:
    assert analyse(line).changes_directory is changes
