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
