"""The messages of a conversation: what the person, the model and the tools said, with the
calls, images and attached paths they carry.

Plain values shared by every layer that handles a conversation: the engine sends them to a model
(``agent.model``), the providers translate them, the store keeps them, the UI shows them. So this
module imports nothing of ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """A complete call the model asked for. ``arguments`` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str
    #: What ``arguments`` reads as, when the caller already had it as an object (a gateway
    #: client's request, read from its JSON line): the dispatcher takes it as read instead of
    #: reading the text again (a few MB of arguments took milliseconds). Never kept or compared:
    #: the text is the call.
    parsed: dict[str, Any] | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True)
class ImagePart:
    """An image the person attached to a message: the bytes as read, and their MIME type
    (``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp``)."""

    mime: str
    data: bytes
    name: str = ""


@dataclass(frozen=True, kw_only=True)
class AttachmentRef:
    """A path the person attached to a message, as the model is told about it: ``mention`` is
    ``@relative/path`` inside the workspace or the resolved absolute path outside it."""

    mention: str
    is_dir: bool = False
    is_image: bool = False
    inside: bool = True


@dataclass(frozen=True, kw_only=True)
class ResourcePart:
    """An MCP resource the person attached to a message: ``text`` goes into the turn (an image
    resource rides in ``ChatMessage.images`` instead, named by its URI)."""

    server: str
    uri: str
    mime: str = ""
    text: str = ""
    name: str = ""


@dataclass(frozen=True, kw_only=True)
class ChatMessage:
    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    name: str = ""
    #: Images sent with a user message; a provider that cannot send them refuses the request
    #: (``images_refused``), it never drops them.
    images: tuple[ImagePart, ...] = ()
    #: Paths attached to a user message; ``content`` stays what the person typed, and the
    #: session names these paths to the model (``attachments.with_attachments_named``).
    attachments: tuple[AttachmentRef, ...] = ()
    #: MCP resources the person attached (never read by the model on its own).
    resources: tuple[ResourcePart, ...] = ()
