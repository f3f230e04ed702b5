"""First-start approval: the exact command line and env names, bound to a fingerprint."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from echo_desk.mcp import McpManager, ServerStartApprover, ServerStartRequest, ServerState
from echo_desk.mcp.config import parse_server
from echo_desk.tools import NullToolHost
from tests.mcp.helpers import MARK, TINY_SERVER, marked_pids


class ApprovingHost(NullToolHost):
    def __init__(self, answer: bool) -> None:
        self.answer = answer
        self.requests: list[ServerStartRequest] = []

    async def approve_server_start(self, request: ServerStartRequest) -> bool:
        self.requests.append(request)
        return self.answer


def tiny(env: dict | None = None):
    return parse_server(
        "t", {"command": sys.executable, "args": ["-S", str(TINY_SERVER)], "env": env or {"API_TOKEN": "secret-value"}}
    )


async def test_unapproved_server_waits_and_starts_nothing(make_manager, registry, mark) -> None:
    manager = make_manager({"t": tiny()}, approve=False)
    status = await manager.start("t")
    assert status.state is ServerState.AWAITING_APPROVAL
    assert marked_pids(mark) == [] and not registry.tools
    request = manager.start_request("t")
    assert request is not None
    assert request.command_line == (sys.executable, "-S", str(TINY_SERVER))
    assert request.env_names == ("API_TOKEN",)
    assert "secret-value" not in repr(request)  # names only, never values
    assert manager.approve_start("t", request.fingerprint)
    assert (await manager.start("t")).state is ServerState.CONNECTED


async def test_host_approver_is_asked_once(make_manager, settings_store) -> None:
    host = ApprovingHost(True)
    assert isinstance(host, ServerStartApprover)
    manager = make_manager({"t": tiny()}, approve=False, host=host)
    assert (await manager.start("t")).state is ServerState.CONNECTED
    assert len(host.requests) == 1
    assert settings_store.current.mcp_approved["t"] == host.requests[0].fingerprint
    await manager.restart("t")
    assert len(host.requests) == 1  # approved once, not on every start


async def test_declined_start_stays_waiting(make_manager, settings_store, mark) -> None:
    host = ApprovingHost(False)
    manager = make_manager({"t": tiny()}, approve=False, host=host)
    status = await manager.start("t")
    assert status.state is ServerState.AWAITING_APPROVAL and "declined" in status.detail
    assert "t" not in settings_store.current.mcp_approved
    assert marked_pids(mark) == []


async def test_config_change_invalidates_the_approval(settings_store, registry, mark) -> None:
    first = McpManager(settings_store, registry=registry, servers={"t": tiny()}, extra_env={MARK: mark})
    try:
        request = first.start_request("t")
        assert request is not None and first.approve_start("t", request.fingerprint)
        assert first.start_request("t") is None
    finally:
        await first.aclose()
    # Same server, one more env variable (even with the same command): approval needed again.
    changed = tiny(env={"API_TOKEN": "x", "EXTRA": "y"})
    second = McpManager(settings_store, registry=registry, servers={"t": changed}, extra_env={MARK: mark})
    try:
        again = second.start_request("t")
        assert again is not None and again.previous_fingerprint == request.fingerprint
        assert again.env_names == ("API_TOKEN", "EXTRA")
        assert (await second.start("t")).state is ServerState.AWAITING_APPROVAL
        # A stale approval (the dialog showed the old config) is refused.
        assert not second.approve_start("t", request.fingerprint)
    finally:
        await second.aclose()


def test_fingerprint_covers_command_args_env_names_and_url_not_values() -> None:
    base = tiny()
    assert replace(base, env={"API_TOKEN": "rotated"}).fingerprint() == base.fingerprint()
    assert replace(base, args=("-S", "other.py")).fingerprint() != base.fingerprint()
    assert replace(base, command="/bin/other").fingerprint() != base.fingerprint()
    remote = parse_server("r", {"type": "http", "url": "https://a.example/mcp"})
    assert replace(remote, url="https://b.example/mcp").fingerprint() != remote.fingerprint()


async def test_disabled_server_is_not_started(make_manager, mark) -> None:
    manager = make_manager({"t": replace(tiny(), enabled=False)})
    statuses = await manager.start_all()
    assert [s.state for s in statuses] == [ServerState.DISABLED]
    assert marked_pids(mark) == []


class WaitingHost(NullToolHost):
    """A person who has not answered the dialog yet (and whose dialog closes when withdrawn)."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()
        self.withdrawn = False

    async def approve_server_start(self, request: ServerStartRequest) -> bool:
        self.asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.withdrawn = True
            raise
        return False


@contextlib.asynccontextmanager
async def asking(registry, mark, folder: Path):  # type: ignore[no-untyped-def]
    """A manager starting ``t`` whose first-start question the person has not answered yet;
    yields the app's settings (on ``folder``), the host and the start in progress."""
    from echo_desk.store.settings import SettingsStore

    app_settings = SettingsStore.in_dir(folder)
    host = WaitingHost()
    manager = McpManager(app_settings, registry=registry, host=host, servers={"t": tiny()}, extra_env={MARK: mark})
    try:
        starting = asyncio.ensure_future(manager.start("t"))
        await asyncio.wait_for(host.asked.wait(), 10)
        yield app_settings, host, manager, starting
    finally:
        await manager.aclose()


async def test_an_approval_made_in_the_command_line_closes_the_open_question(registry, mark, tmp_path) -> None:
    from echo_desk.mcp import approvals
    from echo_desk.store.settings import SettingsStore

    async with asking(registry, mark, tmp_path) as (app_settings, host, manager, starting):
        request = manager.start_request("t")
        assert request is not None
        # `echo-desk mcp approve t` in a terminal: another process, the same settings file.
        assert approvals.record_approval(SettingsStore.in_dir(tmp_path), tiny(), request.fingerprint)
        assert app_settings.refresh()  # what the app's watch on the folder does
        status = await asyncio.wait_for(starting, 30)
        assert status.state is ServerState.CONNECTED
        assert host.withdrawn  # the dialog closed itself
        assert app_settings.current.mcp_approved["t"] == request.fingerprint


async def test_an_approval_of_another_command_line_does_not_answer_the_question(registry, mark, tmp_path) -> None:
    from echo_desk.store.settings import SettingsStore

    async with asking(registry, mark, tmp_path) as (app_settings, host, manager, starting):
        stale = tiny(env={"OTHER": "x"}).fingerprint()  # approved for what the file held before
        SettingsStore.in_dir(tmp_path).update(lambda s: s.mcp_approved.update({"t": stale}))
        assert app_settings.refresh()
        done, _ = await asyncio.wait({starting}, timeout=0.5)  # a bound on what must not happen
        assert not done and not host.withdrawn and marked_pids(mark) == []
        request = manager.start_request("t")
        assert request is not None and request.previous_fingerprint == stale  # the question stands
        SettingsStore.in_dir(tmp_path).update(lambda s: s.mcp_approved.update({"t": request.fingerprint}))
        assert app_settings.refresh()
        assert (await asyncio.wait_for(starting, 30)).state is ServerState.CONNECTED and host.withdrawn


def test_the_server_named_in_each_calls_approval_is_its_exact_argument_list() -> None:
    # Two different programs drew the same: "--root /home/me/my project" as one argument or as two
    # ("/home/me/my", "project"); the call's check that the server is still the one shown compared
    # the same ambiguous text. Quoted as a shell would, each argument reads as itself.
    from echo_desk.mcp.approvals import server_target

    one = parse_server("t", {"command": "npx", "args": ["-y", "notes", "--root", "/home/me/my project"]})
    two = parse_server("t", {"command": "npx", "args": ["-y", "notes", "--root", "/home/me/my", "project"]})
    assert server_target(one) == "npx -y notes --root '/home/me/my project'"
    assert server_target(two) == "npx -y notes --root /home/me/my project"
    assert server_target(one) != server_target(two)


async def test_the_server_a_call_names_follows_its_configuration_as_it_changes(make_manager) -> None:
    # The manager keeps each server's quoted command line (asked on every call); a server
    # reconfigured must be named as it is now, or a call approved for the old one would run.
    before = replace(tiny(), enabled=False)
    manager = make_manager({"t": before}, approve=False)
    assert manager.server_target("t") == shlex.join([sys.executable, "-S", str(TINY_SERVER)])
    after = replace(before, args=["-S", str(TINY_SERVER), "--other"])
    await manager.apply_config({"t": after})
    assert manager.server_target("t").endswith(" --other")
    await manager.apply_config({"t": before})
    assert not manager.server_target("t").endswith(" --other")
