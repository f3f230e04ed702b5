"""Echo Desk makes a placeholder itself before the first command using it (s224); where that
fails, bwrap is left to make it, and the command still starts."""

from __future__ import annotations

from pathlib import Path

from echo_desk.sandbox import placeholders
from echo_desk.sandbox.placeholders import Placeholder


def test_a_placeholder_whose_folder_went_away_is_left_to_bwrap(tmp_path: Path) -> None:
    # (the parent existed when `missing` looked; a concurrent command removed it since)
    gone = Placeholder(tmp_path / "removed" / "hooks", True)
    placeholders.take([gone])
    try:
        assert placeholders.in_use()[gone.path] == 1
        assert not gone.path.parent.exists()
    finally:
        placeholders.release([gone])
    assert gone.path not in placeholders.in_use()


def test_a_placeholder_made_here_is_removed_by_its_last_user(tmp_path: Path) -> None:
    made = Placeholder(tmp_path / "config", False)
    placeholders.take([made])
    placeholders.take([made])
    assert made.path.is_file() and made.path.stat().st_size == 0
    placeholders.release([made])
    assert made.path.exists()  # another command still uses it
    placeholders.release([made])
    assert not made.path.exists()
