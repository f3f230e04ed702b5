"""The bundled chat template as the built-in provider's requests render it: what the model is
told after a failed call follows what the turn is offered (a scripted server records each request
body; the template is rendered from it with Jinja, as llama.cpp renders it with its own engine)."""

from __future__ import annotations

import json

import jinja2
from providers_kit import Scripted, collect, sse_response

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.providers.local.intent import Intent, IntentMemory, StatedIntent, exchange_key
from echo_desk.providers.local.profiles import bundled_template
from echo_desk.providers.local.structured import TEXT_ONLY_GRAMMAR, constrained_stream
from echo_desk.providers.openai_compat import OpenAICompatModel
from echo_desk.tools import ToolRole

SEEK = ToolDefinition(name="seek", description="Finds a text.", role=ToolRole.SEARCH, parameters={
    "type": "object", "properties": {"regex": {"type": "string"}}, "required": ["regex"]})
FAILURE = "no file matched"


def _sse(text: str) -> bytes:
    chunks = [{"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
              {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def _render(body: dict[str, object]) -> str:
    kwargs = body.get("chat_template_kwargs") or {}
    assert isinstance(kwargs, dict)
    template = jinja2.Environment(undefined=jinja2.ChainableUndefined).from_string(bundled_template("chatml_tools.jinja"))
    return template.render(messages=body["messages"], add_generation_prompt=True, **kwargs)


def _failed_calls(times: int) -> list[ChatMessage]:
    messages = [ChatMessage(role="system", content="You are Echo Desk."), ChatMessage(role="user", content="x")]
    for number in range(times):
        call = ToolCall(id=f"c{number}", name=SEEK.name, arguments='{"regex": "x"}')
        messages += [ChatMessage(role="assistant", tool_calls=(call,)),
                     ChatMessage(role="tool", tool_call_id=call.id, name=SEEK.name,
                                 content=json.dumps({"ok": False, "error": FAILURE, "error_kind": "business"}))]
    return messages


async def _turn_after(times: int) -> dict[str, object]:
    """The request body of the turn after ``times`` identical failed calls."""
    script = Scripted([sse_response(_sse("An answer."))])
    client = OpenAICompatModel(base_url="http://127.0.0.1:9", model="m", transport=script.transport)
    messages = _failed_calls(times)
    memory = IntentMemory()
    key = exchange_key(messages)
    assert key is not None
    memory.remember(key, StatedIntent(Intent.SEARCH, "x"))
    await collect(constrained_stream(client, messages, [SEEK], "auto", intents=memory))
    await client.aclose()
    return script.body()


async def test_after_a_failed_call_the_model_is_told_to_correct_it_while_it_may_call() -> None:
    body = await _turn_after(1)
    assert body["grammar"] != TEXT_ONLY_GRAMMAR  # it may call again, or answer
    prompt = _render(body)
    assert f"Error: {FAILURE}" in prompt and "seek(" in prompt
    assert "call again" in prompt.rsplit(FAILURE, 1)[1]


async def test_a_turn_held_to_text_after_a_failed_call_is_never_told_to_call_again() -> None:
    # The same call failed twice: the turn is held to text. Told to "correct it and call again"
    # there, the 0.5B model wrote the error itself as its answer, and the exchange ended on it.
    body = await _turn_after(2)
    assert body["grammar"] == TEXT_ONLY_GRAMMAR
    prompt = _render(body)
    after = prompt.rsplit(FAILURE, 1)[1]
    assert "seek(" not in prompt and "call again" not in after
    assert "plain text" in after and after.rstrip().endswith("<|im_start|>assistant")
    # The earlier failure, with a call after it, still reads as one to correct.
    assert "call again" in prompt.split(FAILURE)[1]
