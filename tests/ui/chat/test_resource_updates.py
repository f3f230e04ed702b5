"""A server that says "this resource changed" as often as it likes: the attached chip is read
again one read at a time, and ends with the newest content (against the in-repo fault server)."""

from __future__ import annotations

from echo_desk.mcp import McpManager
from echo_desk.mcp.resources import ResourceInfo
from echo_desk.tools import ToolExecutionContext
from tests.mcp.conftest import fault_config
from tests.ui.conftest import until


def test_a_flood_of_updates_rereads_one_at_a_time_and_ends_on_the_last(window, qloop, runtime) -> None:
    manager = McpManager(runtime.settings, registry=runtime.registry, servers={"f": fault_config()})
    request = manager.start_request("f")
    assert request is not None and manager.approve_start("f", request.fingerprint)
    runtime.mcp = manager
    reads = at_once = most_at_once = 0
    reading = manager.read_resource

    async def counted(name: str, uri: str, info: ResourceInfo | None = None):
        nonlocal reads, at_once, most_at_once
        reads += 1
        at_once += 1
        most_at_once = max(most_at_once, at_once)
        try:
            return await reading(name, uri, info)
        finally:
            at_once -= 1

    manager.read_resource = counted  # type: ignore[method-assign]

    async def scenario() -> None:
        await manager.start_all()
        attached = await manager.read_resource("f", "fault://note")
        window.resources.attach(attached, keep_updated=True)
        chip = window.attachment_tray.resource_chips[0]
        await until(lambda: chip.unsubscribe is not None, 10)
        touch = runtime.registry.get("f__touch").tool
        done = await touch.execute({"n": 300}, ToolExecutionContext(call_id="c", tool_name=touch.name, scope_id="t"))
        assert done.success and done.output == "note 300"
        await until(lambda: "note 300" in chip.attached.part.text, 20)
        await until(lambda: at_once == 0, 20)

    try:
        qloop.run_until_complete(scenario())
        assert most_at_once == 1
        assert reads < 300, "updates that came during a read are answered by one read after it"
    finally:
        qloop.run_until_complete(manager.aclose())
