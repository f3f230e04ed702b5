"""A hidden place inside the workspace stays where the hidden list says it is.

The hidden place is a mount point, which cannot be renamed, but the folders above it were not:
with the home folder as the workspace, ``mv ~/.config ~/.cfg`` took ``~/.config/gcloud`` along,
and the next command, whose list names ``~/.config/gcloud``, read ``~/.cfg/gcloud`` (tested
before the change: the second command printed the credentials).
"""

from __future__ import annotations

import pytest
from sandbox_helpers import Jail, context, requires_bwrap, run, tool_with

pytestmark = requires_bwrap

#: Every folder two levels down, then one level down (the glob is read before the loop runs).
MOVE_EVERY_FOLDER = ('for d in */*/ .[!.]*/*/; do mv "${d%/}" "${d%/}-moved"; done 2>/dev/null; '
                     'for d in */ .[!.]*/; do mv "${d%/}" "${d%/}-moved"; done 2>/dev/null; true')


async def test_with_the_home_folder_open_no_folder_above_a_hidden_place_can_be_moved_away(jail: Jail) -> None:
    first = await run(tool_with(), {"command": MOVE_EVERY_FOLDER}, context(jail.home, approved=True))
    assert first.success, first.error
    second = await run(tool_with(), {"command": f"find {jail.base} -type f -not -path '{jail.outside}/*' -exec cat {{}} +"},
                       context(jail.workspace, approved=True))
    assert second.metadata["sandbox"]["sandboxed"] is True
    assert jail.leaked(second.output) == []
    assert all(path.exists() for path in jail.secrets)


async def test_the_refused_move_is_named_for_the_person_and_the_model(jail: Jail) -> None:
    result = await run(tool_with(), {"command": "mv .config .cfg"}, context(jail.home, approved=True))
    assert result.metadata["sandbox"]["blocked"] == ["kept_in_place"], result.output
    assert "a folder the sandbox keeps in place" in result.output
    assert (jail.home / ".config").is_dir() and not (jail.home / ".cfg").exists()


async def test_a_moved_place_inside_a_project_stays_put_too(jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    key = jail.workspace / "keys" / "gnupg" / "private-keys-v1.d" / "key.key"
    key.parent.mkdir(parents=True)
    key.write_text("canary-moved-gnupg-key\n")
    monkeypatch.setenv("GNUPGHOME", str(jail.workspace / "keys" / "gnupg"))
    first = await run(tool_with(), {"command": "mv keys k2; mkdir -p keys/gnupg; true"},
                      context(jail.workspace, approved=True))
    assert first.success, first.error
    second = await run(tool_with(), {"command": "cat k2/gnupg/private-keys-v1.d/key.key keys/gnupg/*/*"},
                       context(jail.workspace, approved=True))
    assert "canary-moved-gnupg-key" not in second.output
    assert key.exists()
