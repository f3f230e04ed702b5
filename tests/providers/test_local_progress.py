"""The built-in model says when it is starting and how much prompt it reads (real llama.cpp)."""

from __future__ import annotations

import pytest

from echo_desk.agent.model import ChatMessage, ModelStarting, PromptProgress, TextDelta
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel
from tests.providers.test_local_llm import MODEL

pytestmark = [pytest.mark.llm, pytest.mark.skipif(MODEL is None, reason="local model absent")]


async def test_first_use_reports_starting_then_the_prompt_read_then_text() -> None:
    assert MODEL is not None
    model = LocalModel(MODEL, get_profile("qwen2.5-coder-tools", context_size=2048, cache_prompt=True))
    try:
        question = [ChatMessage(role="user", content="Say hello in one word.")]
        first = [e async for e in model.stream(question, [])]
        assert isinstance(first[0], ModelStarting)
        read = [e for e in first if isinstance(e, PromptProgress)]
        assert read and read[-1].total > 0 and read[-1].processed == read[-1].total
        text_at = next(i for i, e in enumerate(first) if isinstance(e, TextDelta))
        assert first.index(read[0]) < text_at  # the prompt is read before the answer comes
        again = [e async for e in model.stream(question, [])]
        assert not any(isinstance(e, ModelStarting) for e in again)  # running: nothing to start
        cached = [e for e in again if isinstance(e, PromptProgress)]
        assert cached and cached[-1].cached > 0  # the same prompt again: the server reuses it
    finally:
        await model.aclose()


async def test_stop_while_the_server_starts_ends_quickly_and_leaves_no_server() -> None:
    import asyncio
    import time

    from tests.providers.test_local_llm import _wait_gone

    assert MODEL is not None
    model = LocalModel(MODEL, get_profile("qwen2.5-coder-tools", context_size=2048))
    stream = model.stream([ChatMessage(role="user", content="hi")], [])
    assert isinstance(await anext(stream), ModelStarting)
    rest = asyncio.ensure_future(anext(stream))
    deadline = time.monotonic() + 30
    while model.server.pid is None:  # the child is being started
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    pid = model.server.pid
    began = time.monotonic()
    rest.cancel()
    await asyncio.gather(rest, return_exceptions=True)
    stopped_after = time.monotonic() - began
    await model.aclose()
    assert stopped_after <= 1.0, stopped_after
    assert _wait_gone(pid), "the half-started server outlived Stop"
