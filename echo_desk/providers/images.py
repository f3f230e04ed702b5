"""Images in provider requests: the types each API takes and the base64 forms they use."""

from __future__ import annotations

import base64

from echo_desk.chat_messages import ImagePart

#: OpenAI-compatible servers and Anthropic take these four.
ALL_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
#: Gemini takes no GIF.
GEMINI_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp"})


def base64_text(image: ImagePart) -> str:
    return base64.b64encode(image.data).decode("ascii")


def data_url(image: ImagePart) -> str:
    """``data:<mime>;base64,…`` (OpenAI's ``image_url``; Ollama's ``/v1`` takes it too)."""
    return f"data:{image.mime};base64,{base64_text(image)}"
