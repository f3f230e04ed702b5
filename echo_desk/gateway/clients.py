"""Who calls: the names MCP clients are started with (``echo-desk gateway --client NAME``).

The name keys the client's profile (``Settings.gateway.clients``), labels its scope (rules can
name it: ``client = "cursor"``), heads its approvals and is written in the audit log. It is
chosen by whoever wrote the client's configuration, so it is checked (a short word, never one
that reads as Echo Desk itself or the person) and shown as plain text; a known client gets its
product name in dialogs.
"""

from __future__ import annotations

import re

from echo_desk.common.client_names import KNOWN_CLIENTS
from echo_desk.common.visible_text import visible
from echo_desk.i18n import N_, deferred

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
#: Names (without ``. _ -``) that would read as Echo Desk itself or as the person in the
#: client's dialogs, window titles and notifications ("echo-desk asks: approve …?").
_NOT_A_CLIENT = frozenset({"you", "me", "person", "user", "owner", "system", "admin", "root"})
_OWN_NAME = "echodesk"


class BadClientName(ValueError):
    """A client name that is not a short word of letters, digits, ``.``, ``_`` or ``-``."""


def client_key(name: str) -> str:
    """``name`` as a profile key: lower case, 1–64 of ``a-z 0-9 . _ -``; ``BadClientName`` else."""
    key = name.strip().lower()
    if not _NAME.fullmatch(key):
        raise BadClientName(deferred(
            N_("client name “{name}” is not usable: use 1 to 64 letters, digits, “.”, “_” or “-” "
               "(for example: cursor, claude-code, vscode)"), name=visible(name, one_line=True)))
    bare = re.sub(r"[._-]", "", key)
    if bare.startswith(_OWN_NAME) or bare in _NOT_A_CLIENT:
        raise BadClientName(deferred(
            N_("client name “{name}” is not usable: in its approvals it would read as Echo Desk itself or you; "
               "use the client's own name (for example: cursor, claude-code, vscode)"),
            name=visible(name, one_line=True)))
    return key


def display_name(key: str) -> str:
    """How dialogs name the client: the product's own name when known, else the key itself."""
    return KNOWN_CLIENTS.get(key, key)
