"""Why the HTTP gateway is not listening, as the person reads it: the command line's
``echo-desk gateway --http`` and Settings › Connected apps say the same sentence. (For the
person, so translated; what MCP clients are sent stays English.)"""

from __future__ import annotations

import errno

from echo_desk.i18n import N_, deferred

#: The causes a person can act on, in whole sentences.
_BECAUSE = {
    errno.EADDRINUSE: N_("The HTTP gateway could not start: another program already uses port {port} on "
                         "127.0.0.1. Choose another port, or end that program."),
    errno.EACCES: N_("The HTTP gateway could not start: the system does not let Echo Desk use port {port}. "
                     "Choose a port from 1024 to 65535."),
    errno.EPERM: N_("The HTTP gateway could not start: the system does not let Echo Desk use port {port}. "
                    "Choose a port from 1024 to 65535."),
    errno.EADDRNOTAVAIL: N_("The HTTP gateway could not start: this computer has no 127.0.0.1 address to "
                            "listen on."),
}


def listen_failure(port: int, error: OSError) -> str:
    """Why the HTTP gateway could not listen on 127.0.0.1:``port`` (``deferred``: shown again in
    the language of the moment); the system's own words only for a cause not listed."""
    if error.errno in _BECAUSE:
        return deferred(_BECAUSE[error.errno], port=port)
    return deferred(N_("The HTTP gateway could not start on port {port} ({error})."), port=port,
                    error=error.strerror or str(error) or type(error).__name__)
