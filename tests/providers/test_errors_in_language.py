"""A provider's ``ModelError`` is translated when it is shown, not when it is raised: its ``reason``
follows a language switch (the banner, the chat, Settings › Models), its ``str`` stays English
for the log, a report and a parent agent's model."""

from __future__ import annotations

import re

import httpx

from echo_desk.agent.model import ModelError
from echo_desk.i18n import set_language, shown
from echo_desk.providers.errors import error_for_status, error_for_transport

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _raised_in_chinese() -> list[ModelError]:
    set_language("zh_CN")
    try:
        return [error_for_transport(httpx.ConnectError("refused"), base_url="http://127.0.0.1:8080/v1"),
                error_for_transport(httpx.ReadError("reset"), base_url="http://example.test/v1"),
                error_for_status(401, b'{"error": {"message": "bad key"}}', base_url="https://api.test", model="m"),
                error_for_status(404, b"", base_url="https://api.test", model="m")]
    finally:
        set_language("en")


def test_raised_in_chinese_it_is_said_in_the_language_shown_and_its_str_is_english() -> None:
    for error in _raised_in_chinese():
        assert not _CJK.search(str(error)), str(error)  # the log's and the model's words
        assert not _CJK.search(shown(error.reason)), shown(error.reason)
        set_language("zh_CN")
        try:
            assert _CJK.search(shown(error.reason)), shown(error.reason)
        finally:
            set_language("en")


def test_the_server_s_own_words_and_the_local_server_s_name_follow_too() -> None:
    rejected, _missing = _raised_in_chinese()[2:]
    assert shown(rejected.reason) == (
        "API key rejected by https://api.test (HTTP 401). Check the key in Settings › Models. (bad key)")
    local = _raised_in_chinese()[0]
    assert shown(local.reason) == "no server at http://127.0.0.1:8080 — is the local model server running?"


def test_a_broken_connection_is_said_in_words_not_an_exception_class() -> None:
    broken = _raised_in_chinese()[1]
    assert str(broken) == "the connection to http://example.test broke off before the answer was complete"
