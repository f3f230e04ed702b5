"""Per-model settings for the built-in server: chat template override, context, request defaults."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from echo_desk.providers.local.gguf import GgufInfo


def bundled_template(name: str) -> str:
    """The text of ``templates/<name>`` shipped with Echo Desk."""
    return resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")


@dataclass(frozen=True, kw_only=True)
class ModelProfile:
    """How to run one family of local models.

    ``chat_template`` replaces the model's own (``None`` keeps the GGUF's). ``request_defaults``
    go into every request. Prompt caching is on: at the 10th turn of a conversation it cut time
    to first token from 13.5 s to 1.7 s on 2 cores. With it llama.cpp's answers can drift between
    otherwise identical requests, so tests that need bit-for-bit answers turn it off
    (``get_profile(..., cache_prompt=False)``).
    """

    name: str
    chat_template: str | None = None
    context_size: int = 8192
    # max_tokens bounds a runaway answer: greedy decoding can repeat itself until llama.cpp's
    # context shift lets it go on for ever.
    request_defaults: dict[str, Any] = field(default_factory=lambda: {"cache_prompt": True, "max_tokens": 1024})
    #: The template reads ``echo_tools`` and calls are bare JSON objects: tool calls are then
    #: constrained by a grammar (see ``structured``) instead of parsed by the server.
    structured_calls: bool = False
    #: With ``structured_calls``: the grammar is sent (off only to measure what it does:
    #: ``bench/agent_tasks.py --no-grammar``).
    call_grammar: bool = True
    #: With ``structured_calls``: path arguments must be relative to the workspace (the 0.5B
    #: model sends the workspace's absolute path as the file otherwise). A scope with a second
    #: workspace folder is then out of this model's reach (relative paths start at the first).
    relative_paths: bool = False
    #: Tools not offered to this model (they distract a small one and cost prompt tokens); they
    #: stay in the catalog and callable by the person (``echo-desk call``).
    hidden_tools: frozenset[str] = frozenset()
    #: Each tool is offered with only the parameters it declares basic (``Tool.basic_parameters``).
    basic_parameters_only: bool = False
    #: With ``structured_calls``: what each turn is offered follows the exchange so far (read
    #: before an edit, a search when asked which file…: see ``steering``). For small models: a
    #: larger one chooses its own steps.
    steer_turns: bool = False


#: Hidden from small models: they call them instead of answering (echo_text, delegate,
#: ask_user, update_todos), another tool or a path argument does the job (copy_path,
#: create_folder: write_file makes missing folders), or they are rarely what a 0.5B model
#: is asked for (fetch_url); each one costs prompt tokens at every turn.
SMALL_MODEL_HIDDEN = frozenset({"echo_text", "delegate", "ask_user", "update_todos", "copy_path",
                                "create_folder", "fetch_url"})


def _qwen_tools() -> ModelProfile:
    # Greedy decoding: at 0.2 a 0.5B model already drifts off the call format now and then
    # (llama.cpp then answers HTTP 500); the price is an occasional repetition in long prose.
    return ModelProfile(
        name="qwen2.5-coder-tools",
        chat_template=bundled_template("chatml_tools.jinja"),
        request_defaults={"cache_prompt": True, "temperature": 0.0, "max_tokens": 1024},
        structured_calls=True,
        relative_paths=True,
        hidden_tools=SMALL_MODEL_HIDDEN,
        basic_parameters_only=True,
        steer_turns=True,
    )


def _model_template() -> ModelProfile:
    return ModelProfile(name="model-template")


_FACTORIES: dict[str, Callable[[], ModelProfile]] = {
    "qwen2.5-coder-tools": _qwen_tools,
    "model-template": _model_template,
}

DEFAULT_PROFILE = "qwen2.5-coder-tools"


def profile_names() -> list[str]:
    return sorted(_FACTORIES)


def get_profile(
    name: str,
    *,
    context_size: int | None = None,
    temperature: float | None = None,
    cache_prompt: bool | None = None,
) -> ModelProfile:
    """The named profile (unknown names fall back to the default), with overrides applied."""
    base = _FACTORIES.get(name, _FACTORIES[DEFAULT_PROFILE])()
    defaults = dict(base.request_defaults)
    if temperature is not None:
        defaults["temperature"] = temperature
    if cache_prompt is not None:
        defaults["cache_prompt"] = cache_prompt
    return ModelProfile(
        name=base.name,
        chat_template=base.chat_template,
        context_size=context_size or base.context_size,
        request_defaults=defaults,
        structured_calls=base.structured_calls,
        call_grammar=base.call_grammar,
        relative_paths=base.relative_paths,
        hidden_tools=base.hidden_tools,
        basic_parameters_only=base.basic_parameters_only,
        steer_turns=base.steer_turns,
    )


#: Below this many weights a model is "small": tools that distract it are not offered.
SMALL_MODEL_PARAMETERS = 3_000_000_000


def profile_for_file(info: GgufInfo, *, context_size: int | None = None, temperature: float | None = None,
                     cache_prompt: bool | None = None) -> ModelProfile:
    """The profile for a model, from its file's own metadata rather than its file name.

    A ChatML model of the Qwen 2 family gets the structured-call profile (its template is the
    one our grammar-constrained calls were built for); any other keeps the chat template in its
    file. The context is the one asked for, never more than the model was trained for; a model
    under ``SMALL_MODEL_PARAMETERS`` is not offered the tools that distract small models, nor
    the parameters a tool does not declare basic, and its turns are steered.
    """
    structured = info.chatml and info.architecture.startswith("qwen2")
    base = get_profile(DEFAULT_PROFILE if structured else "model-template", temperature=temperature,
                       cache_prompt=cache_prompt)
    wanted = context_size or base.context_size
    small = 0 < info.parameter_count < SMALL_MODEL_PARAMETERS
    return ModelProfile(
        name=base.name,
        chat_template=base.chat_template,
        context_size=min(wanted, info.context_length) if info.context_length else wanted,
        request_defaults=base.request_defaults,
        structured_calls=base.structured_calls,
        relative_paths=base.relative_paths,
        hidden_tools=SMALL_MODEL_HIDDEN if small else frozenset(),
        basic_parameters_only=small,
        steer_turns=base.steer_turns and small,
    )
