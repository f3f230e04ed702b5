"""Every place Echo Desk keeps its own trust is marked by the file tools as the shell marks it:
the settings, data and cache folders and the keyring folders (tokens and secrets). A write there
needs the person's own approval of that exact path, whatever rule allows writing elsewhere."""

from __future__ import annotations

from pathlib import Path

import pytest
from tool_test_helpers import MakeCtx

from echo_desk.builtins import DeletePath, EditFile, MovePath, WriteFile
from echo_desk.store import paths
from echo_desk.tools import ErrorKind, ProtectionReason


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = (tmp_path / "home").resolve()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ECHO_DESK_CACHE_DIR", str(home / ".cache" / "echo-desk"))
    return home


@pytest.mark.parametrize("where", ["cache", "keyrings", "python_keyring", "kwalletd"])
async def test_the_file_tools_mark_every_own_folder_the_shell_marks(home: Path, make_ctx: MakeCtx, where: str) -> None:
    folder = {"cache": home / ".cache" / "echo-desk" / "sandbox",
              "keyrings": home / ".local/share/keyrings",
              "python_keyring": home / ".local/share/python_keyring",
              "kwalletd": home / ".local/share/kwalletd"}[where]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "file.cfg"
    target.write_text("old\n")
    reasons = {r for r, f in paths.own_places() if target.is_relative_to(f.resolve())}
    assert reasons == {ProtectionReason.CACHE_FOLDER if where == "cache" else ProtectionReason.KEYRING_FOLDER}
    roots = (home,)
    for tool, params in ((WriteFile(), {"path": str(target), "content": "new\n"}),
                         (EditFile(), {"path": str(target), "edits": [{"old": "old", "new": "new"}]}),
                         (MovePath(), {"source": str(target), "destination": str(home / "moved.cfg")}),
                         (DeletePath(), {"path": str(target)})):
        ctx = make_ctx(tool.name, roots=roots)
        preview = await tool.preview(params, ctx)
        marked = {p.reason for t in preview.targets for p in t.protections}
        assert reasons <= marked, (tool.name, marked)
        result = await tool.execute(params, ctx)  # allowed by a rule, not approved by the person
        assert not result.success and result.error_kind is ErrorKind.BUSINESS, (tool.name, result)
        assert target.read_text() == "old\n"
