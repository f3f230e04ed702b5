"""The positional JSON/JSONC reader: it reads what json.loads reads, refuses what it should, and
its edits change only the member they touch."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from echo_desk.mcp.connected import jsonc

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_json_values, st.sampled_from([None, 2, "\t"]), st.booleans())
def test_reads_what_the_standard_parser_reads(value: object, indent: int | str | None, comments: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=bool(indent))
    assert jsonc.parse(text, jsonc=comments).root.value == json.loads(text)


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.dictionaries(st.text(max_size=6), _json_values, min_size=1, max_size=5), st.data())
def test_removing_then_adding_a_member_touches_nothing_else(members: dict[str, object], data: st.DataObject) -> None:
    text = json.dumps({"keep": [1, "two"], "list": members, "after": True}, indent=2)
    doc = jsonc.parse(text)
    key = data.draw(st.sampled_from(sorted(members)))
    obj = doc.root.member("list")
    assert obj is not None
    removed = jsonc.remove_member(doc, obj.value, key)
    expected = {k: v for k, v in members.items() if k != key}
    again = jsonc.parse(removed)
    assert again.root.value == {"keep": [1, "two"], "list": expected, "after": True}
    assert removed.startswith(text[: obj.value.start])  # nothing before the list moved
    list_node = again.root.member("list")
    assert list_node is not None
    added = jsonc.insert_member(again, list_node.value, key, members[key])
    assert json.loads(added)["list"] == members


def test_comments_and_trailing_commas_only_with_jsonc() -> None:
    text = '{\n  // a note\n  "a": 1, /* b */\n  "b": [1, 2,],\n}\n'
    assert jsonc.parse(text, jsonc=True).root.value == {"a": 1, "b": [1, 2]}
    with pytest.raises(jsonc.JsoncError, match="comments are not allowed"):
        jsonc.parse(text)
    with pytest.raises(jsonc.JsoncError, match="trailing comma"):
        jsonc.parse('{"a": 1,}')


@pytest.mark.parametrize(("text", "where"), [
    ('{"a": 1\n  "b": 2}', "line 2, column 3"),
    ('{"a": "unterminated}', "line 1, column 7"),
    ('{"a": 01}', "line 1, column 8"),
    ('{"a": 1} trailing', "line 1, column 10"),
    ('{\n  /* never closed\n}', "line 2"),
    ('{"a": NaN}', "line 1, column 7"),
])
def test_bad_text_says_where(text: str, where: str) -> None:
    with pytest.raises(jsonc.JsoncError, match=where):
        jsonc.parse(text, jsonc=True)


def test_a_key_named_twice_is_ambiguous() -> None:
    doc = jsonc.parse('{"mcpServers": {}, "mcpServers": {"x": {}}}')
    with pytest.raises(jsonc.JsoncError, match="appears 2 times"):
        doc.find(("mcpServers",))


def test_deep_nesting_is_refused_not_a_crash() -> None:
    with pytest.raises(jsonc.JsoncError, match="nested deeper"):
        jsonc.parse("[" * 5000 + "]" * 5000)


def test_crlf_and_bom_are_kept_by_an_edit() -> None:
    text = '\ufeff{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n'
    doc = jsonc.parse(text)
    servers = doc.root.member("mcpServers")
    assert servers is not None
    added = jsonc.insert_member(doc, servers.value, "b", {"command": "y"})
    assert added.startswith("\ufeff{\r\n")
    assert "\n" not in added.replace("\r\n", "")
    assert json.loads(added.removeprefix("\ufeff"))["mcpServers"]["b"] == {"command": "y"}


def test_a_comment_right_above_a_member_goes_with_it() -> None:
    text = '{\n  "s": {\n    // about a\n    "a": 1,\n    "b": 2\n  }\n}\n'
    doc = jsonc.parse(text, jsonc=True)
    node = doc.root.member("s")
    assert node is not None
    assert jsonc.remove_member(doc, node.value, "a") == '{\n  "s": {\n    "b": 2\n  }\n}\n'
