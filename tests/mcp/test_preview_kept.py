"""An MCP tool's preview (server and tool, never the arguments) is made once per server
command line and language, and is the same as a freshly made one."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from echo_desk.i18n import current_language, set_language
from echo_desk.mcp.tool import make_tool
from echo_desk.tools import RiskLevel, ToolExecutionContext


class _Manager:
    def __init__(self) -> None:
        self.target = "node server.js stdio"

    def server_target(self, name: str) -> str:
        return self.target


@pytest.fixture
def english() -> Iterator[None]:
    before = current_language()
    set_language("en")
    yield
    set_language(before)


def _tool(manager: Any) -> Any:
    return make_tool(manager, registry_name="srv__echo", server="srv", original_name="echo", description="Echo.",
                     parameters={"type": "object"}, title="", annotations={}, definition_hash="h",
                     hidden_characters=(), risk=RiskLevel.EXEC, timeout=60.0)


async def test_the_preview_is_kept_until_the_server_or_the_language_changes(english: None) -> None:
    manager = _Manager()
    tool = _tool(manager)
    ctx = ToolExecutionContext(call_id="c", tool_name="srv__echo", scope_id="s")
    first = await tool.preview({"message": "a"}, ctx)
    assert await tool.preview({"message": "b"}, ctx) is first
    assert first.targets[0].value == "node server.js stdio"
    assert first.summary == "Call “echo” on the MCP server “srv”"

    manager.target = "node other.js stdio"
    moved = await tool.preview({"message": "a"}, ctx)
    assert moved.targets[0].value == "node other.js stdio"

    set_language("zh_CN")
    translated = await tool.preview({"message": "a"}, ctx)
    assert translated is not moved and translated.summary != moved.summary
    fresh = await _tool(manager).preview({"message": "a"}, ctx)  # made anew: the same
    assert (translated.targets, translated.summary) == (fresh.targets, fresh.summary)
    assert (translated.summary, translated.targets[0].detail) == (fresh.summary, fresh.targets[0].detail)


async def test_a_call_goes_to_the_server_shown_or_nowhere() -> None:
    # The dialog named the server's command line; the server was reconfigured while it was
    # open: the call is not sent to a command the person did not see for it.
    manager = _Manager()
    sent: list[str] = []
    manager.submit_call = lambda *a, **k: sent.append("sent")  # type: ignore[attr-defined]
    tool = _tool(manager)
    ctx = ToolExecutionContext(call_id="c", tool_name="srv__echo", scope_id="s")
    ctx.preview = await tool.preview({"message": "a"}, ctx)
    manager.target = "node other.js stdio"
    result = await tool.execute({"message": "a"}, ctx)
    assert not result.success and "node other.js stdio" in result.error and "changed since" in result.error
    assert sent == []
