"""What a failed sandboxed command was probably refused, read from its exit and output.

The output is the command's own (English C-library messages such as ``Read-only file system``),
not Echo Desk prose: matching it is a hint for the person and the model, never a decision.
"""

from __future__ import annotations

import enum
import re


class Blocked(enum.StrEnum):
    """One kind of thing the sandbox refuses."""

    WRITE_OUTSIDE = "write_outside"
    NETWORK = "network"
    UNIX_SOCKET = "unix_socket"
    HIDDEN_PATH = "hidden_path"
    #: A mount point renamed, replaced or removed: the sandbox binds the folders above a hidden
    #: place (and ``.git``, the read-only places) onto themselves so that they stay put.
    KEPT_IN_PLACE = "kept_in_place"

    @property
    def english(self) -> str:
        """For the model (the card translates from the value)."""
        return _ENGLISH[self]


_ENGLISH = {
    Blocked.WRITE_OUTSIDE: "writing outside the workspace (the rest of the disk is read-only)",
    Blocked.NETWORK: "network access (the sandbox has no network, or the host is not an allowed domain)",
    Blocked.UNIX_SOCKET: "connecting to a local socket (D-Bus, docker.sock, ssh-agent...)",
    Blocked.HIDDEN_PATH: "reading a hidden folder (keys, credentials, Echo Desk's own data)",
    Blocked.KEPT_IN_PLACE: "moving, replacing or removing a folder the sandbox keeps in place (it holds a hidden "
                           "place, or is .git or a read-only place)",
}

_SIGNS: tuple[tuple[Blocked, re.Pattern[str]], ...] = (
    (Blocked.WRITE_OUTSIDE, re.compile(r"Read-only file system|EROFS", re.I)),
    (Blocked.NETWORK, re.compile(
        r"Network is unreachable|ENETUNREACH|Temporary failure in name resolution|Could not resolve host"
        r"|Name or service not known|getaddrinfo|proxy refused|403 Forbidden.*echo-desk-proxy", re.I)),
    (Blocked.UNIX_SOCKET, re.compile(r"AF_UNIX|docker\.sock|dbus|Cannot connect to the Docker daemon", re.I)),
    (Blocked.KEPT_IN_PLACE, re.compile(r"Device or resource busy|EBUSY", re.I)),
)


def what_was_blocked(exit_code: int | None, output: str) -> tuple[Blocked, ...]:
    """The kinds of refusal the output shows; empty when the command succeeded or shows none."""
    if exit_code == 0:
        return ()
    tail = output[-64 * 1024:]
    return tuple(kind for kind, sign in _SIGNS if sign.search(tail))
