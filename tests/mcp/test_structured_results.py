"""A tool that declares an outputSchema: its structuredContent is checked, and a result that does
not match is an error the model sees as such (error_kind dependency), not a success or a crash."""

from __future__ import annotations

import sys

import pytest

from echo_desk.mcp.config import parse_server
from echo_desk.mcp.status import ServerState
from echo_desk.tools import ErrorKind, ToolExecutionContext
from tests.mcp.helpers import TINY_SERVER, get_tool


def _forecast_server(mode: str):  # type: ignore[no-untyped-def]
    return parse_server("w", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                              "env": {"TINY_STRUCTURED": mode}})


def _ctx() -> ToolExecutionContext:
    return ToolExecutionContext(call_id="c", tool_name="w__forecast", scope_id="test")


async def test_a_matching_structured_result_passes(make_manager, registry) -> None:
    manager = make_manager({"w": _forecast_server("good")})
    await manager.start_all()
    tool = get_tool(registry, "w__forecast")
    assert tool.output_schema["required"] == ["city", "celsius"]
    result = await tool.execute({}, _ctx())
    assert result.success and result.metadata["structured_content"] == {"city": "Oslo", "celsius": 21}


async def test_a_result_the_quick_check_accepts_skips_the_sdks_validator(make_manager, registry, monkeypatch) -> None:
    """The SDK's check (~0.1 ms of jsonschema a call) runs only for what the quick check, compiled
    once from the same schema, is not sure of (``echo_desk.mcp.output_check``)."""
    from mcp.client.session import ClientSession

    checked: list[str] = []
    sdk_check = ClientSession.validate_tool_result

    async def counted(self, name, result):  # type: ignore[no-untyped-def]
        checked.append(name)
        await sdk_check(self, name, result)

    monkeypatch.setattr(ClientSession, "validate_tool_result", counted)
    manager = make_manager({"w": _forecast_server("good")})
    await manager.start_all()
    for _ in range(3):
        result = await get_tool(registry, "w__forecast").execute({}, _ctx())
        assert result.success and result.metadata["structured_content"] == {"city": "Oslo", "celsius": 21}
    assert checked == []


@pytest.mark.parametrize("mode", ["bad", "missing"])
async def test_a_structured_result_that_does_not_match_is_a_dependency_error(make_manager, registry, mode) -> None:
    manager = make_manager({"w": _forecast_server(mode)})
    await manager.start_all()
    result = await get_tool(registry, "w__forecast").execute({}, _ctx())
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert "does not match the tool's declared output schema" in result.error
    assert result.metadata["invalid_structured_content"] is True
    # The server stays usable: its other tools still answer.
    echo = await get_tool(registry, "w__echo").execute({"text": "still here"}, _ctx())
    assert echo.success and echo.output == "still here"


async def test_an_oversized_output_schema_keeps_the_server_out(make_manager, registry) -> None:
    manager = make_manager({"w": _forecast_server("huge")})
    [status] = await manager.start_all()
    assert status.state is ServerState.ERROR
    assert any("forecast" in p and "output schema" in p for p in status.problems)
    assert registry.get("w__echo") is None  # all or nothing
