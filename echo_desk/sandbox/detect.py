"""Does the sandbox work on this system? Asked once (``bwrap --unshare-user --unshare-net
--ro-bind / / true``), cached, with a typed reason and the fix for the system found."""

from __future__ import annotations

import enum
import os
import platform
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from echo_desk.tools import N_

PROBE_TIMEOUT = 10.0


class Status(enum.StrEnum):
    AVAILABLE = "available"
    BWRAP_MISSING = "bwrap_missing"
    APPARMOR_USERNS = "apparmor_userns"
    USERNS_DISABLED = "userns_disabled"
    CONTAINER = "container"
    WSL1 = "wsl1"
    FLATPAK = "flatpak"
    UNSUPPORTED_OS = "unsupported_os"
    UNSUPPORTED_MACHINE = "unsupported_machine"
    FAILED = "failed"


#: Shown to the person (translated at the edge with ``_()``); ``{detail}`` is bwrap's own words.
REASONS: dict[Status, str] = {
    Status.AVAILABLE: N_("The sandbox works on this system (bubblewrap)."),
    Status.BWRAP_MISSING: N_("bubblewrap (bwrap) is not installed."),
    Status.APPARMOR_USERNS: N_("This system (Ubuntu 23.10 or later) restricts user namespaces through AppArmor."),
    Status.USERNS_DISABLED: N_("User namespaces are switched off in this system's kernel settings."),
    Status.CONTAINER: N_("Echo Desk runs inside a container that does not allow user namespaces."),
    Status.WSL1: N_("WSL 1 has no user namespaces."),
    Status.FLATPAK: N_("Echo Desk runs inside Flatpak, which does not allow a nested sandbox."),
    Status.UNSUPPORTED_OS: N_("Sandbox not available on this system."),
    Status.UNSUPPORTED_MACHINE: N_("The sandbox has no system-call filter for this processor ({detail})."),
    Status.FAILED: N_("bubblewrap could not start a sandbox: {detail}"),
}

#: The line the approval dialog, the tool card and the settings page lead with when it does not
#: work; ``{reason}`` is the translated ``REASONS`` entry.
UNAVAILABLE = N_("Sandbox unavailable: {reason}")

FIXES: dict[Status, str] = {
    Status.AVAILABLE: "",
    Status.BWRAP_MISSING: N_(
        "Install it: Debian/Ubuntu 'sudo apt install bubblewrap', Fedora 'sudo dnf install bubblewrap', "
        "Arch 'sudo pacman -S bubblewrap', openSUSE 'sudo zypper install bubblewrap'; then restart Echo Desk."),
    Status.APPARMOR_USERNS: N_(
        "Give bwrap an AppArmor profile that allows 'userns,' (a file /etc/apparmor.d/bwrap for /usr/bin/bwrap, "
        "then 'sudo systemctl reload apparmor'), or allow it for the whole system with "
        "'sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0'."),
    Status.USERNS_DISABLED: N_(
        "Allow them: 'sudo sysctl user.max_user_namespaces=15000' (and on older Debian "
        "'sudo sysctl kernel.unprivileged_userns_clone=1')."),
    Status.CONTAINER: N_("Run Echo Desk outside the container, or start the container with user namespaces allowed."),
    Status.WSL1: N_("Convert the distribution to WSL 2: 'wsl --set-version <distribution> 2'."),
    Status.FLATPAK: N_("Install Echo Desk from your distribution or with pip instead of Flatpak."),
    Status.UNSUPPORTED_OS: N_(
        "macOS (a sandbox-exec profile) and Windows (a restricted token) are not implemented yet: "
        "commands run with all your rights, so Echo Desk asks before each one."),
    Status.UNSUPPORTED_MACHINE: N_(
        "The sandbox runs on x86-64 and 64-bit ARM (aarch64) processors; here commands run with all your rights, "
        "so Echo Desk asks before each one."),
    Status.FAILED: N_("Check that 'bwrap --unshare-user --unshare-net --ro-bind / / true' works in a terminal."),
}


@dataclass(frozen=True)
class Availability:
    """The answer of the probe. ``detail`` is bwrap's own message (untrusted-free, but raw)."""

    status: Status
    bwrap: str | None = None
    detail: str = ""

    @property
    def available(self) -> bool:
        return self.status is Status.AVAILABLE

    @property
    def reason(self) -> str:
        """English template (an ``N_`` message id) saying why; format with ``detail``."""
        return REASONS[self.status]

    @property
    def fix(self) -> str:
        """English template (an ``N_`` message id) saying how to fix it on this system."""
        return FIXES[self.status]

    def english(self) -> str:
        """One line for the model and the logs."""
        reason = self.reason.format(detail=self.detail)
        if not self.available:
            reason = UNAVAILABLE.format(reason=reason)
        return f"{reason} {self.fix}".strip()


_cache: dict[str | None, Availability] = {}
_lock = threading.Lock()


def availability(path: str | None = None, *, refresh: bool = False) -> Availability:
    """The cached probe for ``path`` (a ``PATH`` value; ``None``: this process's)."""
    with _lock:
        if refresh or path not in _cache:
            _cache[path] = probe(path)
        return _cache[path]


_at_start: threading.Thread | None = None


def check_at_start() -> threading.Thread:
    """Run the probe once on a daemon thread, so the app and the CLI know at start whether the
    sandbox works (the window never waits for bwrap). Later ``availability()`` calls get the
    cached answer, or wait for this probe if it is still running. Idempotent per process."""
    global _at_start
    with _lock:
        if _at_start is None:
            _at_start = threading.Thread(target=availability, name="sandbox-probe", daemon=True)
            _at_start.start()
        return _at_start


def forget() -> None:
    """Drop the cached answers (after the person installed bwrap or changed a sysctl)."""
    with _lock:
        _cache.clear()


def probe(path: str | None = None) -> Availability:
    """Run the probe now (no cache): finds ``bwrap`` on ``path`` and tries a minimal sandbox."""
    if not sys.platform.startswith("linux"):
        return Availability(Status.UNSUPPORTED_OS)
    # Without the filter a command could open Unix sockets (D-Bus, an ssh-agent) and more: a
    # sandbox without it is not offered (``seccomp.program`` would refuse at every start).
    from echo_desk.sandbox import seccomp  # (here: asking whether the sandbox works loads no filter code)

    machine = platform.machine()
    if machine not in seccomp.ARCHES:
        return Availability(Status.UNSUPPORTED_MACHINE, detail=machine)
    bwrap = shutil.which("bwrap", path=path)
    if bwrap is None:
        return Availability(Status.BWRAP_MISSING)
    try:
        done = subprocess.run(
            [bwrap, "--unshare-user", "--unshare-net", "--ro-bind", "/", "/", "true"],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT, check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(classify(), bwrap, str(exc))
    if done.returncode == 0:
        return Availability(Status.AVAILABLE, bwrap)
    detail = done.stderr.decode("utf-8", "replace").strip()[:500]
    return Availability(classify(), bwrap, detail)


def classify(root: Path = Path("/")) -> Status:
    """Why a probe failed, from what this system looks like (``root`` is for tests)."""
    if (root / ".flatpak-info").exists() or os.environ.get("FLATPAK_ID"):
        return Status.FLATPAK
    version = _read(root / "proc/version")
    if "Microsoft" in version and "WSL2" not in version:
        return Status.WSL1
    if _read(root / "proc/sys/kernel/apparmor_restrict_unprivileged_userns").strip() == "1":
        return Status.APPARMOR_USERNS
    if (_read(root / "proc/sys/user/max_user_namespaces").strip() == "0"
            or _read(root / "proc/sys/kernel/unprivileged_userns_clone").strip() == "0"):
        return Status.USERNS_DISABLED
    if ((root / ".dockerenv").exists() or (root / "run/.containerenv").exists()
            or os.environ.get("container")):
        return Status.CONTAINER
    return Status.FAILED


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
