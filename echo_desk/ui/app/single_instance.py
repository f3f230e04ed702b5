"""One Echo Desk per person: a second launch asks the first to come to the front, then exits.

The first instance listens on a ``QLocalServer`` named per user and per settings folder (so
portable or test set-ups with their own ``ECHO_DESK_CONFIG_DIR`` are separate apps); only the
same user may connect. A socket file left behind by a crashed first instance is detected (no one
answers) and removed, so it never blocks a start.
"""

from __future__ import annotations

import getpass
import hashlib
import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from echo_desk.store.paths import config_dir

#: What a second launch sends.
ACTIVATE = b"activate\n"
#: How long a second launch waits for the first to answer (it is local: a live one answers at once).
CONNECT_MS = 1000


def server_name() -> str:
    """The socket name: per user (uid and name) and per settings folder."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = hashlib.sha256(str(config_dir()).encode("utf-8")).hexdigest()[:12]
    user = hashlib.sha256(getpass.getuser().encode("utf-8")).hexdigest()[:8]
    return f"echo-desk-{uid}-{user}-{folder}"


class SingleInstance(QObject):
    """``claim()`` once at start: ``True`` → we are the first (``activated`` fires when another
    launch asks for the window); ``False`` → the first was told to come forward, so exit."""

    activated = Signal()

    def __init__(self, name: str | None = None) -> None:
        super().__init__()
        self.name = name or server_name()
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)

    def claim(self) -> bool:
        if self._tell_first():
            return False
        if self.server.listen(self.name):
            return True
        # No one answered, yet the name is taken: the socket of a crashed instance. Remove it.
        QLocalServer.removeServer(self.name)
        if self.server.listen(self.name):
            return True
        # Still not: run anyway rather than refuse to start (only focusing is lost).
        return True

    def _tell_first(self) -> bool:
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(CONNECT_MS):
            return False
        socket.write(ACTIVATE)
        socket.flush()
        socket.waitForBytesWritten(CONNECT_MS)
        socket.disconnectFromServer()
        return True

    def _on_connection(self) -> None:
        # A second launch writes its one line right after connecting: read it here, then let the
        # socket go (no slots on it that could outlive it).
        while (socket := self.server.nextPendingConnection()) is not None:
            if not socket.bytesAvailable():
                socket.waitForReadyRead(CONNECT_MS)
            wanted = bytes(socket.readAll().data()).startswith(ACTIVATE.strip())
            socket.abort()
            socket.deleteLater()
            if wanted:
                self.activated.emit()

    def close(self) -> None:
        self.server.close()
