"""Read access to an outside attachment: a conversation-scoped ``read`` grant in the permission
engine (listed and revocable in Settings › Permissions › Grants), and the roots it opens to the
read tools."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from echo_desk.agent.attachments.core import Attachment
from echo_desk.agent.permissions.model import Grant, GrantScope, Suggestion

#: ``created_by_call`` of the grants made for attachments (the rest of it is the path's name).
GRANT_CALL_PREFIX = "attachment:"

_GLOB_CHARS = re.compile(r"([*?\[\]\\!])")


def _escape(path: str) -> str:
    """A literal path as a gitignore pattern (the rules' path grammar)."""
    escaped = _GLOB_CHARS.sub(r"\\\1", path)
    return escaped[:-1] + "\\ " if escaped.endswith(" ") else escaped


def read_grant(attachment: Attachment) -> Suggestion:
    """The ``read`` rule for this one path (a folder: everything below it), for
    ``PermissionEngine.grant(..., GrantScope.CONVERSATION, call_id=GRANT_CALL_PREFIX + name)``."""
    pattern = "/" + _escape(attachment.real.as_posix())
    if attachment.is_dir:
        pattern = pattern.rstrip("/") + "/**"
    return Suggestion(tool="read", pattern=pattern, label=str(attachment.real))


def _unescape(pattern: str) -> str:
    return re.sub(r"\\(.)", r"\1", pattern)


def granted_read_roots(grants: Iterable[Grant], conversation_id: str) -> tuple[Path, ...]:
    """The outside paths attachment grants of ``conversation_id`` opened to the read tools. The
    engine still decides each read (deny and floor rules still apply)."""
    roots: list[Path] = []
    for grant in grants:
        if (grant.tool != "read" or grant.scope is not GrantScope.CONVERSATION or not grant.pattern
                or grant.conversation_id != conversation_id
                or not grant.created_by_call.startswith(GRANT_CALL_PREFIX)
                or not grant.pattern.startswith("//")):
            continue
        text = grant.pattern[1:]
        if text.endswith("/**"):
            text = text[:-3]
        roots.append(Path(_unescape(text)))
    return tuple(dict.fromkeys(roots))


def read_roots_for(grants: Iterable[Grant], conversation_id: str, requested: object) -> tuple[Path, ...]:
    """The extra root a read tool needs for the path it was asked to read (``requested``, as the
    model gave it): a granted folder that holds it, or a granted file's folder when it *is* that
    file (never for its neighbours). Empty when no attachment grant covers it."""
    if not isinstance(requested, str) or not os.path.isabs(requested) or "\x00" in requested:
        return ()
    real = Path(os.path.realpath(requested))
    for grant in grants:
        roots = granted_read_roots([grant], conversation_id)
        if not roots:
            continue
        root = roots[0]
        if grant.pattern is not None and grant.pattern.endswith("/**"):
            if real == root or real.is_relative_to(root):
                return (root,)
        elif real == root:
            return (root.parent,)
    return ()
