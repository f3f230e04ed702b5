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


# -- several processes share the file: the app, the CLI, each client's gateway -----------------

def test_a_change_another_process_saved_is_kept_by_the_next_save(tmp_path: Path) -> None:
    app, cli = SettingsStore.in_dir(tmp_path), SettingsStore.in_dir(tmp_path)
    cli.update(lambda s: s.mcp_approved.update({"notes": "fp-1"}))
    app.update(lambda s: setattr(s, "language", "zh_CN"))
    on_disk = SettingsStore.in_dir(tmp_path).current
    assert on_disk.mcp_approved == {"notes": "fp-1"}
    assert on_disk.language == "zh_CN"
    assert app.current.mcp_approved == {"notes": "fp-1"}


def test_a_switch_turned_off_elsewhere_applies_here_and_subscribers_hear_of_it(tmp_path: Path) -> None:
    app, cli = SettingsStore.in_dir(tmp_path), SettingsStore.in_dir(tmp_path)
    heard: list[bool | None] = []
    app.subscribe(lambda s: heard.append(s.tool("run_command").enabled))
    cli.set_tool("run_command", enabled=False)
    assert app.refresh() is True
    assert app.current.tool("run_command").enabled is False
    assert heard == [False]
    assert app.refresh() is False  # nothing new on disk: nothing re-read, nobody told again
    assert heard == [False]


def test_reading_the_settings_looks_at_the_file_again_after_the_recheck_interval(tmp_path: Path) -> None:
    app = SettingsStore(tmp_path / "settings.json", recheck_seconds=0.0)
    SettingsStore.in_dir(tmp_path).set_tool("run_command", enabled=False)
    assert app.current.tool("run_command").enabled is False
    patient = SettingsStore(tmp_path / "settings.json", recheck_seconds=3600.0)
    SettingsStore.in_dir(tmp_path).set_tool("run_command", enabled=True)
    assert patient.current.tool("run_command").enabled is False  # trusted until the interval ends
    assert patient.refresh() is True
    assert patient.current.tool("run_command").enabled is True


def test_a_file_broken_by_hand_while_running_is_not_taken_and_kept_aside_on_the_next_save(tmp_path: Path) -> None:
    app = SettingsStore.in_dir(tmp_path)
    app.update(lambda s: setattr(s, "language", "zh_CN"))
    (tmp_path / "settings.json").write_text('{"language": "zh_CN", oops')
    assert app.refresh() is False
    assert app.current.language == "zh_CN"
    app.update(lambda s: setattr(s, "theme", "dark"))
    assert (tmp_path / "settings.broken.json").read_text() == '{"language": "zh_CN", oops'
    saved = SettingsStore.in_dir(tmp_path).current
    assert (saved.language, saved.theme) == ("zh_CN", "dark")


def test_a_removed_file_is_written_whole_by_the_next_save(tmp_path: Path) -> None:
    app = SettingsStore.in_dir(tmp_path)
    app.update(lambda s: setattr(s, "language", "zh_CN"))
    (tmp_path / "settings.json").unlink()
    assert app.refresh() is False
    app.update(lambda s: setattr(s, "theme", "dark"))
    saved = SettingsStore.in_dir(tmp_path).current
    assert (saved.language, saved.theme) == ("zh_CN", "dark")


def test_a_refused_change_still_passes_on_what_another_process_saved(tmp_path: Path) -> None:
    app, cli = SettingsStore.in_dir(tmp_path), SettingsStore.in_dir(tmp_path)
    heard: list[str] = []
    app.subscribe(lambda s: heard.append(s.theme))
    cli.update(lambda s: setattr(s, "theme", "dark"))
    with pytest.raises(ValueError, match="language"):
        app.update(lambda s: setattr(s, "language", "klingon"))
    assert app.current.theme == "dark"
    assert heard == ["dark"]


def test_processes_saving_at_once_lose_none_of_each_others_changes(tmp_path: Path) -> None:
    from tests.at_once import run_at_once

    per_process, names = 30, ["app", "cli", "cursor", "claude-code"]
    setup = (f"from pathlib import Path\nfrom echo_desk.store.settings import SettingsStore\n"
             f"store = SettingsStore.in_dir(Path({str(tmp_path)!r}))\n")
    work = (f"for i in range({per_process}):\n"
            f"    store.update(lambda s: s.mcp_approved.update({{f'{{sys.argv[2]}}-{{i}}': 'fp'}}))\n")
    assert run_at_once(setup, work, tmp_path / "gate", names) == [0] * len(names)
    saved = SettingsStore.in_dir(tmp_path).current.mcp_approved
    assert sorted(saved) == sorted(f"{name}-{i}" for name in names for i in range(per_process))
    assert not list(tmp_path.glob("*.tmp")) and not (tmp_path / "settings.broken.json").exists()


def test_a_change_that_kept_the_files_stamp_is_still_taken(tmp_path: Path) -> None:
    # Same inode, size and modification time: what two saves within one file-system tick can look like.
    import os

    app = SettingsStore.in_dir(tmp_path)
    app.update(lambda s: setattr(s, "theme", "dark"))
    path = tmp_path / "settings.json"
    before = path.stat()
    path.write_text(path.read_text().replace('"breaker_threshold": 3', '"breaker_threshold": 4'))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    assert app.refresh() is True
    assert app.current.breaker_threshold == 4


def _full_disk(path: Path, data: bytes | str) -> None:
    import errno
    import os

    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))


def test_a_change_that_cannot_be_saved_is_not_made_and_the_views_hear_so(tmp_path: Path, monkeypatch) -> None:
    store = SettingsStore.in_dir(tmp_path)
    store.set_tool("write_file", enabled=True)
    heard: list[bool | None] = []
    store.subscribe(lambda s: heard.append(s.tool("write_file").enabled))
    monkeypatch.setattr("echo_desk.store.settings.write_private", _full_disk)

    with pytest.raises(OSError, match="No space left"):
        store.set_tool("write_file", enabled=False)
    assert store.current.tool("write_file").enabled is True
    assert heard == [True]  # a switch flipped in a view is flipped back

    reported: list[OSError] = []
    store.report_save_failures(reported.append)  # the app: a message instead of an exception
    assert store.set_tool("write_file", enabled=False).tool("write_file").enabled is True
    assert [e.strerror for e in reported] == ["No space left on device"] and heard == [True, True]
    monkeypatch.undo()
    assert SettingsStore.in_dir(tmp_path).current.tool("write_file").enabled is True
    assert not list(tmp_path.glob("*.tmp"))
