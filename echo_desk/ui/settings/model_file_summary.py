"""What a chosen ``.gguf`` says about itself, and how Echo Desk will run it, in one line.

The header is read and the profile chosen by the engine (``providers.local.profiles.
profile_for_file``) off the UI thread; this module only words the typed answer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from echo_desk.i18n import _, ngettext
from echo_desk.providers.local.gguf import GgufInfo, read_gguf_info
from echo_desk.providers.local.profiles import ModelProfile, profile_for_file
from echo_desk.ui.core import marshal


def summary_text(info: GgufInfo, profile: ModelProfile) -> str:
    parts = [info.name or info.architecture or _("unnamed model")]
    if info.parameter_count:
        parts.append(_("{n} million weights").format(n=f"{info.parameter_count / 1e6:,.0f}"))
    if info.context_length:
        parts.append(ngettext("trained for {n} token, run with {m}", "trained for {n} tokens, run with {m}",
                              info.context_length).format(n=f"{info.context_length:,}", m=f"{profile.context_size:,}"))
    parts.append(_("tool calls checked by a grammar") if profile.structured_calls
                 else _("the file's own chat template"))
    if profile.hidden_tools:
        parts.append(_("small model: some tools are not offered"))
    return " · ".join(parts)


def describe_file(path: Path, context_size: int, show: Callable[[str], None]) -> None:
    """Read ``path``'s header in the background and ``show`` the summary (or why it cannot)."""
    def read() -> str:
        info = read_gguf_info(path)
        return summary_text(info, profile_for_file(info, context_size=context_size))

    marshal.BackgroundOp(read).on_success(show).on_failure(
        lambda exc: show(_("Its header could not be read ({error}); the configured profile is used.").format(
            error=exc))).run()
