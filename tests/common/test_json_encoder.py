"""``echo_desk/common/json_encoder.py``: an encoder made once gives the text
``json.JSONEncoder(...).encode`` gives, byte for byte, with each set of options the app uses."""

from __future__ import annotations

import json
import math
import threading
from typing import Any

import pytest

from echo_desk.common import json_encoder
from echo_desk.common.json_encoder import encoder

#: The options of the app's encoders on a call's path (handshake, session, call lane, audit).
OPTIONS: list[dict[str, Any]] = [
    {},
    {"ensure_ascii": False},
    {"ensure_ascii": False, "default": str},
    {"separators": (",", ":")},
    {"ensure_ascii": False, "separators": (",", ":")},
    {"ensure_ascii": False, "separators": (",", ":"), "allow_nan": False},
]


class _Odd:
    def __str__(self) -> str:
        return "odd ✓"


VALUES: list[Any] = [
    "", "plain", "naïve ✓ 中文 \U0001f600", 'quote " backslash \\ slash / \n\t\r\b\f \x00\x1f\x7f',
    "lone \udcff \ud800 \udfff", "\u2028\u2029", 0, -1, 2**70, 1.5, 1e-7, 1.7e9 + 0.123456789, -0.0, True, False,
    None, [], {}, (), [1, "a", None, [2, {"k": "v"}]], ("tuple", 1),
    {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "Echo: héllo \udcff"}],
                                           "isError": False}},
    {"é": 1, "\udcff": [1.0, {"x": "y"}], "": ""},
    ["conv", '["conv"]', "c1", "everything__echo", "mcp", '{"message": "hi"}', "auto", "settings", 1.7e9, 1, None, "",
     1.25, "[]", "", "", "bench", "call", "[]"],
]


@pytest.mark.parametrize("options", OPTIONS, ids=[repr(o) for o in OPTIONS])
def test_the_same_text_as_a_json_encoder_with_the_same_options(options: dict[str, Any]) -> None:
    encode, reference = encoder(**options), json.JSONEncoder(**options).encode
    for value in VALUES:
        assert encode(value) == reference(value)
    assert encode(value) == encode(value)  # nothing kept from one call to the next


def test_what_it_cannot_encode_fails_as_a_json_encoder_does() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        encoder()({"x": _Odd()})
    assert encoder(ensure_ascii=False, default=str)({"x": _Odd()}) == '{"x": "odd ✓"}'
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        encoder(allow_nan=False)([math.nan])
    assert encoder()([math.nan, math.inf]) == "[NaN, Infinity]"
    with pytest.raises(TypeError, match="keys must be str"):
        encoder()({(1, 2): 3})
    assert encoder()({"ok": 1}) == '{"ok": 1}'  # a failure left nothing behind


def test_threads_share_one_encoder() -> None:
    encode = encoder(ensure_ascii=False)
    nested = {"a": [{"b": list(range(50))} for _ in range(50)]}
    expected = json.dumps(nested, ensure_ascii=False)
    wrong: list[str] = []

    def work() -> None:
        for _ in range(200):
            text = encode(nested)
            if text != expected:
                wrong.append(text)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not wrong and not any(t.is_alive() for t in threads)


def test_without_the_c_accelerator_it_is_the_json_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_encoder.json_encoder, "c_make_encoder", None)
    encode = encoder(ensure_ascii=False, separators=(",", ":"))
    for value in VALUES:
        assert encode(value) == json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode(value)


def test_its_c_encoder_is_made_once_not_on_every_call(monkeypatch: pytest.MonkeyPatch) -> None:
    real = json_encoder.json_encoder.c_make_encoder
    assert real is not None
    made: list[object] = []

    def counted(*args: Any) -> Any:
        made.append(args)
        return real(*args)

    monkeypatch.setattr(json_encoder.json_encoder, "c_make_encoder", counted)
    encode = encoder(ensure_ascii=False)
    for value in VALUES:
        encode(value)
    assert len(made) == 1
