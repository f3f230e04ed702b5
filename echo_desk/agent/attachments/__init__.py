"""Files, folders and images the person attaches to a message (Qt-free).

- ``inspect(path, workspace)`` → an ``Attachment``: symlinks resolved first, then inside or
  outside the workspace; an image's bytes read within ``MAX_IMAGE_BYTES``.
- ``copy_into(attachment, workspace)`` — an outside file or folder copied into
  ``<workspace>/attachments/`` (within ``MAX_COPY_BYTES`` / ``MAX_COPY_FILES``).
- ``prompt_with(text, refs)`` / ``with_attachments_named(message)`` — the message text the model
  receives, naming each path.

Read grants for outside paths live in ``echo_desk.agent.attachments.reads`` (import it from
there: it loads the permission engine, which the window must not load before its first frame).
"""

from echo_desk.agent.attachments.copying import copy_into
from echo_desk.agent.attachments.core import (
    IMAGE_TYPES,
    MAX_ATTACHMENTS,
    MAX_COPY_BYTES,
    MAX_COPY_FILES,
    MAX_IMAGE_BYTES,
    Attachment,
    AttachmentError,
    Problem,
    inspect,
    prompt_with,
    with_attachments_named,
)

__all__ = [
    "IMAGE_TYPES",
    "MAX_ATTACHMENTS",
    "MAX_COPY_BYTES",
    "MAX_COPY_FILES",
    "MAX_IMAGE_BYTES",
    "Attachment",
    "AttachmentError",
    "Problem",
    "copy_into",
    "inspect",
    "prompt_with",
    "with_attachments_named",
]
