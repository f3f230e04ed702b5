"""Resources and prompts of the real ``@modelcontextprotocol/server-everything``: list, read,
attach, subscribe, and a prompt with arguments; plus the caps and hidden characters."""

from __future__ import annotations

import asyncio
import re
import sys

import pytest

from echo_desk.mcp.config import parse_server
from echo_desk.mcp.resources import MAX_TEXT_BYTES, ResourceError, ResourceInfo, ResourceProblem
from echo_desk.tools import ToolExecutionContext
from tests.mcp.conftest import everything_config, needs_everything
from tests.mcp.helpers import TINY_SERVER, get_tool


@needs_everything
async def test_list_read_and_attach_a_resource(make_manager, registry) -> None:
    manager = make_manager({"ev": everything_config()})
    await manager.start_all()
    listing = await manager.resources("ev")
    assert listing.resources and listing.templates and listing.subscribable
    doc = next(r for r in listing.resources if r.uri.startswith("demo://resource/static/document/"))
    attached = await manager.read_resource("ev", doc.uri, doc)
    assert attached.image is None and attached.part.uri == doc.uri and attached.part.server == "ev"
    assert len(attached.part.text) > 20
    templated = next(t for t in listing.templates if "dynamic/text" in t.uri_template)
    text = await manager.read_resource("ev", re.sub(r"\{[^}]+\}", "3", templated.uri_template))
    assert "3" in text.part.text
    # Listing resources offers the model nothing: no tool was added for them.
    assert not [name for name in registry.tools if "resource" in name and not name.startswith("ev__")]


@needs_everything
async def test_a_binary_resource_that_is_not_an_image_is_refused(make_manager) -> None:
    manager = make_manager({"ev": everything_config()})
    await manager.start_all()
    with pytest.raises(ResourceError) as info:
        await manager.read_resource("ev", "demo://resource/dynamic/blob/1")
    assert info.value.problem is ResourceProblem.BINARY


@needs_everything
async def test_subscribing_hears_updates(make_manager, registry) -> None:
    manager = make_manager({"ev": everything_config()})
    await manager.start_all()
    listing = await manager.resources("ev")
    uri = next(r.uri for r in listing.resources if r.uri.startswith("demo://resource/static/document/"))
    heard: asyncio.Queue[str] = asyncio.Queue()
    loop = asyncio.get_running_loop()
    stop = await manager.subscribe_resource("ev", uri, lambda u: loop.call_soon_threadsafe(heard.put_nowait, u))
    toggle = get_tool(registry, "ev__toggle-subscriber-updates")
    ctx = ToolExecutionContext(call_id="c", tool_name=toggle.name, scope_id="t")
    result = await toggle.execute({}, ctx)
    assert result.success, result.error
    assert await asyncio.wait_for(heard.get(), 10) == uri
    stop()
    await toggle.execute({}, ctx)  # the server's updates off again


@needs_everything
async def test_prompts_with_arguments(make_manager) -> None:
    manager = make_manager({"ev": everything_config()})
    await manager.start_all()
    prompts = {p.name: p for p in await manager.prompts()}
    args = prompts["args-prompt"]
    assert args.command == "/ev:args-prompt"
    assert [(a.name, a.required) for a in args.arguments] == [("city", True), ("state", False)]
    result = await manager.get_prompt("ev", "args-prompt", {"city": "Oslo", "state": "Viken"})
    assert "Oslo" in result.text and "Viken" in result.text and result.removed == ()


def _tiny(mode: str):  # type: ignore[no-untyped-def]
    return parse_server("t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)],
                              "env": {"TINY_RESOURCES": mode}})


async def test_a_50_mb_resource_is_refused_before_it_is_read(make_manager) -> None:
    manager = make_manager({"t": _tiny("big")})
    await manager.start_all()
    listing = await manager.resources("t")
    big = next(r for r in listing.resources if r.uri == "tiny://big")
    assert big.size == 50 * 1024 * 1024
    with pytest.raises(ResourceError) as info:
        await manager.read_resource("t", big.uri, big)
    assert info.value.problem is ResourceProblem.TOO_LARGE and "52.4 MB" in str(info.value)


async def test_a_resource_larger_than_it_said_is_refused_whole(make_manager) -> None:
    manager = make_manager({"t": _tiny("big")})
    await manager.start_all()
    quiet = ResourceInfo(uri="tiny://quiet-big", name="quiet")  # listed without a size
    with pytest.raises(ResourceError) as info:
        await manager.read_resource("t", quiet.uri, quiet)
    assert info.value.problem is ResourceProblem.TOO_LARGE
    assert str(MAX_TEXT_BYTES // 1_000_000) in str(info.value)


async def test_prompt_text_with_hidden_characters_is_cleaned_and_named(make_manager) -> None:
    manager = make_manager({"t": _tiny("big")})
    await manager.start_all()
    prompts = {p.name: p for p in await manager.prompts()}
    assert set(prompts) == {"summarise", "ok\u202egnp.exe\x1b[2J"}  # names raw: the UI shows them visible
    prompt = prompts["summarise"]
    assert "\u200b" in prompt.description  # raw: the UI shows it with the character made visible
    result = await manager.get_prompt("t", prompt.name, {"topic": "tests"})
    assert "\u200b" not in result.text and "\u202e" not in result.text
    assert set(result.removed) == {"U+200B", "U+202E"} and "tests" in result.text
