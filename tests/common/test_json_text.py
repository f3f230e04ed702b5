"""Reading JSON from outside: every failure is a ValueError, nesting too deep included."""

from __future__ import annotations

import json

import pytest

from echo_desk.common.json_text import NOT_TEXT, TOO_DEEP, TOO_LONG_NUMBER, read_json


def test_json_is_read_as_json_loads_reads_it() -> None:
    for text in ('{"a": [1, 2.5, null, "x"]}', b'[true]', bytearray(b'"\\u00e9"'), "[" * 200 + "]" * 200):
        assert read_json(text) == json.loads(text)


@pytest.mark.parametrize("deep", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000,
                                  b"[" * 100_000 + b"]" * 100_000])
def test_nesting_too_deep_is_a_decode_error_not_a_recursion_error(deep: str | bytes) -> None:
    with pytest.raises(RecursionError):
        json.loads(deep)  # what the standard library does with it
    with pytest.raises(json.JSONDecodeError, match=TOO_DEEP):
        read_json(deep)


def test_malformed_json_is_still_the_standard_error() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        read_json('{"a": ')
    assert caught.value.msg != TOO_DEEP


@pytest.mark.parametrize(("text", "said"), [("[" + "9" * 5000 + "]", TOO_LONG_NUMBER),
                                            (b'{"a": "' + b"9" * 5000 + b'", "b": ' + b"1" * 4301 + b"}", TOO_LONG_NUMBER),
                                            (b'["\xff"]', NOT_TEXT)])
def test_every_other_failure_is_a_decode_error_too(text: str | bytes, said: str) -> None:
    """A number past Python's 4,300 digits and bytes that are not UTF-8 raise plain ValueErrors in
    json.loads; a caller catching JSONDecodeError (the stdio gateway did) let them end its session."""
    with pytest.raises(ValueError) as plain:
        json.loads(text)
    assert not isinstance(plain.value, json.JSONDecodeError)
    with pytest.raises(json.JSONDecodeError, match=said):
        read_json(text)
