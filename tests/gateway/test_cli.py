"""``echo-desk gateway`` on the command line: status, bad names, no engine loaded up front."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from echo_desk.tools.secrets import secret_store
from tests.providers.test_secrets_keyring import MemoryKeyring

from .conftest import App, gateway_command


async def _run(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "echo_desk", "gateway", *args, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
    out, err = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode(), err.decode()


async def test_status_when_the_app_is_not_running(gateway_env: dict[str, str]) -> None:
    code, out, _err = await _run("status", "--json", env=gateway_env)
    answer = json.loads(out)
    assert code == 1 and answer["reachable"] is False and answer["why"] == "Echo Desk is not running"


async def test_status_lists_the_connected_clients(app: App, gateway_env: dict[str, str]) -> None:
    from mcp import Client, StdioServerParameters

    command = gateway_command("zed")
    async with Client(StdioServerParameters(command=command[0], args=command[1:], env=gateway_env)) as client:
        await client.list_tools()
        code, out, _err = await _run("status", "--json", env=gateway_env)
        text_code, text, _ = await _run("status", env=gateway_env)
    answer = json.loads(out)
    assert code == 0 and answer["reachable"] is True
    assert [c["client"] for c in answer["clients"]] == ["zed"]
    assert text_code == 0 and "Echo Desk is running" in text and "Zed" in text  # named as Settings names it


async def test_status_shows_a_clients_transport_as_text_not_terminal_codes(app: App,
                                                                        gateway_env: dict[str, str]) -> None:
    # The transport is what a connecting process said in its hello; a terminal must not obey it.
    from echo_desk.gateway.relay import Relay

    relay = await Relay.connect(app.service.path, "zed", transport="\x1b]0;x\x07")
    try:
        code, text, _ = await _run("status", env=gateway_env)
    finally:
        await relay.aclose()
    assert code == 0 and "Zed" in text
    assert "\x1b" not in text and "\x07" not in text and "⟨ESC⟩" in text


async def test_a_bad_or_missing_client_name_is_refused_with_the_reason(gateway_env: dict[str, str]) -> None:
    code, _out, err = await _run("--client", "My Editor!", env=gateway_env)
    assert code == 2 and "is not usable" in err
    code, _out, err = await _run(env=gateway_env)
    assert code == 2 and "--client NAME is required" in err


async def test_the_gateway_starts_without_the_engine_or_the_clis_imports(gateway_env: dict[str, str]) -> None:
    probe = ("import sys; from echo_desk.__main__ import main; sys.argv = ['echo-desk', 'gateway', 'status'];"
             "code = main(); heavy = [m for m in ('echo_desk.cli.main', 'echo_desk.cli.arguments', 'echo_desk.runtime', 'echo_desk.agent.dispatcher',"
             " 'PySide6') if m in sys.modules]; print(heavy)")
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", probe, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.DEVNULL, env=gateway_env)
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert out.decode().strip().splitlines()[-1] == "[]"
    serving = ("import sys, echo_desk.gateway.stdio_gateway; print([m for m in ('echo_desk.runtime', "
               "'echo_desk.agent.dispatcher', 'echo_desk.gateway.session', 'PySide6') if m in sys.modules])")
    process = await asyncio.create_subprocess_exec(sys.executable, "-c", serving, stdout=asyncio.subprocess.PIPE,
                                                   env=gateway_env)
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    assert out.decode().strip() == "[]"  # the engine loads only if the app cannot be reached


async def test_without_a_system_keyring_a_token_is_made_and_only_its_hash_is_kept(
        gateway_env: dict[str, str]) -> None:
    # It used to live in the command's memory only: printed, then forgotten, never checkable.
    from echo_desk.gateway.tokens import client_for, tokens_path

    env = {**gateway_env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"}
    code, out, err = await _run("token", "--client", "cursor", env=env)
    token = out.strip()
    assert code == 0 and len(token) >= 43 and "shown once" in err
    kept = tokens_path()  # the test's own settings folder, as the command's
    assert token not in kept.read_text() and (kept.stat().st_mode & 0o777) == 0o600
    assert client_for(token, ["vscode", "cursor"]) == "cursor"


def test_a_token_is_printed_once_and_names_its_client(capsys: pytest.CaptureFixture[str]) -> None:
    from echo_desk.cli.main import main
    from echo_desk.gateway.tokens import client_for

    assert main(["gateway", "token", "--client", "cursor"]) == 0
    token = capsys.readouterr().out.strip()
    assert client_for(token, ["vscode", "cursor"]) == "cursor"
    assert client_for(token, ["vscode"]) == "cursor"  # the token names its client, profile or not


async def test_the_gateways_own_engine_reads_secrets_from_the_system_keyring(
        system_keyring: MemoryKeyring, tmp_path: Path) -> None:
    # Without the app, the gateway starts mcp.json's servers itself: their {"keyring": …} values
    # and sign-ins must come from where the app saved them, not from an empty store.
    from echo_desk.cli.gateway import _fallback_factory

    system_keyring.values[("echo-desk", "mcp.github.env.TOKEN")] = "ghp_1"
    backend = await _fallback_factory("cursor", str(tmp_path), "Echo Desk is not running")
    try:
        assert secret_store().get("mcp.github.env.TOKEN") == "ghp_1"
    finally:
        await backend.close()
