"""Untrusted definitions: hidden characters, provider-safe unique names, schema caps, hashes."""

from __future__ import annotations

from echo_desk.mcp.sanitize import (
    canonical_definition,
    definition_hash,
    registry_name,
    schema_problems,
    strip_hidden,
    strip_hidden_deep,
)


def test_strip_hidden_reports_each_code_point() -> None:
    text = "safe\u200b\u202eevil\u2066\U000e0049\U000e0047\ufeff"
    clean, found = strip_hidden(text)
    assert clean == "safeevil"
    assert found == ["U+200B", "U+202E", "U+2066", "U+E0049", "U+E0047", "U+FEFF"]
    assert strip_hidden("naïve – 東京\n\ttab") == ("naïve – 東京\n\ttab", [])


def test_strip_hidden_deep_cleans_keys_and_values() -> None:
    found: list[str] = []
    clean = strip_hidden_deep({"properties": {"pa\u200bth": {"description": "x\u2067y"}}}, found)
    assert clean == {"properties": {"path": {"description": "xy"}}}
    assert found == ["U+200B", "U+2067"]


def test_registry_names_are_provider_safe_unique_and_short() -> None:
    taken: set[str] = set()
    first = registry_name("my server", "read.file", taken)
    assert first == "my_server__read_file"
    taken.add(first)
    second = registry_name("my server", "read file", taken)  # same sanitized name
    assert second != first and second.startswith("my_server__read_file_")
    long_name = registry_name("s" * 40, "t" * 40, set())
    assert len(long_name) <= 64
    assert registry_name("s" * 40, "t" * 40, set()) == long_name  # stable: pins survive restarts


def test_schema_caps_and_checks() -> None:
    assert schema_problems({"type": "object", "properties": {"a": {"type": "string"}}}) == []
    assert schema_problems([1])
    assert any("object" in p for p in schema_problems({"type": "array"}))
    deep: dict = {"type": "object"}
    node = deep
    for _ in range(30):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    assert any("deep" in p for p in schema_problems(deep))
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "d" * 100} for i in range(1000)}}
    assert any("bytes" in p for p in schema_problems(huge))
    assert any("local $ref" in p for p in schema_problems({"type": "object", "$ref": "http://x/s.json"}))
    assert any("not a valid" in p for p in schema_problems({"type": "object", "properties": {"a": {"type": 5}}}))


def test_definition_hash_changes_with_description_and_schema_only() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    base = definition_hash(canonical_definition("t", "d", schema))
    assert base == definition_hash(canonical_definition("t", "d", dict(reversed(list(schema.items())))))
    assert base != definition_hash(canonical_definition("t", "d\u200b", schema))
    assert base != definition_hash(canonical_definition("t", "d", {**schema, "required": ["a"]}))


def test_the_pin_covers_title_annotations_and_output_schema() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    base = canonical_definition("t", "d", schema, title="Echo", annotations={}, output_schema=None)
    digest = definition_hash(base)
    for changed in (
        {"title": "Read file (built-in, read-only)"},
        {"annotations": {"readOnlyHint": True}},
        {"annotations": {"title": "Read file"}},
        {"outputSchema": {"type": "object"}},
    ):
        assert definition_hash({**base, **changed}) != digest, changed


def test_a_pin_from_before_titles_were_pinned_is_recognised() -> None:
    from echo_desk.mcp.sanitize import legacy_definition_hash

    schema = {"type": "object"}
    old_pin = definition_hash({"name": "t", "description": "d", "inputSchema": schema})
    now = canonical_definition("t", "d", schema, title="T", annotations={"readOnlyHint": True})
    assert legacy_definition_hash(now) == old_pin
    assert legacy_definition_hash(canonical_definition("t", "d2", schema)) != old_pin


def test_every_name_a_server_may_give_its_tools_is_known_as_possibly_its_before_it_starts() -> None:
    from echo_desk.mcp.sanitize import may_name_a_tool_of

    long_server = "a-very-long-server-name-that-goes-on-and-on-past-fifty-chars"
    taken = {"my_server__read_file", f"{long_server[:40]}__x"}
    for server, tool in (("my server", "read.file"), ("my server", "read file"), (long_server, "x"),
                         (long_server, "y" * 70), ("s" * 40, "t" * 40)):
        for name in (registry_name(server, tool, set()), registry_name(server, tool, taken | {registry_name(
                server, tool, set())})):
            assert may_name_a_tool_of(server, name), (server, name)
    assert not may_name_a_tool_of("time", "everything__echo")
    assert not may_name_a_tool_of("time", "read_file")  # a built-in is no server's
    assert may_name_a_tool_of("a", "a__b__t") and may_name_a_tool_of("a__b", "a__b__t")  # either may own it
