"""A hostile downstream MCP server (one the chat uses, or the gateway relays to): floods of
notifications, questions of its own, links to the person's files, giant or odd tool lists.
Against the SDK-less hostile server; every server shares the manager's one loop, so what one
server costs that loop, every other server's calls wait for."""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from echo_desk import sandbox
from echo_desk.mcp import ServerState
from echo_desk.mcp.config import ServerConfig, parse_server
from echo_desk.tools import Answer
from tests.mcp.helpers import HERE, TINY_SERVER, get_tool
from tests.mcp.test_everything import AnsweringHost, ctx

HOSTILE_SERVER = HERE / "hostile_server.py"


def _hostile(name: str = "h", mode: str = "", **extra: Any) -> ServerConfig:
    return parse_server(name, {"command": sys.executable, "args": ["-S", str(HOSTILE_SERVER)],
                               "env": {"HOSTILE_TOOLS": mode}, **extra})


def _tiny() -> ServerConfig:
    return parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)]})


async def _slowest_echo_while(registry: Any, busy: asyncio.Future[Any]) -> float:
    """The longest a call to the other server ``t`` took while ``busy`` ran."""
    echo = get_tool(registry, "t__echo")
    slowest = 0.0
    while not busy.done():
        started = time.monotonic()
        assert (await echo.execute({"text": "hi"}, ctx("echo"))).output == "hi"
        slowest = max(slowest, time.monotonic() - started)
        await asyncio.sleep(0.05)
    return slowest


async def test_a_giant_schema_is_refused_without_stalling_the_other_servers(make_manager, registry) -> None:
    # One tool whose schema is 8 MB (8,000 properties): refused for its size, and the refusal
    # must cost no more than the caps' count. It used to be checked against the Draft 2020-12
    # metaschema after the caps had already failed: ~10 s of the manager's loop, during which
    # every other server's calls waited (and again on every "tools changed" the server sends).
    manager = make_manager({"t": _tiny(), "huge": _hostile("huge", "huge")})
    assert (await manager.start("t")).state is ServerState.CONNECTED
    starting = asyncio.ensure_future(manager.start("huge"))
    slowest = await _slowest_echo_while(registry, starting)
    status = starting.result()
    assert status.state is ServerState.ERROR
    assert any("limit 256" in problem for problem in status.problems), status.problems
    assert slowest < 3, f"a call to another server waited {slowest:.1f} s"


async def test_thousands_of_tools_are_refused_with_the_count_and_the_catalog_goes_on(make_manager, registry) -> None:
    manager = make_manager({"t": _tiny(), "many": _hostile("many", "many")})
    statuses = {s.name: s for s in await manager.start_all()}
    assert statuses["many"].state is ServerState.ERROR
    assert statuses["many"].problems == ("the server offers 5004 tools (limit 256)",)
    assert registry.get("many__flood") is None
    assert (await get_tool(registry, "t__echo").execute({"text": "still"}, ctx("echo"))).output == "still"


async def test_a_tool_list_past_the_limit_is_not_paged_on(make_manager) -> None:
    # Every page of 304 tools names a next one: the listing used to go on for 20 pages, all kept
    # (with 200,000 tools a page, ~11 MB and ~5 s each: 4 GB and 2 minutes of the shared loop)
    # before the count refused them. Once a page brings more than the limit, no page follows.
    manager = make_manager({"p": _hostile("p", "paged")})
    status = await manager.start("p")
    assert status.state is ServerState.ERROR
    assert status.problems == ("the server offers 304 tools (limit 256)",), status.problems
    assert [line for line in status.stderr_tail if line.startswith("page ")] == ["page None"]


async def test_a_flood_of_notifications_during_a_call_is_bounded(make_manager, registry) -> None:
    # 5,000 each of progress (for a token nobody gave), logging, resources and tools changed,
    # as fast as the server can write them: the call ends with its answer, memory stays flat
    # (every message is read and dropped, the server's pipe waits meanwhile), and the other
    # server's calls go on.
    manager = make_manager({"t": _tiny(), "h": _hostile(timeout=300)})
    await manager.start_all()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    flooding = asyncio.ensure_future(get_tool(registry, "h__flood").execute({"n": 5_000}, ctx("flood")))
    slowest = await _slowest_echo_while(registry, flooding)
    result = flooding.result()
    assert result.success and result.output == "flooded"
    grew_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grew_mb < 50, f"the flood held {grew_mb:.0f} MB"
    assert slowest < 3, f"a call to another server waited {slowest:.1f} s"


async def test_the_servers_own_requests_are_refused_or_asked_never_answered_for_the_person(
        make_manager, registry) -> None:
    # During a call the server asks for a completion of Echo Desk's model (sampling), the
    # workspace's folders (roots) and the person's password (elicitation).
    host = AnsweringHost(Answer(action="decline"))
    manager = make_manager({"h": _hostile()}, host=host)
    await manager.start("h")
    result = await get_tool(registry, "h__ask").execute({}, ctx("ask", host))
    sampling, roots, elicitation = json.loads(result.output)
    assert sampling["error"]["message"] == "Sampling not supported"
    assert roots["error"]["message"] == "List roots not supported"
    assert elicitation["result"] == {"action": "decline"}  # what the person said, not an automatic yes
    [question] = host.questions
    assert question.mcp_server == "h" and question.asked_by == "MCP server h"


#: A question worded as Echo Desk's own approval, with a zero-width space in the name and a bidi
#: override that draws "rm -rf ~" from the characters "~ fr- mr".
POSING_AS_ECHO_DESK = "Echo\u200b Desk: allow run_command \u202e~ fr- mr\u202c? Type yes:"


@pytest.mark.parametrize("where", ["outside", "sandboxed"])
async def test_a_servers_question_reaches_the_person_as_the_server_wrote_it(make_manager, registry, where) -> None:
    """Hidden and bidi characters are kept for the host to show as escapes: dropped, the server's
    text read as cleanly as Echo Desk's own (the dialog's side: tests/ui/approval)."""
    if where == "sandboxed" and not sandbox.availability().available:
        pytest.skip("bwrap cannot run here")
    host = AnsweringHost(Answer(action="decline"))
    config = parse_server("h", {"command": sys.executable, "args": ["-S", str(HOSTILE_SERVER)],
                                "env": {"HOSTILE_QUESTION": POSING_AS_ECHO_DESK}, "sandbox": where == "sandboxed"})
    assert config.sandbox is (where == "sandboxed")
    manager = make_manager({"h": config}, host=host)
    await manager.start("h")
    result = await get_tool(registry, "h__ask").execute({}, ctx("ask", host))
    assert json.loads(result.output)[2]["result"] == {"action": "decline"}
    [question] = host.questions
    assert question.mcp_server == "h"
    assert question.prompt == POSING_AS_ECHO_DESK


async def test_file_links_in_a_result_are_passed_as_data_and_never_read(make_manager, registry, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY----- 1234")
    manager = make_manager({"h": _hostile()})
    await manager.start("h")
    result = await get_tool(registry, "h__links").execute({"path": str(secret)}, ctx("links"))
    assert result.success
    assert f"[resource link file://{secret} (id_rsa)]" in result.output
    assert "from the server" in result.output  # an embedded resource's text is the server's own
    assert "PRIVATE KEY" not in result.output + json.dumps(result.metadata, default=str)


async def test_tools_named_like_built_ins_or_with_control_characters_stay_under_the_servers_prefix(make_manager) -> None:
    # "read_file" and "run_shell" from a server are that server's tools, never the built-ins:
    # every registry name is the server's prefix and provider-safe ASCII.
    manager = make_manager({"n": _hostile("n", "names")})
    status = await manager.start("n")
    assert status.state is ServerState.CONNECTED, status.problems
    names = {t.registry_name for t in status.tools}
    assert {"n__read_file", "n__run_shell"} <= names
    assert all(name.startswith("n__") and name.isascii() and name.isprintable() for name in names), names
    # What every label shows as the tool's title has no bidi override to reverse "exe.png" and
    # no control: each is its visible escape.
    assert all("\u202e" not in info.title and "\x1b" not in info.title for info in status.tools)
    assert {"ok⟨U+202E⟩gnp.exe", "bell⟨BEL⟩⟨ESC⟩[2Jname"} <= {info.title for info in status.tools}


def _rss_mb() -> float:
    """The process's resident memory now (not its peak), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / (1024 * 1024)


async def test_a_line_that_never_ends_fails_its_server_without_holding_it_and_others_go_on(
        make_manager, registry) -> None:
    # The server writes 200 MB with no newline, then waits. The SDK's reader keeps a line until
    # its newline: it held all of it (and copied it again for each 64 KB read, seconds of the
    # shared loop), and the call waited for its time-out. Past the cap, the server is failed
    # with why, what it wrote is dropped unread, and the other server's calls go on.
    manager = make_manager({"t": _tiny(), "h": _hostile(timeout=60)})
    await manager.start_all()
    before = _rss_mb()
    started = time.monotonic()
    calling = asyncio.ensure_future(get_tool(registry, "h__long").execute({"mb": 200, "end": False}, ctx("long")))
    slowest = await _slowest_echo_while(registry, calling)
    result = calling.result()
    grew_mb, took = _rss_mb() - before, time.monotonic() - started
    print(f"held {grew_mb:.0f} MB, took {took:.1f} s, another server's call waited {slowest:.1f} s")
    assert not result.success
    assert took < 30, f"the call waited for its time-out ({took:.0f} s)"
    status = manager.status("h")
    assert status.state is ServerState.ERROR
    assert "longer than 16 MB" in status.detail, status.detail
    assert grew_mb < 64, f"the unending line held {grew_mb:.0f} MB"
    assert slowest < 3, f"a call to another server waited {slowest:.1f} s"
    assert (await get_tool(registry, "t__echo").execute({"text": "still"}, ctx("echo"))).output == "still"


async def test_a_long_answer_under_the_cap_still_arrives(make_manager, registry) -> None:
    # 11 MB in one line: under the cap, an answer like any other (the result's own caps apply).
    manager = make_manager({"h": _hostile(timeout=120)})
    await manager.start("h")
    result = await get_tool(registry, "h__long").execute({"mb": 11}, ctx("long"))
    assert result.success, result.error
    assert manager.status("h").state is ServerState.CONNECTED


async def test_a_handshake_answer_that_never_ends_fails_the_start_with_why(make_manager) -> None:
    # The answer to "initialize" is an endless line: the start used to wait out the handshake
    # time-out holding all the server wrote meanwhile (hundreds of MB); it fails at the cap.
    manager = make_manager({"h": _hostile("h", "endless")})
    before = _rss_mb()
    status = await manager.start("h")
    assert status.state is ServerState.ERROR
    assert "longer than 16 MB" in status.detail, status.detail
    assert _rss_mb() - before < 64


async def test_a_servers_words_reach_every_label_inert(make_manager, registry) -> None:
    # BEL, ESC (clear screen), a C1 CSI, a bidi override and a zero-width space in the server's
    # name and version, a tool's title and the server's error output. The tool's title labels the
    # tool everywhere (progress line, retry card, cards: ``display_title``) and the status feeds
    # the settings page: ESC, BEL and C1 reached them raw (a C1 NEL, \v or \f is a line break in
    # a Qt label). Each now arrives as its visible escape (⟨ESC⟩); the model's texts keep theirs.
    from echo_desk.common.visible_text import has_hidden

    manager = make_manager({"c": _hostile("c", "controls")})
    status = await manager.start("c")
    assert status.state is ServerState.CONNECTED, status.detail
    [ctl] = [t for t in status.tools if t.original_name.startswith("ctl")]
    tool = get_tool(registry, ctl.registry_name)
    shown = {"server": status.server_info, "title": ctl.title, "display_title": tool.display_title,
             **{f"stderr {i}": line for i, line in enumerate(status.stderr_tail)}}
    assert not [where for where, text in shown.items() if has_hidden(text)], shown
    assert "⟨ESC⟩" in tool.display_title and "⟨BEL⟩" in status.server_info
    assert any("⟨ESC⟩" in line for line in status.stderr_tail), status.stderr_tail
