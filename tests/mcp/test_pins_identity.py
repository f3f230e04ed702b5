"""Pins follow what a server runs and the tool's own name, not the server's name (issue 30).

Before: a pin was kept per registry name (``server__tool``) and belonged to the server's name,
so renaming a server in Echo Desk dropped every pin and its tools were trusted afresh, changed
or not. Now renaming keeps the pins: an unchanged tool stays usable, a changed one is blocked.
"""

from __future__ import annotations

from dataclasses import replace

from echo_desk.mcp import ServerState
from echo_desk.mcp.toolset import pin_key, tool_identity
from echo_desk.store.settings import ToolSettings
from echo_desk.tools import ToolExecutionContext
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import get_tool, wait_until


def ctx(name: str) -> ToolExecutionContext:
    return ToolExecutionContext(call_id=f"call-{name}", tool_name=name, scope_id="test")


async def _rename(manager, old: str, new: str):  # type: ignore[no-untyped-def]
    cfg = manager.config_of(old)
    renamed = replace(cfg, name=new)
    await manager.rename_server(old, renamed)
    request = manager.start_request(new)
    if request is not None:  # the start approval is per name: approve the same command line again
        assert manager.approve_start(new, request.fingerprint)
        await manager.start(new)
    return next(s for s in manager.statuses() if s.name == new)


async def test_renaming_a_server_keeps_its_pins(make_manager, registry, settings_store) -> None:
    manager = make_manager({"a": fault_config("a")})
    assert (await manager.start("a")).state is ServerState.CONNECTED
    key = pin_key(manager.config_of("a"), "echo")
    pinned = settings_store.current.mcp_pins[key]
    status = await _rename(manager, "a", "b")
    assert status.state is ServerState.CONNECTED, status.detail
    assert get_tool(registry, "b__echo").is_ready()
    assert pin_key(manager.config_of("b"), "echo") == key  # the same pin, under the new name
    assert settings_store.current.mcp_pins[key] == pinned
    assert registry.get("a__echo") is None


async def test_a_tool_that_differs_from_its_pin_is_blocked_after_a_rename(make_manager, registry, settings_store) -> None:
    manager = make_manager({"a": fault_config("a")})
    assert (await manager.start("a")).state is ServerState.CONNECTED
    # The server changes "echo" live and the person approves the new definition…
    await get_tool(registry, "a__mutate").execute({}, ctx("mutate"))
    def blocked():  # type: ignore[no-untyped-def]
        entry = registry.get("a__echo")  # briefly absent while the server's tools are listed again
        return entry is not None and not entry.tool.is_ready()

    await wait_until(blocked, 10, "the block")
    assert await manager.approve_tool_change("a__echo")
    # …then the server is renamed; its new process offers the old "echo" again: not what was approved.
    await _rename(manager, "a", "b")
    echo = get_tool(registry, "b__echo")
    assert not echo.is_ready()
    assert "changed" in echo.readiness_detail() and "description" in echo.readiness_detail()
    refused = await echo.execute({"text": "x"}, ctx("echo"))
    assert not refused.success


async def test_a_changed_command_line_is_another_server_with_pins_of_its_own(make_manager, settings_store) -> None:
    first = fault_config("a", env={"A": "1"})
    other = fault_config("a", env={"B": "1"})  # another variable: another program to approve
    assert pin_key(first, "echo") != pin_key(other, "echo")
    assert pin_key(first, "echo") == pin_key(replace(first, name="renamed"), "echo")
    assert pin_key(first, "echo") != pin_key(first, "echo2")


async def test_a_pin_kept_per_registry_name_by_an_older_version_is_carried_over(
    make_manager, registry, settings_store
) -> None:
    manager = make_manager({"a": fault_config("a")})
    assert (await manager.start("a")).state is ServerState.CONNECTED
    cfg = manager.config_of("a")
    key = pin_key(cfg, "echo")
    pinned = settings_store.current.mcp_pins[key]
    await manager.stop("a")

    def as_an_older_version_left_it(s):  # type: ignore[no-untyped-def]
        s.mcp_pins = {}
        s.tools = {**s.tools, "a__echo": ToolSettings(pinned_hash=pinned, owner=tool_identity(cfg, "echo"))}

    settings_store.update(as_an_older_version_left_it)
    assert (await manager.start("a")).state is ServerState.CONNECTED
    assert get_tool(registry, "a__echo").is_ready()
    assert settings_store.current.mcp_pins[key] == pinned
    assert settings_store.current.tool("a__echo").pinned_hash is None  # one place for a pin
