"""A server's prompts, offered in the message box as ``/server:prompt`` (never sent on their own).

The names, descriptions and arguments are the server's: the UI shows them as plain text with
hidden characters made visible. The text a prompt produces fills the message box for the person
to read and send; hidden characters in it are removed and named (they could carry instructions
the person cannot see).
"""

from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types

from echo_desk.mcp.sanitize import strip_hidden

#: What one prompt's text may put in the message box.
MAX_PROMPT_CHARS = 200_000


@dataclass(frozen=True, kw_only=True)
class PromptArgumentInfo:
    name: str
    title: str = ""
    description: str = ""
    required: bool = False


@dataclass(frozen=True, kw_only=True)
class PromptInfo:
    """One prompt as the server describes it (raw text: shown with ``visible``)."""

    server: str
    name: str
    title: str = ""
    description: str = ""
    arguments: tuple[PromptArgumentInfo, ...] = ()

    @property
    def command(self) -> str:
        """What the person types: ``/server:prompt``."""
        return f"/{self.server}:{self.name}"


@dataclass(frozen=True, kw_only=True)
class PromptText:
    """A prompt's result for the message box: its text, and the hidden characters taken out."""

    text: str
    removed: tuple[str, ...] = ()
    truncated: bool = False


def info_of(server: str, prompt: types.Prompt) -> PromptInfo:
    return PromptInfo(
        server=server, name=prompt.name, title=prompt.title or "", description=(prompt.description or "")[:4000],
        arguments=tuple(PromptArgumentInfo(name=a.name, title=a.title or "", description=(a.description or "")[:2000],
                                           required=bool(a.required)) for a in (prompt.arguments or [])),
    )


def _content_text(content: object) -> str:
    if isinstance(content, types.TextContent):
        return content.text
    if isinstance(content, types.EmbeddedResource) and isinstance(content.resource, types.TextResourceContents):
        return content.resource.text
    if isinstance(content, types.EmbeddedResource):
        return f"[{content.resource.mime_type or 'binary'} resource {content.resource.uri}]"
    if isinstance(content, types.ResourceLink):
        return f"[resource {content.uri}]"
    return f"[{getattr(content, 'type', 'other')} content]"


def text_of(result: types.GetPromptResult) -> PromptText:
    """The messages' text, one paragraph each, hidden characters removed, capped."""
    text = "\n\n".join(_content_text(message.content) for message in result.messages)
    truncated = len(text) > MAX_PROMPT_CHARS
    clean, removed = strip_hidden(text[:MAX_PROMPT_CHARS])
    return PromptText(text=clean, removed=tuple(removed), truncated=truncated)
