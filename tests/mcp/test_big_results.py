"""A server's huge answer (issue 20, item 7): capped before anything looks at it, the whole call
under the timeout, and another server's calls do not wait for it.

Before the fix a 50 MB answer took ~100 s and 625 MB to count its hidden characters, after the
timeout, on the loop every server shares (another server's call waited 25 s).
"""

from __future__ import annotations

import asyncio
import time
import tracemalloc

import anyio
import mcp_types as types

from echo_desk.mcp import ServerState
from echo_desk.mcp.results import MAX_OUTPUT_CHARS, convert_result
from echo_desk.tools import ErrorKind, ToolExecutionContext
from tests.mcp.conftest import fault_config
from tests.mcp.helpers import get_tool

HUGE = 50_000_000


def ctx(name: str) -> ToolExecutionContext:
    return ToolExecutionContext(call_id=f"call-{name}", tool_name=name, scope_id="test")


def test_a_huge_result_is_capped_before_it_is_examined() -> None:
    kept_part = "a\u200bb" * 10  # 10 hidden characters inside what the model sees
    text = kept_part + "x" * HUGE + "\u200b" * 1000  # 1000 more far past the cap
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structured_content={"result": text}
    )
    tracemalloc.start()
    try:
        converted = convert_result(result, server="s", tool="t")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert converted.success
    assert converted.output.startswith(kept_part)
    assert len(converted.output) < MAX_OUTPUT_CHARS + 100
    assert converted.metadata["truncated_from_chars"] == len(text)
    assert converted.metadata["hidden_characters"] == 10
    assert "structured_content" not in converted.metadata  # 50 MB does not ride along to the UI
    # Only the structured content's JSON (one string the size of the answer) is ever made;
    # the per-character list of the old code cost ~8 bytes per character on top.
    assert peak < 1.2 * HUGE, f"converting allocated {peak / 1e6:.0f} MB"


def test_a_small_result_keeps_everything() -> None:
    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="one"), types.TextContent(type="text", text="t\u200bwo")],
        structured_content={"n": 1},
    )
    converted = convert_result(result, server="s", tool="t")
    assert converted.output == "one\nt\u200bwo"
    assert converted.metadata["hidden_characters"] == 1
    assert converted.metadata["structured_content"] == {"n": 1}
    assert "truncated_from_chars" not in converted.metadata


async def test_a_huge_answer_stays_within_the_timeout_and_other_servers_keep_answering(
    make_manager, registry
) -> None:
    timeout = 4.0
    manager = make_manager({"big": fault_config("big", timeout=timeout), "other": fault_config("other")})
    statuses = await manager.start_all()
    assert all(s.state is ServerState.CONNECTED for s in statuses), [(s.name, s.detail) for s in statuses]
    echo = get_tool(registry, "other__echo")
    assert (await echo.execute({"text": "warm"}, ctx("echo"))).output == "warm"
    big_done = asyncio.Event()
    slowest = 0.0
    answered = 0

    async def keep_calling_the_other_server() -> None:
        nonlocal slowest, answered
        while not big_done.is_set():
            start = time.monotonic()
            result = await echo.execute({"text": "ping"}, ctx("echo"))
            assert result.output == "ping"
            slowest = max(slowest, time.monotonic() - start)
            answered += 1
            await asyncio.sleep(0.02)

    other = asyncio.create_task(keep_calling_the_other_server())
    start = time.monotonic()
    with anyio.fail_after(timeout + 3):  # the call's own timeout, plus the cancel on the wire
        result = await get_tool(registry, "big__big").execute({"chars": 5_000_000, "hidden_every": 1000}, ctx("big"))
    elapsed = time.monotonic() - start
    big_done.set()
    await other
    if result.success:
        assert result.metadata["truncated_from_chars"] >= 5_000_000
        assert result.metadata["hidden_characters"] == MAX_OUTPUT_CHARS // 1000
    else:  # a slow machine: then it is a timeout, reported as one, on time
        assert result.error_kind is ErrorKind.TIMEOUT, result.error
    assert elapsed < timeout + 3
    assert answered >= 1 and slowest < 2.0, f"the other server's call waited {slowest:.1f} s"
