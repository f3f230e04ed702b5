"""The one-search pre-check of ``redact_text`` changes nothing: same output as trying every shape."""

from __future__ import annotations

import pytest

from echo_desk.store import redact as r

SAMPLES = [
    "risk default: read", "", "hello", "settings: always allow", "/home/me/project/src/main.py",
    "postgresql://admin:hunter2@db/app", "curl -H 'Authorization: Bearer abcdefghijklmnop' x",
    "export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "api_key: s3cr3tvalue", '{"password": "pw"}',
    "--password hunter2 --path /tmp/x", "https://x.test/?access_token=abc&page=2", "sk-" + "a" * 30,
    "a PAT here", "the key to it", "line one\nPGPASSWORD=pw psql\nline three",
    "x" * (r._PIECE_CHARS + 10) + "\ntoken=abc",
]


def every_shape(piece: str) -> str:
    lowered = piece.lower()
    for pattern, needles, replace in r._SHAPES:
        if any(n in lowered for n in needles):
            piece = pattern.sub(replace, piece)
    return piece


@pytest.mark.parametrize("text", SAMPLES)
def test_the_pre_check_gives_what_every_shape_gives(text: str) -> None:
    assert r.redact_text(text) == "".join(every_shape(p) for p in r._pieces(text))


def test_text_without_any_needle_comes_back_as_it_was_and_secrets_still_go() -> None:
    assert r.redact_text("risk default: read") == "risk default: read"
    assert "hunter2" not in r.redact_text("postgresql://admin:hunter2@db/app")
