"""Against the reference server-everything (npm, TypeScript SDK) over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import io
import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from echo_desk.cli.terminal_host import TerminalHost
from echo_desk.mcp import McpEvent, ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.tools import Answer, CancelledByUser, ErrorKind, NullToolHost, Question, ToolExecutionContext
from tests.mcp.conftest import everything_config, needs_everything
from tests.mcp.helpers import EVERYTHING, MARK, get_tool, wait_until

pytestmark = needs_everything


class AnsweringHost(NullToolHost):
    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.questions: list[Question] = []

    async def ask(self, question: Question) -> Answer:
        self.questions.append(question)
        return self.answer


def ctx(name: str, host: Any = None) -> ToolExecutionContext:
    return ToolExecutionContext(call_id=f"call-{name}", tool_name=name, scope_id="test", host=host or NullToolHost())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(transport: str, path: str) -> Iterator[str]:
    """server-everything's HTTP-based transport on a free loopback port."""
    port = _free_port()
    proc = subprocess.Popen(
        ["node", str(EVERYTHING), transport],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    ready = threading.Event()

    def watch() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "listening" in line.lower() or "running on port" in line.lower():
                ready.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        if not ready.wait(20):
            pytest.fail("server-everything did not start its HTTP transport")
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture(scope="module")
def http_everything() -> Iterator[str]:
    yield from _serve("streamableHttp", "/mcp")


@pytest.fixture(scope="module")
def sse_everything() -> Iterator[str]:
    yield from _serve("sse", "/sse")


@pytest.fixture(params=["stdio", "http", "sse"])
def ev_config(request: pytest.FixtureRequest) -> Any:
    if request.param == "stdio":
        return everything_config(timeout=20)
    url = request.getfixturevalue(f"{request.param}_everything")
    return parse_server("ev", {"type": request.param, "url": url, "timeout": 20})


async def test_lists_and_calls_tools(make_manager, registry, ev_config) -> None:
    manager = make_manager({"ev": ev_config})
    status = await manager.start("ev")
    assert status.state is ServerState.CONNECTED, status.detail
    assert status.protocol_version  # negotiated (the TS SDK answers with a 2025 version)
    names = set(registry.tools)
    assert {"ev__echo", "ev__get-sum", "ev__get-structured-content", "ev__trigger-long-running-operation"} <= names
    assert all(source == "mcp:ev" for _tool, source in registry.tools.values())
    echo = get_tool(registry, "ev__echo")
    assert echo.original_name == "echo" and echo.risk_level.value == "exec"
    # readOnlyHint is shown, never lowers the risk by itself
    info = next(t for t in status.tools if t.registry_name == "ev__echo")
    assert info.annotations.get("readOnlyHint") is True
    result = await echo.execute({"message": "hello"}, ctx("echo"))
    assert result.success and result.output == "Echo: hello"
    total = await get_tool(registry, "ev__get-sum").execute({"a": 2, "b": 40}, ctx("sum"))
    assert total.success and "42" in total.output
    structured = await get_tool(registry, "ev__get-structured-content").execute({"location": "New York"}, ctx("s"))
    assert structured.success
    assert set(structured.metadata["structured_content"]) >= {"temperature", "conditions", "humidity"}


async def test_elicitation_accept_applies_defaults(make_manager, registry) -> None:
    host = AnsweringHost(Answer(action="accept", values={"name": "Ada", "check": True}))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    tool = get_tool(registry, "ev__trigger-elicitation-request")
    result = await tool.execute({}, ctx("elicit", host))
    assert result.success, result.error
    question = host.questions[0]
    assert question.schema is not None and "name" in question.schema["properties"]
    assert "MCP server ev" in question.asked_by
    assert "Ada" in result.output
    assert "It was a dark and stormy night." in result.output  # the schema's default was applied


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_elicitation_decline_and_cancel_reach_the_server(make_manager, registry, action) -> None:
    host = AnsweringHost(Answer(action=action))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    result = await get_tool(registry, "ev__trigger-elicitation-request").execute({}, ctx("elicit", host))
    assert result.success
    assert f'"action": "{action}"' in result.output


async def test_cancel_long_running_call_frees_the_caller_at_once(make_manager, registry) -> None:
    manager = make_manager({"ev": everything_config(timeout=60)})
    await manager.start("ev")
    tool = get_tool(registry, "ev__trigger-long-running-operation")
    call_ctx = ctx("long")
    task = asyncio.ensure_future(tool.execute({"duration": 30, "steps": 30}, call_ctx))
    await asyncio.sleep(0.3)  # let the request reach the server (no assertion depends on it)
    loop = asyncio.get_running_loop()
    started = loop.time()
    call_ctx.cancel_event.set()
    with pytest.raises(CancelledByUser):
        await task
    assert loop.time() - started < 1.0
    # The session is still usable after the cancel.
    after = await get_tool(registry, "ev__echo").execute({"message": "still here"}, ctx("echo"))
    assert after.success and after.output == "Echo: still here"


async def test_list_changed_notification_triggers_a_relist(make_manager) -> None:
    # server-everything registers its client-capability tools after initialization and
    # announces them with notifications/tools/list_changed.
    manager = make_manager({"ev": everything_config()})
    seen: list[McpEvent] = []
    manager.subscribe(seen.append)
    await manager.start("ev")
    await wait_until(lambda: any(e.kind == "list_changed" for e in seen), 10, "a list_changed event")
    status = manager.status("ev")
    assert status.state is ServerState.CONNECTED
    assert any(t.original_name == "trigger-elicitation-request" for t in status.tools)


async def test_env_values_reach_the_server_and_marks_its_process(make_manager, registry, mark) -> None:
    from echo_desk.tools.secrets import secret_store

    secret_store().set("ev.secret", "s3cr3t")
    cfg = everything_config(env={"PLAIN": "visible", "TOKEN": {"keyring": "ev.secret"}})
    manager = make_manager({"ev": cfg})
    request = manager.start_request("ev")
    assert request is None  # approved by the fixture
    await manager.start("ev")
    result = await get_tool(registry, "ev__get-env").execute({}, ctx("env"))
    assert '"TOKEN": "s3cr3t"' in result.output and '"PLAIN": "visible"' in result.output
    assert result.output.count(MARK) == 1


async def test_tool_errors_map_to_error_kinds(make_manager, registry) -> None:
    manager = make_manager({"ev": everything_config(timeout=1)})
    await manager.start("ev")
    slow = await get_tool(registry, "ev__trigger-long-running-operation").execute({"duration": 10, "steps": 2}, ctx("x"))
    assert not slow.success and slow.error_kind is ErrorKind.TIMEOUT
    bad = await get_tool(registry, "ev__get-sum").execute({"a": "not a number"}, ctx("y"))
    assert not bad.success and bad.error_kind in (ErrorKind.BUSINESS, ErrorKind.DEPENDENCY)


async def test_http_server_going_away_is_a_dependency_error(make_manager, registry) -> None:
    servers = _serve("streamableHttp", "/mcp")
    url = next(servers)
    manager = make_manager({"ev": parse_server("ev", {"type": "http", "url": url, "timeout": 10})})
    assert (await manager.start("ev")).state is ServerState.CONNECTED
    servers.close()  # stops the HTTP server process
    result = await get_tool(registry, "ev__echo").execute({"message": "anyone?"}, ctx("echo"))
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    status = manager.status("ev")
    assert status.state is ServerState.ERROR, status


async def test_several_choices_typed_in_the_terminal_reach_the_server_as_lists(make_manager, registry) -> None:
    """server-everything's form has two fields of several choices (``items.enum`` and titled
    ``items.anyOf``, one to three of each): asked in the terminal, each goes back as a JSON list
    of the chosen values. Before, each was asked as a text and went back as one string."""
    typed = {"name": "Ada", "untitledMultipleSelectEnum": "2, Drums", "titledMultipleSelectEnum": "fish-3,1"}
    fields = ["name", "check", "firstLine", "email", "homepage", "birthdate", "integer", "number",
              "untitledSingleSelectEnum", "untitledMultipleSelectEnum", "titledSingleSelectEnum",
              "titledMultipleSelectEnum", "legacyTitledEnum"]
    host = TerminalHost(inp=_Terminal("".join(typed.get(name, "") + "\n" for name in fields)), out=io.StringIO())
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    result = await get_tool(registry, "ev__trigger-elicitation-request").execute({}, ctx("elicit", host))
    assert result.success, result.error
    raw = json.loads(result.output.split("Raw result: ", 1)[1])
    assert raw["action"] == "accept"
    assert raw["content"]["untitledMultipleSelectEnum"] == ["Piano", "Drums"]
    assert raw["content"]["titledMultipleSelectEnum"] == ["fish-1", "fish-3"]  # values, in the choices' order
    assert raw["content"]["name"] == "Ada"
    shown = host.out.getvalue()
    assert "     3. [ ] fish-3 = Trout" in shown and "     1. [x] Guitar" in shown


async def test_several_choices_kept_as_the_server_gave_them_go_back_as_its_default_lists(make_manager, registry) -> None:
    host = AnsweringHost(Answer(action="accept", values={"name": "Ada"}))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    result = await get_tool(registry, "ev__trigger-elicitation-request").execute({}, ctx("elicit", host))
    assert result.success, result.error
    props = host.questions[0].schema["properties"]
    assert props["titledMultipleSelectEnum"]["items"] == {
        "enum": ["fish-1", "fish-2", "fish-3"], "enumNames": ["Tuna", "Salmon", "Trout"]}
    raw = json.loads(result.output.split("Raw result: ", 1)[1])
    assert raw["content"]["untitledMultipleSelectEnum"] == ["Guitar"]
    assert raw["content"]["titledMultipleSelectEnum"] == ["fish-1"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True
