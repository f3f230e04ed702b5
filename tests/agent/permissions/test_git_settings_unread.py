"""s322: git settings the engine cannot read. git 2.39 reads a settings file holding a byte not
UTF-8, or opening with a byte order mark, and one included as another user's ``~name/…`` (from
that user's home folder), and runs what they set; it refuses to run (``fatal: bad config line``,
``exceeded maximum include depth``) on a malformed section or key, an open quote, an include
loop, an included folder. What the engine cannot read is taken to name any file."""

from __future__ import annotations

from pathlib import Path

import pytest

from echo_desk.agent.permissions import git_config
from echo_desk.agent.permissions.git_config import ANYWHERE, Named


@pytest.mark.parametrize("settings", [
    "[include]\n\tpath = ~root/shared.gitconfig\n",
    "[core]\n\thooksPath = ~root/hooks\n",
    "[core]\n\tfsmonitor = ~root/bin/monitor\n",
])
def test_another_users_home_folder_in_the_settings_names_any_file(tmp_path: Path, settings: str) -> None:
    """git reads ``~name/…`` from that user's home folder, not the worktree: a file the agent
    may write there is taken to be one of them (it was the worktree)."""
    home, root = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    root.mkdir()
    (home / ".gitconfig").write_text(settings, encoding="utf-8")
    assert ANYWHERE in git_config.named(root, None, home, None)
    assert Named(root, folder=True) not in git_config.named(root, None, home, None)


def test_a_byte_order_mark_is_skipped_as_git_skips_it(tmp_path: Path) -> None:
    settings = tmp_path / "config"
    settings.write_text('\ufeff[credential]\n\thelper = store --file=/x/creds\n', encoding="utf-8")
    assert git_config.file_entries(settings) == (("credential", None, "helper", "store --file=/x/creds"),)


@pytest.mark.parametrize(("text", "unread"), [
    (b"[user]\n\tname = \xe9t\xe9\n", True),  # (not UTF-8: git reads it)
    (b"[include]\n\tpath = ~root/more\n", True),
    (b"[include]\n\tpath = more\n", True),  # (an included file not UTF-8)
    (b"[include]\n\tpath = loop\n", False),  # (a loop: git refuses to run)
    (b"[include]\n\tpath = none\n", False),  # (none there: git reads nothing)
    (b"[user]\n\tname = me\n", False),
])
def test_settings_unread(tmp_path: Path, text: bytes, unread: bool) -> None:
    (tmp_path / "more").write_bytes(b"[user]\n\tname = \xff\n")
    (tmp_path / "loop").write_bytes(b"[include]\n\tpath = config\n")
    (tmp_path / "config").write_bytes(text)
    assert git_config.settings_unread([tmp_path / "config"], tmp_path) is unread
