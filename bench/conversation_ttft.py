"""Time to first token at the 1st and the 10th turn of one conversation, prompt caching on and off.

    python bench/conversation_ttft.py [--model PATH] [--turns 10]

One built-in model server per setting (the app's profile, temperature 0), the same scripted
conversation for both: turn k sends the system prompt, the tool list, k-1 earlier exchanges and
a new question, exactly as the agent loop would, and stops at the first token. The figure is the
10th turn's time to first token as a ratio of the 1st turn's, and caching on against off.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import time
from pathlib import Path

from echo_desk.agent.model import ChatMessage, PromptProgress, TextDelta, ToolCallStarted
from echo_desk.agent.prompts import system_message
from echo_desk.agent.scope import Scope
from echo_desk.providers.local.default_model import default_model_path
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel

QUESTIONS = [
    "What is a Python list?", "How do I reverse a list?", "And a tuple?", "What is a dict comprehension?",
    "How do I read a file line by line?", "What does `with` do?", "How do I sort by a key?",
    "What is a generator?", "How do I time a function?", "What is a virtual environment?",
]
#: A fixed answer per turn (the same history for both settings), about 60 tokens each.
ANSWER = ("Here is a short explanation with an example. In Python you can do this in one line, "
          "and the standard library has a helper for it too; the documentation describes both ways "
          "and when to prefer each of them in real code.")


async def ttft(model: LocalModel, messages: list[ChatMessage]) -> tuple[float, int, int]:
    """Seconds to the first token, and the prompt size and cached tokens the server reported."""
    began = time.monotonic()
    total = cached = 0
    stream = model.stream(messages, [])
    try:
        async for event in stream:
            if isinstance(event, PromptProgress):
                total, cached = event.total, event.cached
            if isinstance(event, TextDelta | ToolCallStarted):
                return time.monotonic() - began, total, cached
    finally:
        await stream.aclose()  # type: ignore[attr-defined]
    return time.monotonic() - began, total, cached


async def conversation(path: Path, cache: bool, turns: int) -> list[tuple[float, int, int]]:
    profile = get_profile("qwen2.5-coder-tools", context_size=8192, cache_prompt=cache)
    profile = dataclasses.replace(profile, request_defaults={**profile.request_defaults, "max_tokens": 8})
    model = LocalModel(path, profile)
    await model.ensure_started()
    system = system_message(Scope(label="bench", workspace_roots=(Path("/tmp/bench-workspace"),)))
    history: list[ChatMessage] = [system]
    results = []
    try:
        for k in range(turns):
            history.append(ChatMessage(role="user", content=QUESTIONS[k % len(QUESTIONS)]))
            results.append(await ttft(model, history))
            history.append(ChatMessage(role="assistant", content=ANSWER))
    finally:
        await model.aclose()
    return results


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", type=Path, default=default_model_path())
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    figures = {}
    for cache in (True, False):
        runs = await conversation(args.model, cache, args.turns)
        figures[cache] = runs
        label = "on " if cache else "off"
        for k, (seconds, total, cached) in enumerate(runs, 1):
            print(f"cache {label} turn {k:2d}: ttft {seconds:6.2f} s  prompt {total:5d} tokens, {cached:5d} cached")
    on, off = figures[True], figures[False]
    print(f"\nturn {args.turns} / turn 1, caching on : {on[-1][0] / on[0][0]:.2f}x ({on[0][0]:.2f} s -> {on[-1][0]:.2f} s)")
    print(f"turn {args.turns} / turn 1, caching off: {off[-1][0] / off[0][0]:.2f}x ({off[0][0]:.2f} s -> {off[-1][0]:.2f} s)")
    print(f"turn {args.turns}, off / on: {off[-1][0] / on[-1][0]:.2f}x")
    later_on = statistics.median(r[0] for r in on[1:])
    later_off = statistics.median(r[0] for r in off[1:])
    print(f"median ttft of turns 2..{args.turns}: on {later_on:.2f} s, off {later_off:.2f} s")


if __name__ == "__main__":
    asyncio.run(main())
