"""Which of the gateway's texts follow Echo Desk's language, and which stay English.

What goes to a client (an error result, a JSON-RPC error, the reason a call could not wait for
the person) stays English whatever the language: the client's model reads it first, and Echo
Desk does not know the language of the app that called. What the person reads in Echo Desk's
own words — ``echo-desk gateway status``, the Activity tab — is said in their language
(``for_person``; the Activity tab quotes what the app was told, ``test_audit_text``)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from echo_desk.cli.gateway import _status
from echo_desk.gateway.relay import AppUnreachable, Relay, app_status
from echo_desk.i18n import shown


@pytest.fixture
def open_folder(short_dir: Path) -> Path:
    folder = short_dir / "open"
    folder.mkdir()
    os.chmod(folder, 0o755)  # others may enter: no socket in it is trusted
    return folder


async def test_a_socket_folder_others_can_enter_is_said_in_chinese_and_in_english_to_a_client(
        open_folder: Path, chinese) -> None:
    # Before: "无法连接 Echo Desk（/tmp/…/open is not a private folder of this user (mode 755, …); not
    # using it for Echo Desk's socket）" in `echo-desk gateway status`.
    with pytest.raises(AppUnreachable) as refused:
        await app_status(open_folder / "gw.sock")
    why = refused.value.args[0]
    assert shown(why) == f"无法连接 Echo Desk（{open_folder} 不是你的私有文件夹（权限 755，所有者 {os.getuid()}），" \
                         "因此 Echo Desk 不会使用其中的套接字）", shown(why)
    with pytest.raises(AppUnreachable) as told:
        await Relay.connect(open_folder / "gw.sock", "zed")
    # What a client is told (its error result is built from ``str``) stays English in any language.
    assert str(told.value).startswith("Echo Desk cannot be reached (") and "is not a private folder of this user" \
        in str(told.value), str(told.value)


def test_gateway_status_says_why_in_the_persons_language(open_folder: Path, chinese, monkeypatch,
                                                         capsys) -> None:
    monkeypatch.setenv("ECHO_DESK_GATEWAY_SOCKET", str(open_folder / "gw.sock"))
    assert _status(as_json=False) == 1
    said = capsys.readouterr().out
    assert "不是你的私有文件夹" in said and "not a private folder" not in said, said
    assert _status(as_json=True) == 1  # machine-readable: the English, as a client would get it
    assert "is not a private folder of this user" in capsys.readouterr().out


async def test_an_app_that_does_not_answer_status_is_said_in_chinese(short_dir: Path, chinese) -> None:
    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        writer.write(b'{"type": "welcome"}\n')  # not the answer to ``status``
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(mute, str(short_dir / "gw.sock"))
    try:
        with pytest.raises(AppUnreachable) as refused:
            await app_status(short_dir / "gw.sock")
    finally:
        server.close()
    assert shown(refused.value.args[0]) == "Echo Desk 没有回应状态查询"
    assert str(refused.value) == "Echo Desk did not answer the status request"
