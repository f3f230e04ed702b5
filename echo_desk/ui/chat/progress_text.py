"""The status line for what the model is doing (``agent.progress.Progress``), in the person's language."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from echo_desk.i18n import _

if TYPE_CHECKING:
    from echo_desk.agent.progress import Progress


def progress_text(progress: Progress, title_for: Callable[[str], str] = str) -> str:
    """``title_for``: the tool's title in the person's language (the catalog's), from its name."""
    from echo_desk.agent.progress import Stage  # loaded with the engine, after the first frame

    seconds = int(progress.elapsed)
    if progress.stage is Stage.STARTING_MODEL:
        return _("Starting the local model… {seconds} s (only the first message waits for this)").format(
            seconds=seconds)
    if progress.stage is Stage.READING_PROMPT:
        if progress.cached_tokens:
            return _("Reading the conversation… {total} tokens, {cached} already read · {seconds} s").format(
                total=progress.prompt_tokens, cached=progress.cached_tokens, seconds=seconds)
        return _("Reading the conversation… {total} tokens · {seconds} s").format(
            total=progress.prompt_tokens, seconds=seconds)
    if progress.stage is Stage.THINKING:
        return _("Thinking… {seconds} s").format(seconds=seconds)
    if progress.stage is Stage.WORKING_OUT_REQUEST:
        return _("Working out what you are asking for… {seconds} s").format(seconds=seconds)
    rate = f"{progress.tokens_per_second:.1f}"
    if progress.stage is Stage.WRITING_CALL:
        return _("Writing a call to {tool}… {tokens} tokens · {rate} tokens/s · {seconds} s").format(
            tool=title_for(progress.tool), tokens=progress.tokens, rate=rate, seconds=seconds)
    return _("Writing the answer… {tokens} tokens · {rate} tokens/s · {seconds} s").format(
        tokens=progress.tokens, rate=rate, seconds=seconds)
