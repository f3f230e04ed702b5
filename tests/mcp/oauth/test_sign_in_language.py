"""A sign-in that fails says so in the person's language: the HTTP client's, the keyring
backend's and the SDK's English ("All connection attempts failed", "Keyring is locked") is no
part of the sentence on the server's row; it stays the error's cause (``technical_detail``)."""

from __future__ import annotations

import re
import socket
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from echo_desk.common.explain import technical_detail
from echo_desk.i18n import set_language, shown
from echo_desk.mcp.oauth.errors import SignInError, SignInStep
from echo_desk.mcp.oauth.http import new_client, send
from echo_desk.mcp.oauth.registration import dynamic
from echo_desk.mcp.oauth.tokens import Client, SignIn, SignIns


def _no_english(text: str) -> None:
    """No English prose in ``text`` (addresses, ``token_endpoint_auth_method`` and names aside)."""
    bare = re.sub(r"https?://\S+|token_endpoint_auth_method|private_key_jwt|Echo Desk", "", text)
    assert not re.search(r"[A-Za-z]{3,}", bare), text


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


async def test_a_service_that_cannot_be_reached_is_said_in_chinese_with_the_clients_words_kept(chinese) -> None:
    # Before: "读取登录服务的说明文档：无法访问网址 http://…：All connection attempts failed".
    url = f"http://127.0.0.1:{_closed_port()}/.well-known/oauth-authorization-server"
    async with new_client() as client:
        with pytest.raises(SignInError) as caught:
            await send(client, SignInStep.METADATA, "GET", url)
    text = shown(caught.value.text)
    assert text == f"读取登录服务的说明文档：无法连接到服务器（{url}）", text
    assert "ConnectError: All connection attempts failed" in technical_detail(caught.value)
    set_language("en")
    assert shown(caught.value.text) == f"Reading the sign-in service's description: the server could not be reached ({url})"


class _Locked:
    def set(self, _ref: str, _value: str) -> None:
        raise RuntimeError("Keyring is locked (org.freedesktop.Secret.Error.IsLocked)")

    def delete(self, _ref: str) -> None:
        raise RuntimeError("Keyring is locked (org.freedesktop.Secret.Error.IsLocked)")

    def get(self, _ref: str) -> str | None:
        return None


@pytest.mark.parametrize("action", ["save", "delete"])
def test_a_locked_keyring_is_said_in_chinese_and_its_backends_words_stay_the_cause(chinese, action: str) -> None:
    # Before: "将登录信息保存到密钥环：…：Keyring is locked (org.freedesktop.Secret.Error.IsLocked)".
    sign_ins = SignIns(_Locked())  # type: ignore[arg-type]
    record = SignIn(server="remote", issuer="https://auth.example", resource="https://mcp.example",
                    token_endpoint="https://auth.example/token", client=Client(client_id="echo-desk"))
    with pytest.raises(SignInError) as caught:
        sign_ins.save(record) if action == "save" else sign_ins.delete("remote", "https://auth.example")
    _no_english(shown(caught.value.text))
    assert "RuntimeError: Keyring is locked" in technical_detail(caught.value)


async def test_a_registration_echo_desk_cannot_use_is_said_in_chinese(chinese) -> None:
    # Before: "…：Authorization server registered the client with unsupported token_endpoint_auth_method …".
    redirect = "http://127.0.0.1:8765/callback"

    def answer(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(201, json={"client_id": "c1", "redirect_uris": [redirect],
                                          "token_endpoint_auth_method": "private_key_jwt"})

    discovered: Any = SimpleNamespace(metadata=SimpleNamespace(registration_endpoint="http://127.0.0.1:9/register"))
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as client:
        with pytest.raises(SignInError) as caught:
            await dynamic(client, discovered, redirect, None)
    text = shown(caught.value.text)
    assert "private_key_jwt" in text, text
    _no_english(text)
    assert "unsupported token_endpoint_auth_method 'private_key_jwt'" in technical_detail(caught.value)
