"""URL-mode elicitation against server-everything (npm): the person is asked with the whole
address, the server learns the answer; an address that cannot be shown honestly is declined
without asking; the error path (-32042) is offered the same way."""

from __future__ import annotations

import pytest

from echo_desk.mcp.url_elicitation import openable
from echo_desk.tools import Answer
from tests.mcp.conftest import everything_config, needs_everything
from tests.mcp.helpers import get_tool
from tests.mcp.test_everything import AnsweringHost, ctx

PAY = "https://pay.example.com/checkout?order=42&lang=zh-CN"


@needs_everything
async def test_the_person_sees_the_whole_address_and_the_server_gets_the_answer(make_manager, registry) -> None:
    host = AnsweringHost(Answer(action="accept"))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    tool = get_tool(registry, "ev__trigger-url-elicitation")  # offered only to clients that declare URL mode
    result = await tool.execute({"url": PAY, "message": "Pay\u200b for the order"}, ctx("url", host))
    assert result.success, result.error
    [question] = host.questions
    assert question.url == PAY and question.mcp_server == "ev"
    assert question.prompt == "Pay\u200b for the order"  # as sent: the host shows the hidden character
    assert "User completed the URL elicitation" in result.output


@needs_everything
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_declining_reaches_the_server(make_manager, registry, action) -> None:
    host = AnsweringHost(Answer(action=action))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    result = await get_tool(registry, "ev__trigger-url-elicitation").execute({"url": PAY}, ctx("url", host))
    assert result.success and f'"action": "{action}"' in result.output


@needs_everything
@pytest.mark.parametrize("url", ["file:///etc/passwd", "https://bank.example@evil.example/login"])
async def test_an_address_that_cannot_be_shown_honestly_is_declined_unasked(make_manager, registry, url) -> None:
    host = AnsweringHost(Answer(action="accept"))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    result = await get_tool(registry, "ev__trigger-url-elicitation").execute({"url": url}, ctx("url", host))
    assert host.questions == []
    assert '"action": "decline"' in result.output


@needs_everything
async def test_the_error_path_asks_the_same_way_and_tells_the_model_to_retry(make_manager, registry) -> None:
    host = AnsweringHost(Answer(action="accept"))
    manager = make_manager({"ev": everything_config(timeout=20)})
    await manager.start("ev")
    tool = get_tool(registry, "ev__trigger-url-elicitation")
    first = await tool.execute({"url": PAY, "errorPath": True}, ctx("url", host))
    assert not first.success and first.error_kind.value == "business"
    assert "call the tool again" in first.error
    assert [q.url for q in host.questions] == ["https://modelcontextprotocol.io"]
    again = await tool.execute({"url": PAY, "errorPath": True}, ctx("url", host))  # the retry goes through
    assert again.success and "User completed" in again.output


@pytest.mark.parametrize(("url", "ok"), [
    ("https://example.com/a?b=c", True),
    ("http://127.0.0.1:8080/cb", True),
    ("javascript:alert(1)", False),
    ("https://exa\u200bmple.com/", False),
    ("https://example.com/\u202efdp.exe", False),
    ("https://user:pw@example.com/", False),
    ("https:///no-host", False),
    ("https://example.com/" + "a" * 5000, False),
    ("https://example.com/a b", False),
])
def test_which_addresses_may_be_offered(url: str, ok: bool) -> None:
    assert openable(url) is ok


async def test_a_lookalike_host_is_shown_and_opened_as_the_browser_reaches_it() -> None:
    # "аpple.com" with a Cyrillic "а" read as apple.com in the question ("It asks you to open
    # this address … (аpple.com)") while the browser went to xn--pple-43d.com.
    from echo_desk.mcp.url_elicitation import ask_to_open

    host = AnsweringHost(Answer(action="accept"))
    answer = await ask_to_open(host, "ev", "Pay", "https://\u0430pple.com:8443/pay?x=1#top")
    assert answer.action == "accept"
    [question] = host.questions
    assert question.url == "https://xn--pple-43d.com:8443/pay?x=1#top"
    ascii_only = AnsweringHost(Answer(action="accept"))
    await ask_to_open(ascii_only, "ev", "Pay", PAY)
    assert [q.url for q in ascii_only.questions] == [PAY]  # an ASCII address is shown as it is
