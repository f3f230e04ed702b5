"""One Echo Desk per person: a second launch asks the first to come to the front, then exits.

Who is first is decided by a lock on a file in the settings folder (``flock``: the kernel lets
it go when the process ends, even by a crash, so a stale lock cannot block a start). The first
then listens on a ``QLocalServer`` named per user and per settings folder (so portable or test
set-ups with their own ``ECHO_DESK_CONFIG_DIR`` are separate apps; only the same user may
connect); a second launch finds the lock taken and connects to say "come forward". Taking the
lock is cheap and happens before the first frame; Qt's network module loads only to listen,
right after it, or in a second launch.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from echo_desk.store.paths import config_dir

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalServer

#: What a second launch sends.
ACTIVATE = b"activate\n"
#: How long a second launch waits for the first to answer. The first may still be starting
#: (it holds the lock before it listens), so a second launch keeps trying until then.
CONNECT_MS = 5000
#: The lock's file, in the settings folder.
LOCK_NAME = "instance.lock"


def server_name() -> str:
    """The socket name: per user (uid and name) and per settings folder."""
    import getpass
    import hashlib

    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = hashlib.sha256(str(config_dir()).encode("utf-8")).hexdigest()[:12]
    user = hashlib.sha256(getpass.getuser().encode("utf-8")).hexdigest()[:8]
    return f"echo-desk-{uid}-{user}-{folder}"


class SingleInstance(QObject):
    """``claim()`` once at start: ``True`` → we are the first (call ``listen()`` once the window
    is up; ``activated`` fires when another launch asks for the window); ``False`` → another
    Echo Desk of this settings folder runs (and was asked to come forward, see ``answered``)."""

    activated = Signal()

    def __init__(self, name: str | None = None, lock_path: Path | None = None) -> None:
        super().__init__()
        self._name = name
        self.lock_path = lock_path or config_dir() / LOCK_NAME
        self.server: QLocalServer | None = None
        self._lock: int | None = None
        #: After a ``claim()`` that found another instance: whether it answered.
        self.answered = False

    @property
    def name(self) -> str:
        if self._name is None:
            self._name = server_name()
        return self._name

    def claim(self) -> bool:
        if self._take_lock():
            return True
        self.answered = self._tell_first()
        return False

    def _take_lock(self) -> bool:
        import fcntl

        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by children
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        self._lock = fd
        return True

    def listen(self) -> None:
        """Answer later launches. Any socket already under our name is a crashed instance's: we
        hold the lock, so no live Echo Desk of this folder can be listening on it."""
        from PySide6.QtNetwork import QLocalServer

        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self.server.newConnection.connect(self._on_connection)
        if not self.server.listen(self.name):
            QLocalServer.removeServer(self.name)
            self.server.listen(self.name)  # still not: run anyway (only focusing is lost)

    def _tell_first(self) -> bool:
        from PySide6.QtNetwork import QLocalSocket

        deadline = time.monotonic() + CONNECT_MS / 1000
        while True:
            socket = QLocalSocket()
            socket.connectToServer(self.name)
            if socket.waitForConnected(200):
                socket.write(ACTIVATE)
                socket.flush()
                socket.waitForBytesWritten(CONNECT_MS)
                socket.disconnectFromServer()
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)  # the first holds the lock but is not listening yet: it is starting

    def _on_connection(self) -> None:
        # A second launch writes its one line right after connecting: read it here, then let the
        # socket go (no slots on it that could outlive it).
        assert self.server is not None
        while (socket := self.server.nextPendingConnection()) is not None:
            if not socket.bytesAvailable():
                socket.waitForReadyRead(CONNECT_MS)
            wanted = bytes(socket.readAll().data()).startswith(ACTIVATE.strip())
            socket.abort()
            socket.deleteLater()
            if wanted:
                self.activated.emit()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        if self._lock is not None:
            os.close(self._lock)  # the lock goes with it
            self._lock = None
