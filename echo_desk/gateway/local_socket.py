"""Where the app listens for gateways, and who may connect: a Unix socket only its user reaches.

The socket lives in the runtime folder (``$XDG_RUNTIME_DIR/echo-desk``, else the platform's
runtime folder), in a 0700 folder, itself 0600; its name carries a hash of the settings folder
so test or portable set-ups with their own ``ECHO_DESK_CONFIG_DIR`` are separate apps. Every
connection's peer is checked to be the same user (``SO_PEERCRED`` on Linux, ``LOCAL_PEERCRED``
on macOS): file modes alone can be loosened by mistake, the kernel's answer cannot.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import stat
import struct
import sys
import warnings
from pathlib import Path

import platformdirs

from echo_desk.i18n import N_, for_person
from echo_desk.store.paths import APP_NAME, config_dir
from echo_desk.store.private import private_dir

#: ``ECHO_DESK_GATEWAY_SOCKET`` overrides the path (tests, several apps side by side).
SOCKET_ENV = "ECHO_DESK_GATEWAY_SOCKET"


def runtime_dir() -> Path:
    """``$XDG_RUNTIME_DIR/echo-desk`` (made 0700), or the platform's user runtime folder."""
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        folder = Path(base) / APP_NAME
    else:
        with warnings.catch_warnings():  # "XDG_RUNTIME_DIR is not set": known, and checked below
            warnings.simplefilter("ignore")
            folder = Path(platformdirs.user_runtime_dir(APP_NAME, appauthor=False))
    return private_dir(folder)


def check_private(folder: Path) -> None:
    """Refuse a socket folder someone else could have made or can enter (``/tmp/runtime-<uid>``
    may be anyone's): it must be a real folder of ours, closed to others."""
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
        mode = f"{stat.S_IMODE(st.st_mode):o}"
        raise OSError(for_person(  # English for a client; the person's language in `echo-desk gateway status`
            f"{folder} is not a private folder of this user (mode {mode}, owner {st.st_uid}); not using it for "
            "Echo Desk's socket",
            N_("{folder} is not a private folder of yours (mode {mode}, owner {owner}), so Echo Desk does not use "
               "a socket in it"), folder=str(folder), mode=mode, owner=st.st_uid))


def socket_path() -> Path:
    """The app's gateway socket for the current settings folder."""
    chosen = os.environ.get(SOCKET_ENV)
    if chosen:
        return Path(chosen)
    folder = hashlib.sha256(str(config_dir()).encode("utf-8")).hexdigest()[:12]
    return runtime_dir() / f"gateway-{folder}.sock"


def listening_socket(path: Path) -> socket.socket:
    """A bound, listening Unix socket at ``path``, 0600 in a 0700 folder. A socket file left by
    a crashed app (no one accepts on it) is replaced; a live one is refused (``OSError``)."""
    private_dir(path.parent)
    check_private(path.parent)
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise OSError(f"{path} exists and is not a socket; not touching it")
        if _answers(path):
            raise OSError(f"another Echo Desk already listens on {path}")
        path.unlink()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # created 0600: no moment in which someone else could connect
    try:
        sock.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(64)
    sock.setblocking(False)
    return sock


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end, or ``None`` where the kernel cannot say."""
    if sys.platform.startswith("linux") and hasattr(socket, "SO_PEERCRED"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return int(uid)
    if sys.platform == "darwin":
        with contextlib.suppress(OSError):
            # struct xucred: u_int cr_version; uid_t cr_uid; short cr_ngroups; gid_t cr_groups[16]
            raw = sock.getsockopt(0, 0x001, 76)  # SOL_LOCAL, LOCAL_PEERCRED
            return int(struct.unpack_from("2I", raw)[1])
    return None


def same_user(sock: socket.socket) -> bool:
    """Whether the peer is this process's user (where the kernel cannot tell: the 0700 folder
    and 0600 socket are all there is, and they are checked at start)."""
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()
