"""Through the real dispatcher: when a command asks, runs without asking, or needs the person
themselves (outside the sandbox, sandbox unavailable, Echo Desk's own folders)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import Jail, requires_bwrap

from echo_desk import sandbox
from echo_desk.agent.host import ApprovalChoice, ScriptedHost
from echo_desk.agent.model import ToolCall
from echo_desk.agent.permissions import sandbox_toggle
from echo_desk.agent.scope import Scope
from echo_desk.runtime import Runtime
from echo_desk.store.settings import SandboxMode, SettingsStore, ToolPolicy, WorkspaceSandbox
from echo_desk.tools import SANDBOX_TARGET, Placement, Protection, ProtectionReason


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = Runtime.create(settings_store=SettingsStore.in_dir(tmp_path / "cfg"), data_dir=tmp_path / "data",
                        with_plugins=False)
    yield rt
    rt.close()


def _set(runtime: Runtime, workspace: Path, **fields: object) -> None:
    def change(s):  # type: ignore[no-untyped-def]
        s.sandbox.workspaces = {**s.sandbox.workspaces, str(workspace): WorkspaceSandbox(**fields)}
    runtime.settings.update(change)


async def _call(runtime: Runtime, workspace: Path, args: dict[str, object], choice: ApprovalChoice,
                cid: str = "c1") -> tuple[object, ScriptedHost]:
    host = ScriptedHost(choice=choice)
    scope = Scope(id="s", workspace_roots=(workspace,))
    envelope = await runtime.dispatcher.execute_tool(ToolCall(id=cid, name="run_command", arguments=json.dumps(args)),
                                                     scope, host)
    return envelope, host


def _where(host: ScriptedHost) -> list[tuple[str, str]]:
    return [(t.value, t.full_detail) for r in host.requests for t in r.targets if t.kind == SANDBOX_TARGET]


@requires_bwrap
async def test_sandboxed_command_asks_by_default_and_says_it_runs_in_the_sandbox(runtime: Runtime, jail: Jail) -> None:
    envelope, host = await _call(runtime, jail.workspace, {"command": "echo hi"}, ApprovalChoice.ALLOW_ONCE)
    assert envelope.ok and envelope.metadata["sandbox"]["sandboxed"] is True  # type: ignore[attr-defined]
    assert _where(host) == [(Placement.IN_SANDBOX, "network: none")]


@requires_bwrap
async def test_run_without_asking_lets_sandboxed_commands_run_but_never_outside(runtime: Runtime, jail: Jail) -> None:
    sandbox_toggle.set_on(runtime.permissions, jail.workspace, True)
    envelope, host = await _call(runtime, jail.workspace, {"command": "echo hi"}, ApprovalChoice.DENY)
    assert envelope.ok and host.requests == []  # type: ignore[attr-defined]
    # The model asks to leave the sandbox: the person is asked, and a "no" means nothing ran.
    envelope, host = await _call(runtime, jail.workspace, {"command": "touch left", "outside_sandbox": True},
                                 ApprovalChoice.DENY, "c2")
    assert not envelope.ok and not (jail.workspace / "left").exists()  # type: ignore[attr-defined]
    assert _where(host)[0][0] == Placement.OUTSIDE_SANDBOX and "with all your rights" in _where(host)[0][1]


@requires_bwrap
async def test_outside_the_sandbox_is_not_covered_by_always_allow(runtime: Runtime, jail: Jail) -> None:
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    envelope, host = await _call(runtime, jail.workspace, {"command": f"echo x > {jail.outside}/o",
                                                           "outside_sandbox": True}, ApprovalChoice.ALLOW_ONCE)
    assert len(host.requests) == 1 and envelope.ok  # type: ignore[attr-defined]
    assert (jail.outside / "o").read_text() == "x\n"
    assert envelope.metadata["sandbox"]["sandboxed"] is False  # type: ignore[attr-defined]


async def test_without_bwrap_every_command_asks_even_when_always_allowed(
        runtime: Runtime, jail: Jail, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(jail.base / "no-bwrap-here"))
    sandbox.forget()
    assert sandbox.availability().status is sandbox.Status.BWRAP_MISSING
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    sandbox_toggle.set_on(runtime.permissions, jail.workspace, True)
    for n in range(2):
        envelope, host = await _call(runtime, jail.workspace, {"command": "/bin/echo hi"},
                                     ApprovalChoice.ALLOW_CONVERSATION, f"c{n}")
        assert len(host.requests) == 1, n  # asked each time, the conversation grant does not cover it
        assert envelope.ok and envelope.metadata["sandbox"]["sandboxed"] is False  # type: ignore[attr-defined]
        assert "unavailable" in _where(host)[0][1]


@requires_bwrap
async def test_an_allow_in_sandbox_rule_asks_when_the_workspace_runs_commands_outside(runtime: Runtime,
                                                                                     jail: Jail) -> None:
    sandbox_toggle.set_on(runtime.permissions, jail.workspace, True)
    for n, mode in enumerate((SandboxMode.OFF, SandboxMode.ASK_UNSANDBOXED)):
        _set(runtime, jail.workspace, mode=mode)
        envelope, host = await _call(runtime, jail.workspace, {"command": "touch made"}, ApprovalChoice.DENY,
                                     f"c{n}")
        assert len(host.requests) == 1 and not envelope.ok, mode  # type: ignore[attr-defined]
        assert not (jail.workspace / "made").exists()


async def test_ask_every_time_mode_asks_even_when_always_allowed(runtime: Runtime, jail: Jail) -> None:
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    _set(runtime, jail.workspace, mode=SandboxMode.ASK_UNSANDBOXED)
    envelope, host = await _call(runtime, jail.workspace, {"command": "echo hi"}, ApprovalChoice.DENY)
    assert not envelope.ok and len(host.requests) == 1  # type: ignore[attr-defined]
    assert "ask every time" in _where(host)[0][1]


async def test_off_mode_follows_the_tool_policy_as_before(runtime: Runtime, jail: Jail) -> None:
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    _set(runtime, jail.workspace, mode=SandboxMode.OFF)
    envelope, host = await _call(runtime, jail.workspace, {"command": "echo hi"}, ApprovalChoice.DENY)
    assert envelope.ok and host.requests == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("spelling", ["{absolute}", "~/.config/echo-desk", "$HOME/.config/echo-desk",
                                      "${{HOME}}/.config/echo-desk"])
async def test_naming_echo_desks_own_folders_always_asks(runtime: Runtime, jail: Jail, spelling: str,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    config = jail.home / ".config" / "echo-desk"
    config.mkdir(parents=True)
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(config))
    _set(runtime, jail.workspace, mode=SandboxMode.OFF)
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    command = f"rm -f {spelling.format(absolute=config)}/settings.json"
    envelope, host = await _call(runtime, jail.workspace, {"command": command}, ApprovalChoice.DENY)
    assert len(host.requests) == 1 and not envelope.ok  # type: ignore[attr-defined]
    settings_folder = (Protection(reason=ProtectionReason.SETTINGS_FOLDER),)
    assert [t.value for t in host.requests[0].targets if t.protections == settings_folder] == [str(config)]


async def test_a_working_folder_inside_echo_desks_data_always_asks(runtime: Runtime, jail: Jail,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = jail.workspace / "data"
    data.mkdir()
    monkeypatch.setenv("ECHO_DESK_DATA_DIR", str(data))
    _set(runtime, jail.workspace, mode=SandboxMode.OFF)
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    envelope, host = await _call(runtime, jail.workspace, {"command": "rm -f *", "cwd": "data"}, ApprovalChoice.DENY)
    assert len(host.requests) == 1 and not envelope.ok  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", ["cp new.json cfg/settings.json", "echo '{\"x\": 1}' > cfg/settings.json",
                                     "rm -f 'cfg'/settings.json", "cp --target-directory=cfg new.json"])
async def test_a_link_in_the_workspace_to_echo_desks_own_folder_always_asks(
    runtime: Runtime, jail: Jail, monkeypatch: pytest.MonkeyPatch, command: str,
) -> None:
    """A link planted in the workspace (``cfg -> ~/.config/echo-desk``) made a harmless-looking
    command that never names Echo Desk's folder change its settings, outside the sandbox, with
    no question asked."""
    config = jail.home / ".config" / "echo-desk"
    config.mkdir(parents=True)
    (config / "settings.json").write_text("{}")
    monkeypatch.setenv("ECHO_DESK_CONFIG_DIR", str(config))
    (jail.workspace / "cfg").symlink_to(config)
    (jail.workspace / "new.json").write_text('{"x": 1}')
    _set(runtime, jail.workspace, mode=SandboxMode.OFF)
    runtime.settings.set_tool("run_command", policy=ToolPolicy.ALWAYS)
    envelope, host = await _call(runtime, jail.workspace, {"command": command}, ApprovalChoice.DENY)
    assert len(host.requests) == 1 and not envelope.ok  # type: ignore[attr-defined]
    settings_folder = (Protection(reason=ProtectionReason.SETTINGS_FOLDER),)
    assert [t.value for t in host.requests[0].targets if t.protections == settings_folder] == [str(config)]
    assert (config / "settings.json").read_text() == "{}"
