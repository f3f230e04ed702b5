"""Detection: a typed reason and a fix for each system where the sandbox cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sandbox_helpers import requires_bwrap

from echo_desk import sandbox
from echo_desk.sandbox import detect, seccomp
from echo_desk.sandbox.detect import Status


def test_a_path_without_bwrap_says_it_is_missing_with_install_lines(tmp_path: Path) -> None:
    found = sandbox.availability(str(tmp_path))
    assert found.status is Status.BWRAP_MISSING and not found.available
    assert "apt install bubblewrap" in found.fix and "dnf install bubblewrap" in found.fix
    assert sandbox.availability(str(tmp_path)) is found  # asked once, cached


@requires_bwrap
def test_the_real_probe_finds_it_here() -> None:
    found = sandbox.availability()
    assert found.available and found.bwrap and found.fix == ""


def test_other_systems_are_unavailable_not_silently_unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    for platform in ("darwin", "win32"):
        monkeypatch.setattr(sys, "platform", platform)
        found = detect.probe()
        assert found.status is Status.UNSUPPORTED_OS
        assert found.reason == "Sandbox not available on this system."
        assert "sandbox-exec" in found.fix and "restricted token" in found.fix


@pytest.mark.parametrize(("files", "expected"), [
    ({".flatpak-info": "[Application]"}, Status.FLATPAK),
    ({"proc/version": "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)"}, Status.WSL1),
    ({"proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1\n"}, Status.APPARMOR_USERNS),
    ({"proc/sys/user/max_user_namespaces": "0\n"}, Status.USERNS_DISABLED),
    ({"proc/sys/kernel/unprivileged_userns_clone": "0\n"}, Status.USERNS_DISABLED),
    ({".dockerenv": ""}, Status.CONTAINER),
    ({"run/.containerenv": ""}, Status.CONTAINER),
    ({"proc/version": "Linux version 5.15.90.1-microsoft-standard-WSL2"}, Status.FAILED),
])
def test_a_failed_probe_is_classified_by_what_the_system_looks_like(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], expected: Status) -> None:
    monkeypatch.delenv("FLATPAK_ID", raising=False)
    monkeypatch.delenv("container", raising=False)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert detect.classify(tmp_path) is expected
    assert detect.FIXES[expected] or expected is Status.AVAILABLE


def test_ubuntu_fix_names_the_apparmor_profile_and_the_sysctl() -> None:
    fix = detect.FIXES[Status.APPARMOR_USERNS]
    assert "userns," in fix and "kernel.apparmor_restrict_unprivileged_userns=0" in fix


def test_every_status_has_a_reason_and_a_fix_entry() -> None:
    assert set(detect.REASONS) == set(Status) == set(detect.FIXES)


def test_seccomp_program_per_architecture() -> None:
    x86 = seccomp.program("x86_64")
    arm = seccomp.program("aarch64")
    assert len(x86) % 8 == 0 and len(arm) % 8 == 0 and x86 != arm
    # The first instruction loads the architecture field; the second compares it.
    assert x86[:2] == b"\x20\x00" and int.from_bytes(x86[12:16], sys.byteorder) == 0xC000003E
    with pytest.raises(seccomp.UnsupportedArchitecture):
        seccomp.program("mips")


def test_the_start_up_check_probes_once_off_the_calling_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    seen: list[str] = []

    def fake_probe(path: str | None = None) -> detect.Availability:
        seen.append(threading.current_thread().name)
        return detect.Availability(Status.BWRAP_MISSING)

    monkeypatch.setattr(detect, "probe", fake_probe)
    monkeypatch.setattr(detect, "_at_start", None)
    sandbox.forget()
    try:
        thread = sandbox.check_at_start()
        assert sandbox.check_at_start() is thread  # once per process
        thread.join(timeout=30)
        assert seen == ["sandbox-probe"]
        assert sandbox.availability().status is Status.BWRAP_MISSING and seen == ["sandbox-probe"]  # cached
        assert detect.Availability(Status.BWRAP_MISSING).english().startswith("Sandbox unavailable: bubblewrap")
    finally:
        sandbox.forget()


def test_the_cli_starts_the_check_before_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    from echo_desk.cli import main as cli

    started: list[bool] = []
    monkeypatch.setattr(sandbox, "check_at_start", lambda: started.append(True))
    monkeypatch.setattr(cli, "_run_gui", lambda argv: 0 if started else 99)
    assert cli.main([]) == 0 and started == [True]


def test_a_machine_the_filter_does_not_know_is_a_clear_unavailability(monkeypatch: pytest.MonkeyPatch) -> None:
    """No seccomp program for the processor: the sandbox says so, with the machine's name, as for
    any other system where it cannot run (before, the probe said it worked and every sandboxed
    start ended in ``UnsupportedArchitecture``, an internal error)."""
    import platform

    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    found = detect.probe()
    assert found.status is Status.UNSUPPORTED_MACHINE and not found.available
    assert found.english() == ("Sandbox unavailable: The sandbox has no system-call filter for this processor "
                               "(riscv64). The sandbox runs on x86-64 and 64-bit ARM (aarch64) processors; here "
                               "commands run with all your rights, so Echo Desk asks before each one.")
