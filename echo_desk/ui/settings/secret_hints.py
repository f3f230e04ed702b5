"""What a secret field says about where its value is kept: the system keyring, or, on a machine
without one, this process's memory until Echo Desk exits. A field never claims the keyring keeps
a value that will be forgotten."""

from __future__ import annotations

from collections.abc import Iterable

from echo_desk.i18n import _, list_text
from echo_desk.tools.secrets import secrets_kept


def saved_hint() -> str:
    """The placeholder of a field whose secret is saved."""
    return _("Saved in the system keyring") if secrets_kept() else _("Saved until Echo Desk exits (no system keyring)")


def unset_hint() -> str:
    """The placeholder of a field with no secret yet."""
    return _("Not set") if secrets_kept() else _("Not set; kept until Echo Desk exits (no system keyring)")


def no_keyring_for_values() -> str:
    """Why a "store in keyring" choice is off: the value stays in mcp.json (readable by you only)."""
    return _("This machine has no system keyring: a value stored there would be forgotten when Echo Desk "
             "exits, so values stay in Echo Desk's mcp.json, which only you can read.")


def left_in_file(keys: Iterable[str]) -> str:
    return _("left in mcp.json (no system keyring): {keys}").format(keys=list_text(keys))
