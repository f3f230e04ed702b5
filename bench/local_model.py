"""Benchmark of the built-in local model: server start time, tokens/s, tool-call success rate.

    python bench/local_model.py [--model PATH] [--rounds 1]

Every request streams through ``LocalModel`` exactly as the app does (temperature 0,
prompt caching off). Tool prompts count as correct when the expected tool is called with
JSON arguments holding the expected value; plain prompts when text and no call come back.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ModelError, TextDelta, ToolCallReady, Usage
from echo_desk.providers.local.default_model import default_model_path
from echo_desk.providers.local.profiles import get_profile
from echo_desk.providers.local.provider import LocalModel


def _tool(name: str, description: str, **props: str) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
            "required": list(props),
        },
    )


TOOLS = [
    _tool("read_file", "Read a text file in the workspace and return its content.", path="File path"),
    _tool("list_directory", "List the files in a folder of the workspace.", path="Folder path"),
    _tool("write_file", "Create or overwrite a text file in the workspace.", path="File path", content="Text"),
]

# (prompt, expected tool or None for a plain answer, a value the arguments must contain)
TOOL_CASES = [
    ("What is in notes.txt?", "read_file", "notes.txt"),
    ("Show me the contents of src/main.py", "read_file", "src/main.py"),
    ("Read README.md and tell me what it says.", "read_file", "README.md"),
    ("Open config.yaml", "read_file", "config.yaml"),
    ("Which files are in the docs folder?", "list_directory", "docs"),
    ("Write 'hello' into greeting.txt", "write_file", "greeting.txt"),
]
TEXT_CASES = [
    "Explain what a Python list is in one sentence.",
    "Write a haiku about the sea.",
    "What is the capital of France?",
    "Say hello.",
]


async def one(model: LocalModel, prompt: str, choice: str) -> tuple[str, list[tuple[str, str]], float, int, str]:
    began = time.monotonic()
    first: float | None = None
    text, calls, out_tokens, error = "", [], 0, ""
    try:
        async for event in model.stream([ChatMessage(role="user", content=prompt)], TOOLS, tool_choice=choice):
            if first is None and isinstance(event, (TextDelta, ToolCallReady)):
                first = time.monotonic()
            if isinstance(event, TextDelta):
                text += event.text
            elif isinstance(event, ToolCallReady):
                calls.append((event.call.name, event.call.arguments))
            elif isinstance(event, Usage):
                out_tokens = event.output_tokens
    except ModelError as exc:
        error = f"{exc.kind.value}: {exc}"[:90]
    span = time.monotonic() - (first or began)
    return text, calls, span, out_tokens, error


def _call_ok(calls: list[tuple[str, str]], tool: str, value: str) -> bool:
    if len(calls) != 1 or calls[0][0] != tool:
        return False
    try:
        args = json.loads(calls[0][1])
    except ValueError:
        return False
    return isinstance(args, dict) and value in args.values()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", type=Path, default=default_model_path())
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    model = LocalModel(args.model, get_profile("qwen2.5-coder-tools", context_size=4096, temperature=0))
    try:
        t0 = time.monotonic()
        await model.ensure_started()
        print(f"server start: {time.monotonic() - t0:.2f} s (pid {model.server.pid})")
        rates: list[float] = []
        tool_ok = tool_n = text_ok = text_n = 0
        for _ in range(args.rounds):
            for choice in ("auto", "required"):
                for prompt, tool, value in TOOL_CASES:
                    _text, calls, span, toks, error = await one(model, prompt, choice)
                    ok = _call_ok(calls, tool, value)
                    tool_ok += ok
                    tool_n += 1
                    print(f"[{choice:8}] {'OK ' if ok else 'BAD'} {prompt!r} -> {calls or error}")
            for prompt in TEXT_CASES:
                text, calls, span, toks, error = await one(model, prompt, "auto")
                ok = bool(text.strip()) and not calls
                text_ok += ok
                text_n += 1
                if ok and toks > 1 and span > 0:
                    rates.append((toks - 1) / span)  # tokens after the first, over the time they took
                print(f"[auto    ] {'OK ' if ok else 'BAD'} {prompt!r} -> {(text[:50] or calls or error)!r}")
        print(f"tool calls correct: {tool_ok}/{tool_n} (auto + required, streaming)")
        print(f"plain answers in text: {text_ok}/{text_n}")
        if rates:
            print(f"generation: {statistics.median(rates):.1f} tokens/s median over {len(rates)} text answers")
    finally:
        await model.aclose()


if __name__ == "__main__":
    asyncio.run(main())
