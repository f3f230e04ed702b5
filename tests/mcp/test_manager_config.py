"""Editing servers through the manager (what the settings page does): add, disable, remove, reload."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from echo_desk.mcp import McpEvent, ServerState, apply_import, load_config, preview_import
from echo_desk.mcp.config import ConfigError, config_path, parse_server, update_config
from tests.mcp.helpers import TINY_SERVER, marked_pids, server_pids, wait_until


def tiny(name: str = "t"):
    return parse_server(name, {"command": sys.executable, "args": ["-S", str(TINY_SERVER)]})


async def test_add_disable_remove(make_manager, registry, mark, settings_store) -> None:
    manager = make_manager({})
    events: list[McpEvent] = []
    manager.subscribe(events.append)
    status = await manager.set_server(tiny())
    assert status.state is ServerState.AWAITING_APPROVAL  # a new server needs the person first
    assert "t" in load_config()
    manager.approve_start("t", manager.start_request("t").fingerprint)
    assert (await manager.start("t")).state is ServerState.CONNECTED
    assert "t__echo" in registry.tools and len(server_pids(mark)) == 1  # the server, not its supervisor

    status = await manager.set_enabled("t", False)
    assert status.state is ServerState.DISABLED and status.tools == ()
    assert "t__echo" not in registry.tools
    await wait_until(lambda: not marked_pids(mark), 10, "the disabled server's process to exit")
    assert load_config()["t"].enabled is False

    assert (await manager.set_enabled("t", True)).state is ServerState.CONNECTED  # same fingerprint
    await manager.remove_server("t")
    assert manager.server_names() == [] and "t" not in load_config() and not registry.tools
    await wait_until(lambda: not marked_pids(mark), 10, "the removed server's process to exit")
    assert {e.kind for e in events} >= {"status", "tools"}


async def test_changed_command_restarts_only_after_new_approval(make_manager, registry) -> None:
    manager = make_manager({"t": tiny()})
    assert (await manager.start("t")).state is ServerState.CONNECTED
    status = await manager.set_server(replace(tiny(), args=("-S", "-E", str(TINY_SERVER))))
    assert status.state is ServerState.AWAITING_APPROVAL
    assert not registry.tools


async def test_reload_after_import(make_manager, registry, tmp_path: Path) -> None:
    manager = make_manager({})
    source = tmp_path / "claude_desktop_config.json"
    source.write_text(json.dumps({"mcpServers": {"imported": tiny("imported").to_json()}}))
    apply_import(preview_import(source))
    statuses = await manager.reload()
    assert [(s.name, s.state) for s in statuses] == [("imported", ServerState.AWAITING_APPROVAL)]


# -- mcp.json is shared: the app, `echo-desk mcp import`, `echo-desk gateway install` ----------

async def test_a_server_another_program_added_survives_every_edit_here(make_manager, registry) -> None:
    manager = make_manager({})
    await manager.set_server(tiny("t"))
    update_config(lambda servers: servers.update({"moved": tiny("moved")}))  # what `gateway install` does

    await manager.set_enabled("t", False)
    assert set(load_config()) == {"t", "moved"}
    assert "moved" in manager.server_names()  # taken up by the edit: it waits for its first-start approval
    assert manager.status("moved").state is ServerState.AWAITING_APPROVAL
    await manager.rename_server("t", tiny("renamed"))
    await manager.remove_server("renamed")
    assert set(load_config()) == {"moved"}


async def test_the_manager_follows_a_file_another_program_changed(make_manager, registry) -> None:
    manager = make_manager({})
    assert await manager.reload_if_changed() is None  # nothing changed: nothing re-read
    update_config(lambda servers: servers.update({"off": replace(tiny("off"), enabled=False), "t": tiny("t")}))
    statuses = await manager.reload_if_changed()
    assert statuses is not None
    assert {(s.name, s.state) for s in statuses} == {("off", ServerState.DISABLED), ("t", ServerState.AWAITING_APPROVAL)}
    assert await manager.reload_if_changed() is None
    update_config(lambda servers: servers.pop("t"))
    assert [s.name for s in await manager.reload_if_changed() or []] == ["off"]


async def test_a_file_broken_by_hand_is_never_saved_over(make_manager, registry) -> None:
    manager = make_manager({})
    await manager.set_server(tiny("t"))
    path = config_path()
    path.write_text('{"mcpServers": {"t": ')
    await manager.reload_if_changed()
    assert "not valid JSON" in manager.config_error
    with pytest.raises(ConfigError, match="nothing is saved"):
        await manager.set_enabled("t", False)
    assert path.read_text() == '{"mcpServers": {"t": '
    assert manager.server_names() == ["t"]  # what ran keeps running until the file is fixed
