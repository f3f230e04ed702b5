"""Moving each client's servers behind Echo Desk and back, on real files in a fake home folder."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
import yaml

from echo_desk.mcp.config import config_path, load_config, parse_server, save_config
from echo_desk.mcp.connected import (
    ENTRY_NAME,
    PlanError,
    Records,
    Standing,
    apply_install,
    apply_uninstall,
    detect,
    locations_of,
    plan_install,
    plan_uninstall,
)
from echo_desk.mcp.connected.clients import Location
from echo_desk.tools.secrets import ProcessOnlySecretStore, install_secret_store, secret_store
from tests.mcp.connected.homes import make_home

GATEWAY = ["/opt/echo/bin/echo-desk"]


def _location(client: str, index: int = 0) -> Location:
    return locations_of(client)[index]


def _install(location: Location, **options: object) -> tuple[object, object]:
    plan = plan_install(location, command=GATEWAY, **options)  # type: ignore[arg-type]
    return plan, apply_install(plan)


def _undo(location: Location) -> object:
    record = Records().get(location.id)
    assert record is not None
    plan = plan_uninstall(location, record, others=list(Records().all().values()))
    apply_uninstall(plan)
    return plan


def _outside(text: str, start_marker: str, end_marker: str) -> tuple[str, str]:
    """The text before ``start_marker`` and after ``end_marker`` (what must not change)."""
    return text[: text.index(start_marker)], text[text.rindex(end_marker):]


def test_every_client_is_found_by_its_own_file(home: Path) -> None:
    make_home(home)
    reports = {r.client.name: r for r in detect()}
    assert all(r.found for r in reports.values())
    servers = {name: [loc.inspection.servers for loc in r.locations] for name, r in reports.items()}
    assert servers["claude-code"] == [("airtable", "notion"), ("stripe",), ("shared",)]
    assert servers["vscode"] == [("Perplexity", "fetch", "workspace"), ("time",)]
    assert servers["goose"] == [("filesystem", "remote-tools", "secret-one")]  # "developer" is goose's own
    assert servers["zed"] == [("local-mcp-server", "postgres-context-server")]
    assert reports["claude-code"].locations[2].standing is Standing.READ_ONLY
    assert {r.locations[0].standing for r in reports.values()} == {Standing.NOT_PROTECTED}


def test_nothing_found_in_an_empty_home(home: Path) -> None:
    assert not any(r.found for r in detect())


@pytest.mark.parametrize("client", ["claude-code", "cursor", "vscode", "claude-desktop", "goose", "windsurf", "zed"])
def test_install_then_uninstall_gives_back_the_same_bytes(home: Path, client: str) -> None:
    make_home(home)
    location = _location(client)
    original = location.path.read_bytes()
    os.chmod(location.path, 0o640)
    plan, outcome = _install(location)
    after = location.path.read_text(encoding="utf-8")
    assert after == plan.after  # type: ignore[attr-defined]
    assert stat.S_IMODE(location.path.stat().st_mode) == 0o640  # the mode is kept
    # The client now starts Echo Desk's gateway for its own name, and keeps what could not move.
    section = _servers(location)
    assert section[ENTRY_NAME] == _expected_entry(client, section[ENTRY_NAME])
    for stay in plan.stays:  # type: ignore[attr-defined]
        assert stay.name in section
    for move in plan.moves:  # type: ignore[attr-defined]
        assert move.name not in section
    # The moved servers are in Echo Desk, sandboxed when they are local programs, awaiting approval.
    configured = load_config()
    assert {m.echo_name for m in plan.moves} <= set(configured)  # type: ignore[attr-defined]
    for move in plan.moves:  # type: ignore[attr-defined]
        assert configured[move.echo_name].sandbox is configured[move.echo_name].is_stdio
    # A private backup holds the file as it was.
    backup = Path(outcome.record.backup)  # type: ignore[attr-defined]
    assert backup.read_bytes() == original
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    _undo(location)
    assert location.path.read_bytes() == original
    assert stat.S_IMODE(location.path.stat().st_mode) == 0o640
    assert not set(load_config()) & {m.echo_name for m in plan.moves}  # type: ignore[attr-defined]
    assert Records().get(location.id) is None


def _servers(location: Location) -> dict[str, object]:
    text = location.path.read_text(encoding="utf-8")
    if location.format == "yaml":
        document = yaml.safe_load(text)
    else:
        from echo_desk.mcp.connected import jsonc

        document = jsonc.parse(text, jsonc=location.format == "jsonc").root.value
    for key in location.key_path:
        document = document[key]
    return dict(document)


def _expected_entry(client: str, written: object) -> object:
    args = ["gateway", "--client", client]
    if client == "goose":
        return {**written, "cmd": GATEWAY[0], "args": args, "type": "stdio"}  # type: ignore[dict-item]
    if client == "vscode":
        return {"type": "stdio", "command": GATEWAY[0], "args": args}
    if client == "zed":
        return {"source": "custom", "command": GATEWAY[0], "args": args, "env": {}}
    return {"command": GATEWAY[0], "args": args}


def test_only_the_server_list_changes_in_a_jsonc_file_with_comments(home: Path) -> None:
    where = make_home(home)
    before = where["zed"].read_text()
    _install(_location("zed"))
    after = where["zed"].read_text()
    head_before, tail_before = _outside(before, '"context_servers"', '"vim_mode"')
    head_after, tail_after = _outside(after, '"context_servers"', '"vim_mode"')
    assert (head_before, tail_before) == (head_after, tail_after)  # comments, theme, trailing commas
    assert "// my own server" not in after  # went with the server it described…
    _undo(_location("zed"))
    assert where["zed"].read_text() == before  # …and came back with it


def test_secrets_go_to_the_keyring_and_inputs_wait_for_one(home: Path) -> None:
    make_home(home)
    _install(_location("cursor"))
    github = load_config()["github"]
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": {"keyring": "mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN"}}
    assert secret_store().get("mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN") == "ghp_cursor_token"
    assert "ghp_cursor_token" not in config_path().read_text()
    vscode, _ = _install(_location("vscode"))
    perplexity = next(m for m in vscode.moves if m.name == "Perplexity")  # type: ignore[attr-defined]
    assert perplexity.needs_secrets == ("mcp.Perplexity.env.PERPLEXITY_API_KEY",)


def test_without_a_keyring_secrets_stay_in_the_file_where_they_outlive_echo_desk(home: Path) -> None:
    # A store that forgets at exit would lose the only copy Echo Desk keeps (the backup aside).
    install_secret_store(ProcessOnlySecretStore())
    make_home(home)
    plan, _ = _install(_location("cursor"))
    github = next(m for m in plan.moves if m.name == "github")  # type: ignore[attr-defined]
    assert github.to_keyring == () and github.secrets == {}
    assert github.left_in_file == ("env.GITHUB_PERSONAL_ACCESS_TOKEN",)
    assert load_config()["github"].env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_cursor_token"}
    assert secret_store().get("mcp.github.env.GITHUB_PERSONAL_ACCESS_TOKEN") is None


def test_servers_that_cannot_move_stay_with_the_reason(home: Path) -> None:
    make_home(home)
    reasons = {}
    for client in ("cursor", "vscode", "goose", "zed"):
        for stay in plan_install(_location(client), command=GATEWAY).stays:
            reasons[stay.name] = str(stay.reason)
    assert "${env:EXAMPLE_TOKEN}" in reasons["remote"]
    assert "${workspaceFolder}" in reasons["workspace"]
    assert "env_keys" in reasons["secret-one"]
    assert "Zed extension" in reasons["postgres-context-server"]


def test_the_person_can_leave_a_server_and_turn_the_sandbox_off(home: Path) -> None:
    make_home(home)
    plan, _ = _install(_location("windsurf"), keep=frozenset({"figma"}), sandbox={"github": False})
    assert [m.name for m in plan.moves] == ["github"]  # type: ignore[attr-defined]
    assert "figma" in _servers(_location("windsurf"))
    assert load_config()["github"].sandbox is False


def test_a_name_taken_in_echo_desk_by_another_server_gets_the_clients_name(home: Path) -> None:
    make_home(home)
    save_config({"github": parse_server("github", {"command": "other-github"})})
    plan, _ = _install(_location("windsurf"))
    assert {m.name: m.echo_name for m in plan.moves}["github"] == "github-windsurf"  # type: ignore[attr-defined]
    assert load_config()["github"].command == "other-github"  # Echo Desk's own is untouched
    _undo(_location("windsurf"))
    assert set(load_config()) == {"github"}


def test_a_file_that_cannot_be_parsed_is_refused_and_nothing_is_written(home: Path) -> None:
    where = make_home(home)
    broken = where["cursor"].read_text().replace('"args"', "args", 1)
    where["cursor"].write_text(broken)
    with pytest.raises(PlanError, match="cannot read this file faithfully") as refused:
        plan_install(_location("cursor"), command=GATEWAY)
    assert "line 5, column 7" in str(refused.value.reason)
    assert where["cursor"].read_text() == broken
    assert not config_path().exists()
    report = next(r for r in detect() if r.client.name == "cursor")
    assert report.locations[0].standing is Standing.UNREADABLE
    assert "line 5, column 7" in str(report.locations[0].inspection.problem)


def test_comments_in_a_strict_json_file_are_refused(home: Path) -> None:
    where = make_home(home)
    where["claude-desktop"].write_text('{\n  // no comments in this file\n  "mcpServers": {}\n}\n')
    with pytest.raises(PlanError, match="comments are not allowed"):
        plan_install(_location("claude-desktop"), command=GATEWAY)


def test_yaml_anchors_are_refused(home: Path) -> None:
    where = make_home(home)
    where["goose"].write_text("base: &b {type: stdio, cmd: npx}\nextensions:\n  one: *b\n")
    with pytest.raises(PlanError, match="anchors"):
        plan_install(_location("goose"), command=GATEWAY)


def test_a_file_changed_after_the_diff_was_shown_is_not_written(home: Path) -> None:
    where = make_home(home)
    plan = plan_install(_location("cursor"), command=GATEWAY)
    where["cursor"].write_text(where["cursor"].read_text().replace("ghp_cursor_token", "ghp_new"))
    with pytest.raises(PlanError, match="changed since the diff"):
        apply_install(plan)
    assert "ghp_new" in where["cursor"].read_text()
    assert load_config() == {}  # mcp.json is as it was
    assert Records().get(_location("cursor").id) is None


def test_undo_keeps_edits_made_elsewhere_in_the_file(home: Path) -> None:
    where = make_home(home)
    location = _location("claude-code")
    _install(location)
    # Claude Code rewrites its file all the time (counters, caches): those edits must survive.
    document = json.loads(where["claude-code"].read_text())
    document["numStartups"] = 13
    where["claude-code"].write_text(json.dumps(document, indent=2) + "\n")
    _undo(location)
    restored = json.loads(where["claude-code"].read_text())
    assert restored["numStartups"] == 13
    assert set(restored["mcpServers"]) == {"airtable", "notion"}
    assert restored["mcpServers"]["airtable"]["env"] == {"AIRTABLE_API_KEY": "YOUR_KEY"}


def test_undo_refuses_when_echo_desks_entry_was_edited_and_shows_the_diff(home: Path) -> None:
    where = make_home(home)
    location = _location("cursor")
    _install(location)
    edited = where["cursor"].read_text().replace('"cursor"]', '"cursor", "--verbose"]')
    where["cursor"].write_text(edited)
    record = Records().get(location.id)
    assert record is not None
    with pytest.raises(PlanError, match="entry in the file was changed") as refused:
        plan_uninstall(location, record)
    assert '+      "args": ["gateway", "--client", "cursor", "--verbose"]' in refused.value.diff
    assert where["cursor"].read_text() == edited


def test_undo_refuses_to_overwrite_a_server_added_again_with_other_settings(home: Path) -> None:
    where = make_home(home)
    location = _location("claude-desktop")
    _install(location)
    document = json.loads(where["claude-desktop"].read_text())
    document["mcpServers"]["filesystem"] = {"command": "my-own-filesystem"}
    where["claude-desktop"].write_text(json.dumps(document, indent=2))
    record = Records().get(location.id)
    assert record is not None
    with pytest.raises(PlanError, match="“filesystem” again"):
        plan_uninstall(location, record)


def test_a_server_added_beside_echo_desk_survives_the_undo(home: Path) -> None:
    where = make_home(home)
    location = _location("cursor")
    _install(location)
    document = json.loads(where["cursor"].read_text())
    document["mcpServers"]["new-one"] = {"command": "new"}
    where["cursor"].write_text(json.dumps(document, indent=2))
    _undo(location)
    assert set(json.loads(where["cursor"].read_text())["mcpServers"]) == {"remote", "new-one", "github"}


def test_a_symlinked_config_is_written_through_and_stays_a_link(home: Path, tmp_path: Path) -> None:
    where = make_home(home)
    dotfiles = tmp_path / "dotfiles" / "mcp.json"
    dotfiles.parent.mkdir()
    where["cursor"].replace(dotfiles)
    where["cursor"].symlink_to(dotfiles)
    _install(_location("cursor"))
    assert where["cursor"].is_symlink()
    assert ENTRY_NAME in json.loads(dotfiles.read_text())["mcpServers"]


def test_a_client_without_a_file_gets_one_and_undo_removes_it(home: Path) -> None:
    (home / ".cursor").mkdir()
    location = _location("cursor")
    plan, _ = _install(location)
    assert not plan.moves  # type: ignore[attr-defined]
    assert json.loads(location.path.read_text())["mcpServers"][ENTRY_NAME]["args"][-1] == "cursor"
    undo = _undo(location)
    assert undo.delete_file  # type: ignore[attr-defined]
    assert not location.path.exists()


def test_a_protected_client_reads_as_protected_and_a_second_install_is_refused(home: Path) -> None:
    make_home(home)
    _install(_location("claude-desktop"))
    report = next(r for r in detect() if r.client.name == "claude-desktop")
    assert report.locations[0].standing is Standing.PROTECTED
    assert report.locations[0].record is not None
    with pytest.raises(PlanError, match="already behind Echo Desk"):
        plan_install(_location("claude-desktop"), command=GATEWAY)


def test_the_shared_project_file_is_never_rewritten(home: Path) -> None:
    make_home(home)
    shared = _location("claude-code", 2)
    assert shared.read_only
    with pytest.raises(PlanError, match="shared with others"):
        plan_install(shared, command=GATEWAY)


@pytest.mark.parametrize("own", ["mcp.json", "settings.json"])
def test_a_config_linked_into_echo_desks_own_folder_is_never_rewritten(home: Path, own: str) -> None:
    """A client's path that leads into Echo Desk's own folders (a link planted there) would have
    an install of "Cursor" rewrite Echo Desk's own server list or settings under a diff naming
    ~/.cursor/mcp.json. It is read as unreadable and never planned, installed or undone."""
    where = make_home(home)
    save_config({"echo": parse_server("echo", {"command": "echo-server"})})
    target = config_path() if own == "mcp.json" else config_path().with_name(own)
    if not target.exists():
        target.write_text('{"mcpServers": {}}\n')
    before = target.read_bytes()
    where["cursor"].unlink()
    where["cursor"].symlink_to(target)
    location = _location("cursor")
    with pytest.raises(PlanError, match="Echo Desk's own"):
        plan_install(location, command=GATEWAY)
    report = next(r for r in detect() if r.client.name == "cursor")
    assert report.locations[0].standing is Standing.UNREADABLE
    assert target.read_bytes() == before


def test_a_linked_config_names_where_it_leads_in_the_diff(home: Path, tmp_path: Path) -> None:
    where = make_home(home)
    dotfiles = tmp_path / "dotfiles" / "mcp.json"
    dotfiles.parent.mkdir()
    where["cursor"].replace(dotfiles)
    where["cursor"].symlink_to(dotfiles)
    plan = plan_install(_location("cursor"), command=GATEWAY)
    assert f"{where['cursor']} → {dotfiles.resolve()} (now)" in plan.diff


def test_a_config_hard_linked_to_echo_desks_own_file_is_never_rewritten(home: Path) -> None:
    where = make_home(home)
    save_config({"echo": parse_server("echo", {"command": "echo-server"})})
    before = config_path().read_bytes()
    where["cursor"].unlink()
    os.link(config_path(), where["cursor"])
    with pytest.raises(PlanError, match="hard link to Echo Desk's own file"):
        plan_install(_location("cursor"), command=GATEWAY)
    assert config_path().read_bytes() == before


def test_a_link_swapped_after_the_diff_into_echo_desks_folder_is_not_written(home: Path, tmp_path: Path) -> None:
    where = make_home(home)
    plan = plan_install(_location("cursor"), command=GATEWAY)
    save_config({"echo": parse_server("echo", {"command": "echo-server"})})
    own = config_path().with_name("look-alike.json")
    own.write_bytes(where["cursor"].read_bytes())  # the same bytes the diff was made from
    where["cursor"].unlink()
    where["cursor"].symlink_to(own)
    with pytest.raises(PlanError, match="Echo Desk's own"):
        apply_install(plan)
    assert own.read_bytes() == plan.before.encode()


@pytest.mark.parametrize("client", ["cursor", "claude-code"])
def test_a_config_that_is_not_a_regular_file_is_unreadable_at_once(home: Path, client: str) -> None:
    """A named pipe (or a device) at a client's path blocked the read for ever: the Connected
    apps page and 'gateway install' hung. It is reported as unreadable instead."""
    import threading

    where = make_home(home)
    where[client].unlink()
    os.mkfifo(where[client])
    found: list[object] = []
    worker = threading.Thread(target=lambda: found.append(next(
        r for r in detect() if r.client.name == client).locations[0].inspection), daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # unblock the reader so the test run can end
        with open(where[client], "wb"):
            pass
        worker.join(timeout=10)
        pytest.fail("reading a named pipe blocked")
    assert found[0].problem  # type: ignore[attr-defined]


def test_a_hard_linked_config_is_compared_with_echo_desks_files_once_until_it_changes(
        home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Detection runs on every change the page notices: a hard-linked client file (a dotfiles
    # manager's) must not walk Echo Desk's folders each time, yet a link made later is still seen.
    where = make_home(home)
    save_config({"echo": parse_server("echo", {"command": "echo-server"})})
    os.link(where["cursor"], tmp_path / "dotfiles-copy.json")  # linked, but not to an own file
    walks: list[str] = []
    real_walk = os.walk
    monkeypatch.setattr(os, "walk", lambda top, *a, **k: (walks.append(str(top)), real_walk(top, *a, **k))[1])
    plan_install(_location("cursor"), command=GATEWAY)
    first = len(walks)
    assert first > 0
    plan_install(_location("cursor"), command=GATEWAY)
    assert len(walks) == first
    (tmp_path / "dotfiles-copy.json").unlink()
    os.link(where["cursor"], config_path().with_name("kept.json"))  # now one of Echo Desk's own
    with pytest.raises(PlanError, match="hard link to Echo Desk's own file"):
        plan_install(_location("cursor"), command=GATEWAY)
