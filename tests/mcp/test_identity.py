"""MCP tool identity (issue 20, item 9): settings, pins and "Always allow" belong to one tool of
one server (its configured name and fingerprint, and the tool's own name), never to whichever
tool ends up with the same provider-safe registry name.

Before the fix, servers named "fmt_tools" and "fmt tools" both offered ``fmt_tools__echo``
depending on start order, and the second inherited the first's "Always allow": the call ran
even with ``--no``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from echo_desk.cli.main import main
from echo_desk.mcp import ServerState
from echo_desk.mcp.config import config_path
from echo_desk.mcp.toolset import tool_identity
from echo_desk.store import paths
from echo_desk.store.settings import SettingsStore, ToolPolicy
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import FAULT_SERVER


def _write_servers(servers: dict[str, dict[str, str]]) -> None:
    document = {"mcpServers": {
        name: {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": env} for name, env in servers.items()
    }}
    config_path().write_text(json.dumps(document), encoding="utf-8")


def _call_echo(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    main(["call", "fmt_tools__echo", "--args", '{"text": "ran"}', "--no"])
    return dict(json.loads(capsys.readouterr().out))


def test_always_allow_is_not_inherited_by_another_server_with_the_same_registry_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "calls.log"
    _write_servers({"fmt_tools": {"FAULT_LOG": str(log)}})
    assert main(["mcp", "approve", "fmt_tools", "--yes"]) == 0
    assert main(["tools", "list", "--json"]) == 0  # first start: pins and claims the tools
    settings = SettingsStore.in_dir(paths.config_dir())
    settings.set_tool("fmt_tools__echo", policy=ToolPolicy.ALWAYS)
    assert _call_echo(capsys)["content"] == "ran"  # "Always allow": --no is not even asked

    # The person removes "fmt_tools"; a server named "fmt tools" takes its registry names.
    _write_servers({"fmt tools": {"FAULT_LOG": str(log)}})
    assert main(["mcp", "approve", "fmt tools", "--yes"]) == 0
    envelope = _call_echo(capsys)
    assert envelope["error_kind"] == "rejected", envelope  # it asked, and --no said no
    assert log.read_text().count("echo ran") == 1  # the second server never ran it
    entry = SettingsStore.in_dir(paths.config_dir()).current.tool("fmt_tools__echo")
    assert entry.policy is None
    assert entry.owner is not None and entry.owner.startswith("mcp:fmt tools@")


def test_a_changed_server_configuration_is_another_identity() -> None:
    first = fault_config("s", env={"A": "1"})
    again = fault_config("s", env={"A": "2"})  # env values are not part of what runs
    other = fault_config("s", env={"B": "1"})  # another variable is
    assert tool_identity(first, "echo") == tool_identity(again, "echo")
    assert tool_identity(first, "echo") != tool_identity(other, "echo")
    assert tool_identity(first, "echo") != tool_identity(first, "echo2")


@pytest.mark.parametrize("order", [("fmt_tools", "fmt tools"), ("fmt tools", "fmt_tools")])
async def test_servers_whose_tools_would_share_names_are_both_refused(make_manager, registry, order) -> None:
    manager = make_manager({name: fault_config(name) for name in order})
    statuses = {s.name: s for s in await manager.start_all()}
    for name in order:
        other = next(n for n in order if n != name)
        assert statuses[name].state is ServerState.ERROR
        assert f"the server “{other}”" in statuses[name].detail and "rename" in statuses[name].detail
    assert not [name for name in registry.tools if name.startswith("fmt")]


async def test_a_lone_server_with_an_unusual_name_still_starts(make_manager, registry) -> None:
    manager = make_manager({"fmt tools": fault_config("fmt tools"), "fmt_tools": fault_config("fmt_tools", enabled=False)})
    status = await manager.start("fmt tools")
    assert status.state is ServerState.CONNECTED, status.detail
    assert "fmt_tools__echo" in registry.tools
