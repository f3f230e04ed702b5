"""Files, folders and images the person attaches to a message (Qt-free).

- ``inspect(path, workspace)`` → an ``Attachment``: symlinks resolved first, then inside or
  outside the workspace; an image's bytes read within ``MAX_IMAGE_BYTES``.
- ``copy_into(attachment, workspace)`` — an outside file or folder copied into
  ``<workspace>/attachments/`` (within ``MAX_COPY_BYTES`` / ``MAX_COPY_FILES``).
- ``read_grant(attachment)`` — the conversation-scoped read grant (a ``Suggestion`` for
  ``PermissionEngine.grant``) that lets the tools read an outside path.
- ``granted_read_roots(grants, conversation_id)`` — the outside paths such grants opened.
- ``prompt_with(text, attachments)`` — the message text the model receives, naming each path.
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
from echo_desk.agent.attachments.reads import (
    GRANT_CALL_PREFIX,
    granted_read_roots,
    read_grant,
    read_roots_for,
)

__all__ = [
    "GRANT_CALL_PREFIX",
    "IMAGE_TYPES",
    "MAX_ATTACHMENTS",
    "MAX_COPY_BYTES",
    "MAX_COPY_FILES",
    "MAX_IMAGE_BYTES",
    "Attachment",
    "AttachmentError",
    "Problem",
    "copy_into",
    "granted_read_roots",
    "inspect",
    "prompt_with",
    "read_grant",
    "read_roots_for",
    "with_attachments_named",
]
