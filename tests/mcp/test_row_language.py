"""What a server's row and a call's error say of a failure is in the person's language: an
exception's English ("command not found", "Connection closed", a reader's report) is said in a
sentence of Echo Desk's own, and only the server's or the system's own words are quoted, labelled.
Against real stdio servers (``tiny_server.py``, a command that does not exist)."""

from __future__ import annotations

import re
import sys

import pytest

from echo_desk.i18n import set_language, shown
from echo_desk.mcp import ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.tools import ErrorKind
from tests.mcp.helpers import TINY_SERVER, get_tool, wait_until
from tests.mcp.test_everything import ctx

MISSING = "/nonexistent/echo-desk-no-such-server"




def _tiny(**env: str) -> object:
    return parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)], "env": env, "timeout": 1})


async def test_a_command_that_does_not_exist_is_said_in_chinese(make_manager, registry, chinese) -> None:
    # Before: the row and the call said "command not found: /nonexistent/…" in any language.
    manager = make_manager({"m": parse_server("m", {"command": MISSING})})
    status = await manager.start("m")
    assert status.state is ServerState.ERROR
    assert status.detail == f"找不到命令：{MISSING}", status.detail
    set_language("en")
    assert shown(status.detail) == f"command not found: {MISSING}"  # and again after a switch
    set_language("zh_CN")
    result = await manager.call_tool("m", "m__x", "x", {}, ctx("x"))
    assert not result.success and result.error_kind is ErrorKind.DEPENDENCY
    assert shown(result.error) == f"MCP 服务器“m”不可用：找不到命令：{MISSING}", shown(result.error)


async def test_a_listing_that_fails_after_a_change_is_said_in_chinese(make_manager, registry, chinese) -> None:
    # Before: "listing tools after a change failed: the server did not answer in time".
    manager = make_manager({"t": _tiny(TINY_STUCK_LIST="1")})
    assert (await manager.start("t")).state is ServerState.CONNECTED
    assert (await get_tool(registry, "t__announce").execute({}, ctx("announce"))).success
    status = await wait_until(lambda: (s := manager.status("t")).state is ServerState.ERROR and s, 10,
                              "the stuck listing to end")
    assert shown(status.detail) == "工具变化后重新列出工具失败：服务器没有及时回应", shown(status.detail)


async def test_messages_that_cannot_be_read_are_said_in_chinese_with_the_readers_words_labelled(
        make_manager, chinese) -> None:
    manager = make_manager({"t": _tiny(TINY_DEEP="list")})
    manager.handshake_timeout = 2
    status = await manager.start("t")
    assert status.state is ServerState.ERROR
    text = shown(status.detail)
    assert text.startswith("服务器没有及时回应；它还发来了 1 条 Echo Desk 无法读取的消息（技术细节："), text
    assert "recursion limit" in text  # the reader's own words, quoted as detail


async def test_a_keyring_that_cannot_be_read_is_said_in_chinese_without_its_backends_words(
        make_manager, chinese, monkeypatch) -> None:
    # Before: "t: env TOKEN: the keyring is not available (Keyring is locked …)" in any language.
    class Locked:
        def get(self, _ref: str) -> str:
            raise RuntimeError("Keyring is locked (org.freedesktop.Secret.Error.IsLocked)")

    monkeypatch.setattr("echo_desk.mcp.config.secret_store", Locked)
    cfg = parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                             "env": {"TOKEN": {"keyring": "mcp.t.env.TOKEN"}}})
    manager = make_manager({"t": cfg})
    status = await manager.start("t")
    assert status.state is ServerState.ERROR
    assert shown(status.detail) == "t：env TOKEN：无法读取密钥环", shown(status.detail)
    set_language("en")
    assert shown(status.detail) == "t: env TOKEN: the keyring could not be read"


def _unavailable() -> object:
    from echo_desk.sandbox.detect import Availability, Status

    return Availability(Status.BWRAP_MISSING)


async def test_a_sandboxed_server_the_sandbox_cannot_start_is_said_in_chinese(
        make_manager, chinese, monkeypatch) -> None:
    # Before: "操作失败；技术细节：t is set to run in the sandbox, which is unavailable here: …".
    from echo_desk import sandbox

    monkeypatch.setattr(sandbox, "availability", _unavailable)
    cfg = parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)], "sandbox": True})
    status = await make_manager({"t": cfg}).start("t")
    assert status.state is ServerState.ERROR
    text = shown(status.detail)
    assert text.startswith("“t”设置为在沙箱中运行，但此处沙箱不可用，所以没有启动它。"), text
    assert "bubblewrap（bwrap）" in text and "sudo apt install bubblewrap" in text  # the sandbox's reason and fix
    assert not re.search(r"\b[a-z]{2,} [a-z]{2,} [a-z]{2,}\b", re.sub(r"'[^']*'", "", text)), text  # commands aside
    set_language("en")
    assert shown(status.detail).startswith("“t” is set to run in the sandbox, which is unavailable here, so it was "
                                           "not started. bubblewrap (bwrap) is not installed. Install it:")


def test_a_program_file_that_cannot_be_copied_is_said_in_chinese_with_the_systems_words_kept(
        chinese, monkeypatch) -> None:
    # Before: "… could not give it a copy of its own ([Errno 13] Permission denied: …)" in any language.
    import errno

    from echo_desk import sandbox
    from echo_desk.common.explain import technical_detail
    from echo_desk.mcp import contained
    from echo_desk.mcp.explain import explained
    from echo_desk.sandbox.detect import Availability, Status

    def refused() -> None:
        raise PermissionError(errno.EACCES, "Permission denied", "/opt/echo-desk/seccomp")

    monkeypatch.setattr(sandbox, "availability", lambda: Availability(Status.AVAILABLE, bwrap="/usr/bin/bwrap"))
    monkeypatch.setattr(contained.own_files, "unshare_own_program", refused)
    cfg = parse_server("t", {"command": sys.executable, "sandbox": True})
    with pytest.raises(contained.SandboxUnavailableError) as caught:
        contained.contained(cfg, {})
    text = shown(explained(caught.value))
    assert "系统拒绝了此操作：权限不足" in text and "所以没有启动“t”" in text, text
    assert not re.search(r"[A-Za-z]{4,}", text.replace("Echo Desk", "")), text
    assert "PermissionError: [Errno 13] Permission denied: '/opt/echo-desk/seccomp'" in technical_detail(caught.value)


async def test_a_result_that_does_not_match_its_schema_says_in_chinese_it_was_not_passed_on(
        make_manager, registry, chinese) -> None:
    # Before: "MCP 服务器“w”发来的结果与该工具声明的格式不符。" (not what became of the result).
    cfg = parse_server("w", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                             "env": {"TINY_STRUCTURED": "bad"}})
    await make_manager({"w": cfg}).start_all()
    result = await get_tool(registry, "w__forecast").execute({}, ctx("forecast"))
    assert not result.success
    assert shown(result.error) == "MCP 服务器“w”发来的结果与该工具声明的格式不符，所以 Echo Desk 没有把它转交给智能体。"
    # The SDK's words stay in the text the model reads and Copy takes (the technical detail).
    assert "does not match the tool's declared output schema: " in str(result.error)


async def test_a_servers_error_on_a_call_is_labelled_as_its_own_words(make_manager, registry, chinese) -> None:
    # Before: "MCP 服务器“t”返回了错误：quota exceeded", the server's English as if it were ours.
    from mcp.shared.exceptions import MCPError

    manager = make_manager({"t": _tiny()})
    assert (await manager.start("t")).state is ServerState.CONNECTED

    async def refused(_name: str, _arguments: dict[str, object]) -> object:
        raise MCPError(code=-32603, message="quota exceeded")  # not -32000: the SDK's "connection closed"

    manager._servers["t"].conn.call_tool = refused
    result = await get_tool(registry, "t__echo").execute({"text": "x"}, ctx("echo"))
    assert not result.success
    assert shown(result.error) == "MCP 服务器“t”返回了错误（服务器原话）：quota exceeded", shown(result.error)


async def test_a_result_that_cannot_be_read_says_in_chinese_nothing_of_it_was_passed_on(
        make_manager, registry, chinese) -> None:
    # Before: "MCP 服务器“t”发来的结果格式有误。" (not what became of it).
    from pydantic import TypeAdapter

    manager = make_manager({"t": _tiny()})
    assert (await manager.start("t")).state is ServerState.CONNECTED

    async def unreadable(_name: str, _arguments: dict[str, object]) -> object:
        return TypeAdapter(int).validate_python("not a number")  # raises the reader's ValidationError

    manager._servers["t"].conn.call_tool = unreadable
    result = await get_tool(registry, "t__echo").execute({"text": "x"}, ctx("echo"))
    assert not result.success
    assert shown(result.error) == "MCP 服务器“t”发来的结果 Echo Desk 无法读取，所以没有把其中任何内容转交给智能体。"
    assert str(result.error) == "t/echo: the server sent a malformed result (1 problems)"  # the model's, as it was
