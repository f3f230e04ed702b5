"""Settings: typed, versioned, migrated, saved atomically, never silently lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from echo_desk.store.settings import SCHEMA_VERSION, Settings, SettingsStore, ToolPolicy


def test_changes_persist_and_notify(tmp_path: Path) -> None:
    store = SettingsStore.in_dir(tmp_path)
    seen = []
    store.subscribe(lambda s: seen.append(s.tool("echo_text").enabled))
    store.set_tool("echo_text", enabled=False, policy=ToolPolicy.ASK)
    again = SettingsStore.in_dir(tmp_path)
    assert again.current.tool("echo_text").enabled is False
    assert again.current.tool("echo_text").policy is ToolPolicy.ASK
    assert seen == [False]
    assert not list(tmp_path.glob("*.tmp"))


def test_version_zero_is_migrated(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"disabled_tools": ["run_command"], "language": "zh_CN"}))
    store = SettingsStore.in_dir(tmp_path)
    assert store.current.schema_version == SCHEMA_VERSION
    assert store.current.tool("run_command").enabled is False
    assert store.current.language == "zh_CN"


def test_a_broken_file_is_kept_aside_not_overwritten(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text("{ not json")
    store = SettingsStore.in_dir(tmp_path)
    assert store.current.active_profile == "everything"
    assert (tmp_path / "settings.broken.json").read_text() == "{ not json"


def test_invalid_values_are_refused_and_nothing_changes(tmp_path: Path) -> None:
    store = SettingsStore.in_dir(tmp_path)
    with pytest.raises(ValueError, match="language"):
        store.update(lambda s: setattr(s, "language", "klingon"))
    assert store.current.language is None
    assert not (tmp_path / "settings.json").exists()


def test_the_saved_language_accepts_exactly_the_languages_echo_desk_ships() -> None:
    # One list of languages (echo_desk.i18n); the settings' Literal must not drift from it.
    from typing import get_args

    from echo_desk.i18n import LANGUAGE_NAMES, LANGUAGES

    field = Settings.model_fields["language"].annotation
    literal = next(arg for arg in get_args(field) if arg is not type(None))
    assert get_args(literal) == LANGUAGES
    assert tuple(LANGUAGE_NAMES) == LANGUAGES
