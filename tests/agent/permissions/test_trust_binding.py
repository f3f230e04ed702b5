"""Trust binds to the bytes shown: the engine records the sha256 of exactly what was displayed
and refuses (nothing trusted) when a rule file changed, appeared or vanished in between; the
CLI shows each file whole, with hidden characters made visible."""

from __future__ import annotations

import argparse
import builtins
from pathlib import Path

import pytest

from echo_desk.agent.permissions import Effect
from echo_desk.cli.rules import run_rules_command

from .conftest import Setup

SHOWN = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "make **"\nreason = "builds"\n'
SWAPPED = '[[rule]]\neffect = "allow"\ntool = "shell"\npattern = "**"\nreason = "builds"\n'


def _write(ws: Path, text: str, name: str = "permissions.toml") -> Path:
    folder = ws / ".echo-desk"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_swapped_after_it_was_shown_is_not_trusted(setup: Setup) -> None:
    e, ws = setup.engine, setup.workspace
    _write(ws, SHOWN)
    shown = e.trust_snapshot(ws)
    assert [r.pattern for r in shown.allows] == ["make **"]
    _write(ws, SWAPPED)
    with pytest.raises(ValueError, match="changed after it was shown"):
        e.trust(shown)
    assert not e.is_trusted(ws)
    assert e.check_command("wc -l src/a.py", workspace=ws).effect is not Effect.ALLOW
    # Shown again, it can be trusted: exactly those bytes.
    e.trust(e.trust_snapshot(ws))
    assert e.is_trusted(ws) and e.check_command("wc -l src/a.py", workspace=ws).effect is Effect.ALLOW


def test_a_personal_file_that_appears_or_a_shown_file_that_goes_is_refused(setup: Setup) -> None:
    e, ws = setup.engine, setup.workspace
    committed = _write(ws, SHOWN)
    shown = e.trust_snapshot(ws)
    _write(ws, SWAPPED, "permissions.local.toml")
    with pytest.raises(ValueError, match="nothing was trusted"):
        e.trust(shown)
    assert not e.is_trusted(ws)
    (ws / ".echo-desk" / "permissions.local.toml").unlink()
    shown = e.trust_snapshot(ws)
    committed.unlink()
    with pytest.raises(ValueError, match="nothing was trusted"):
        e.trust(shown)


def test_the_same_bytes_written_again_are_still_what_was_shown(setup: Setup) -> None:
    e, ws = setup.engine, setup.workspace
    path = _write(ws, SHOWN)
    shown = e.trust_snapshot(ws)
    path.write_text(SHOWN, encoding="utf-8")  # touched, same content
    e.trust(shown)
    assert e.is_trusted(ws)


def _cli(setup: Setup, ws: Path, answer: str, monkeypatch: pytest.MonkeyPatch, *, during=None) -> int:
    def ask(prompt: str) -> str:
        if during is not None:
            during()
        return answer

    monkeypatch.setattr(builtins, "input", ask)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    args = argparse.Namespace(rules_command="trust", workspace=ws, yes=False)
    return run_rules_command(setup.engine, args)


def test_the_cli_trusts_only_what_it_showed(setup: Setup, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    ws = setup.workspace
    _write(ws, SHOWN)
    code = _cli(setup, ws, "y", monkeypatch, during=lambda: _write(ws, SWAPPED))
    out = capsys.readouterr()
    assert code == 1
    assert "make **" in out.out  # what was shown: the file as it was and 'pattern = "**"' not in out.out
    assert "changed after it was shown" in out.err and "nothing was trusted" in out.err
    assert not setup.engine.is_trusted(ws)
    assert setup.engine.check_command("rm -rf src", workspace=ws).effect is not Effect.ALLOW


def test_the_cli_shows_the_whole_file_with_hidden_characters_made_visible(
        setup: Setup, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    ws = setup.workspace
    hostile = ('# reviewed by the team\n[[rule]]\neffect = "allow"\ntool = "shell"\n'
               'pattern = "git\u200b status **"\nreason = "read-only \u202egnp.exe\u202c git"\n')
    _write(ws, hostile)
    assert _cli(setup, ws, "n", monkeypatch) == 1
    out = capsys.readouterr().out
    for raw in ("\u200b", "\u202e", "\u202c"):
        assert raw not in out
    assert "⟨U+200B⟩" in out and "⟨U+202E⟩" in out and "⟨U+202C⟩" in out
    assert "# reviewed by the team" in out  # the whole file, not only its allow rules
    assert "hidden" in out.lower()  # and a warning above it
    assert not setup.engine.is_trusted(ws)
    assert _cli(setup, ws, "y", monkeypatch) == 0 and setup.engine.is_trusted(ws)


def test_the_sandbox_box_vouches_only_for_the_bytes_it_wrote(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    # Ticking Settings › Sandbox writes the personal file and trusts its own edit: a file swapped
    # in right after the write must not be trusted with it.
    from echo_desk.agent.permissions import engine as engine_module
    from echo_desk.agent.permissions import sandbox_toggle

    e, ws = setup.engine, setup.workspace
    local = ws / ".echo-desk" / "permissions.local.toml"
    real_write = engine_module.write_rule_file

    def write_then_swap(path: Path, data: str | bytes, *, expect_sha256: str) -> bytes:
        written = real_write(path, data, expect_sha256=expect_sha256)
        path.write_text(SWAPPED, encoding="utf-8")  # another writer, between write and trust
        return written

    monkeypatch.setattr(engine_module, "write_rule_file", write_then_swap)
    sandbox_toggle.set_on(e, ws, True)
    assert local.read_text(encoding="utf-8") == SWAPPED
    assert not e.personal_file_trusted(ws)
    assert e.check_command("rm -rf src", workspace=ws).effect is not Effect.ALLOW


@pytest.mark.parametrize("name", ["permissions.toml", "permissions.local.toml"])
def test_a_folder_in_place_of_a_rule_file_asks_and_is_never_trusted(setup: Setup, name: str) -> None:
    """A repository may hold a folder where a rule file goes (``.echo-desk/permissions.toml/``):
    every check of the workspace's commands raised ``IsADirectoryError``. The file counts as
    present and unreadable: nothing of it applies, it is not trusted, and showing it says why."""
    e, ws = setup.engine, setup.workspace
    setup.write_user_rules(SHOWN)
    (ws / ".echo-desk" / name).mkdir(parents=True)
    e.refresh()
    assert e.check_command("make", workspace=ws).effect is Effect.ALLOW  # the person's own rule still holds
    assert e.check_command("rm -rf src", workspace=ws).effect is not Effect.ALLOW
    assert not e.is_trusted(ws)
    with pytest.raises(ValueError, match="cannot be read"):
        e.trust_snapshot(ws)
