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


#: Lines as a client or a server sends them (``{"`` first), and ones that fail every way
#: ``json.loads`` fails on them.
_LINES: list[bytes] = [
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"e","arguments":{"message":"hi"}}}\n',
    '{"a": "naïve ✓ 中文 \U0001f600", "b": [1, 2.5e-3, null, true]}'.encode(),
    b'{"lone": "\\udcff", "pair": "\\ud83d\\ude00", "raw": "\xed\xb3\xbf"}',  # a surrogate as bytes too
    b'{"x": 1}   \r\n', b'{"', b'{"a": }', b'{"a": 1} extra', b'{"a": "\xff"}', b'{"a": "\x00"}',
    b'{"n": ' + b"1" * 4301 + b"}", b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
]


@pytest.mark.parametrize("line", _LINES, ids=range(len(_LINES)))
def test_a_line_of_json_rpc_is_read_as_json_loads_reads_it(line: bytes) -> None:
    """Bytes starting ``{"`` are decoded here, not looked at for their encoding by ``json.loads``:
    the same value, or the same error at the same place."""
    try:
        expected: object = json.loads(line)
    except RecursionError:
        expected = TOO_DEEP
    except json.JSONDecodeError as exc:
        expected = (exc.msg, exc.pos)
    except UnicodeDecodeError:
        expected = NOT_TEXT
    except ValueError:
        expected = TOO_LONG_NUMBER
    try:
        got: object = read_json(line)
    except json.JSONDecodeError as exc:
        got = exc.msg if exc.msg in (TOO_DEEP, NOT_TEXT, TOO_LONG_NUMBER) else (exc.msg, exc.pos)
    assert got == expected


def test_a_line_of_json_rpc_is_not_looked_at_for_its_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    looked: list[bytes] = []
    real = json.detect_encoding

    def watched(b: bytes) -> str:
        looked.append(b)
        return real(b)

    monkeypatch.setattr(json, "detect_encoding", watched)
    assert read_json(_LINES[0])["id"] == 3
    assert read_json(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}  # a byte order mark: json.loads's own way
    assert looked == [b'\xef\xbb\xbf{"a": 1}']
