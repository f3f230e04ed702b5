"""A server's question is cut to a readable size in the core, before any host lays it out, and
the host is told how much was cut where. Against a real stdio server (question_server.py)."""

from __future__ import annotations

import importlib.util
import json
import logging
import sys
from typing import Any

import pytest

from echo_desk.mcp.config import parse_server
from echo_desk.mcp.line_cap import MAX_LINE_BYTES
from echo_desk.mcp.question_caps import (
    MOST_CHOICES,
    MOST_FIELDS,
    MOST_FORM_TEXT_CHARS,
    MOST_MESSAGE_CHARS,
    MOST_TITLE_CHARS,
)
from echo_desk.tools import Answer
from tests.mcp.helpers import HERE, get_tool
from tests.mcp.test_everything import AnsweringHost, ctx

QUESTION_SERVER = HERE / "question_server.py"
SIZES_BENCH = HERE.parents[1] / "bench" / "mcp_question_sizes.py"


async def _ask(make_manager: Any, registry: Any, host: AnsweringHost, **arguments: Any) -> Any:
    """What the server's ``ask`` got back from Echo Desk (the ElicitResult, or the error)."""
    config = parse_server("q", {"command": sys.executable, "args": ["-S", str(QUESTION_SERVER)]})
    manager = make_manager({"q": config}, host=host)
    await manager.start("q")
    result = await get_tool(registry, "q__ask").execute(arguments, ctx("ask", host))
    assert result.success, result.error
    return json.loads(result.output)


async def test_a_megabyte_question_reaches_the_host_cut_and_the_log_keeps_its_size(
        make_manager, registry, caplog) -> None:
    """Uncut, 1 MB held the window frozen for 3.5 s while a label wrapped it (15 MB: a minute)."""
    host = AnsweringHost(Answer(action="decline"))
    with caplog.at_level(logging.INFO, logger="echo_desk.mcp.calls"):
        answer = await _ask(make_manager, registry, host, message="Proceed? ", pad=1_000_000)
    assert answer == {"action": "decline"}
    [question] = host.questions
    assert question.prompt.startswith("Proceed? Allow? ") and len(question.prompt) == MOST_MESSAGE_CHARS
    assert question.prompt_cut == 1_000_009 - MOST_MESSAGE_CHARS
    assert "a question of 1000009 characters" in caplog.text


async def test_a_forms_long_texts_are_cut_and_a_kept_default_goes_back_whole(make_manager, registry) -> None:
    long = "Y" * 5000
    schema = {"type": "object", "properties": {
        "note": {"type": "string", "title": "T" * 3000, "description": "D" * 1500, "default": long},
        "short": {"type": "string", "title": "Short", "default": "yes"}}}
    kept = AnsweringHost(Answer(action="accept", values={"note": "Y" * MOST_FORM_TEXT_CHARS, "short": "yes"}))
    answer = await _ask(make_manager, registry, kept, message="Fill in", schema=schema)
    [question] = kept.questions
    note = question.schema["properties"]["note"]
    assert (note["title"], note["description"], note["default"]) == (
        "T" * MOST_TITLE_CHARS, "D" * MOST_FORM_TEXT_CHARS, "Y" * MOST_FORM_TEXT_CHARS)
    assert question.form_cuts == {("note", "title"): 2800, ("note", "description"): 500, ("note", "default"): 4000}
    assert question.prompt_cut == 0
    # Kept as shown (cut), the server's default goes back as the server gave it, not cut.
    assert answer == {"action": "accept", "content": {"note": long, "short": "yes"}}
    edited = AnsweringHost(Answer(action="accept", values={"note": "mine"}))
    assert (await _ask(make_manager, registry, edited, schema=schema))["content"]["note"] == "mine"


_CHOICES = {"type": "string", "enum": ["a", "b", "c"]}
#: List fields that cannot be shown as boxes to tick, or never answered within their bounds.
_BAD_LISTS: dict[str, dict[str, Any]] = {
    "a list of free text": {"items": {"type": "string"}},
    "a list without items": {},
    "a list with its choices outside its items": {"enum": ["a", "b"], "items": {"type": "string"}},
    "a list of choices that are not texts": {"items": {"enum": [1, 2]}},
    "a list of one value twice": {"items": {"enum": ["a", "a"]}},
    "a list of too many choices": {"items": {"enum": [f"c{i}" for i in range(MOST_CHOICES + 1)]}},
    "a list with a long choice": {"items": {"enum": ["a", "c" * 5000]}},
    "a list with one title twice": {"items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "A"}]}},
    "a list with a long title": {"items": {"anyOf": [{"const": "a", "title": "t" * 5000}]}},
    "a list with an anyOf item without a const": {"items": {"anyOf": [{"title": "A"}]}},
    "a list with no choices": {"items": {"enum": []}},
    "a list asking for more than it has": {"minItems": 4, "items": _CHOICES},
    "a list asking for more than it allows": {"minItems": 3, "maxItems": 2, "items": _CHOICES},
    "a list bound not a count": {"minItems": "1", "items": _CHOICES},
    "a list bound true": {"maxItems": True, "items": _CHOICES},
    "a list bound below zero": {"maxItems": -1, "items": _CHOICES},
    "a list default not a choice": {"items": _CHOICES, "default": ["a", "z"]},
    "a list default not a list": {"items": _CHOICES, "default": "a"},
    "a list default with a choice twice": {"items": _CHOICES, "default": ["a", "a"]},
}


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(MOST_FIELDS + 1)}},
    {"type": "object", "properties": {"pick": {"type": "string", "enum": [f"c{i}" for i in range(MOST_CHOICES + 1)]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "enum": ["short", "c" * 5000]}}},
    {"type": "object", "properties": {"n" * 5000: {"type": "string"}}},
    {"type": "object", "properties": {"count": {"type": "integer", "default": "abc"}}},
    {"type": "object", "properties": {"price": {"type": "number", "minimum": "x"}}},
    {"type": "object", "properties": {"agree": {"type": "boolean", "default": "false"}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": [
        {"const": f"c{i}", "title": f"C {i}"} for i in range(MOST_CHOICES + 1)]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": [{"const": "a", "title": "t" * 5000}]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": [{"const": "c" * 5000, "title": "C"}]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": [{"title": "No value"}]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": [
        {"const": "keep", "title": "Keep"}, {"const": "wipe", "title": "Keep"}]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "enum": ["keep", "wipe"], "enumNames": ["Keep"]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "enum": ["keep"], "enumNames": [1]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "enum": ["a"], "oneOf": [{"const": "b", "title": "B"}]}}},
    {"type": "object", "properties": {"pick": {"type": "string", "oneOf": []}}},
    *({"type": "object", "properties": {"picks": {"type": "array", **spec}}} for spec in _BAD_LISTS.values()),
], ids=["too many fields", "too many choices", "a long choice", "a long field name", "a default not a number",
        "a bound not a number", "a yes/no default not true or false", "too many titled choices", "a long title",
        "a long titled choice", "a oneOf item without a const", "one title twice", "fewer titles than choices",
        "a title not a text", "both enum and oneOf", "no choices", *_BAD_LISTS])
async def test_a_form_that_cannot_be_shown_whole_is_refused_unshown(make_manager, registry, schema) -> None:
    """A name or a choice is what the answer sends back: cut, it would be another one."""
    host = AnsweringHost(Answer(action="accept"))
    answer = await _ask(make_manager, registry, host, message="Pick", schema=schema)
    assert not host.questions
    assert answer["message"].startswith("Echo Desk did not show the question: ")


async def test_a_hidden_character_in_a_default_reaches_the_host_kept(make_manager, registry) -> None:
    """Kept for the host to show as an escape (tests/ui/approval): dropped, "yes⟨U+202E⟩" read as "yes"."""
    schema = {"type": "object", "properties": {"confirm": {"type": "string", "default": "yes\u202e\u200bon"}}}
    host = AnsweringHost(Answer(action="accept", values={"confirm": "yes\u202e\u200bon"}))
    answer = await _ask(make_manager, registry, host, message="Sure?", schema=schema)
    assert host.questions[0].schema["properties"]["confirm"]["default"] == "yes\u202e\u200bon"
    assert host.questions[0].form_cuts == {}
    assert answer["content"] == {"confirm": "yes\u202e\u200bon"}


@pytest.mark.parametrize("spec", [
    {"oneOf": [{"const": "keep", "title": "Keep my files"}, {"const": "wipe"}]},
    {"enum": ["keep", "wipe"], "enumNames": ["Keep my files", "wipe"]},
], ids=["oneOf", "enumNames"])
async def test_titled_choices_reach_the_host_as_values_with_titles(make_manager, registry, spec) -> None:
    """One shape for both spellings: a host that knows no titles (the terminal's) still offers
    the values; a oneOf choice without a title is shown by its value."""
    schema = {"type": "object", "properties": {"pick": {"type": "string", "default": "keep", **spec}}}
    host = AnsweringHost(Answer(action="accept", values={"pick": "wipe"}))
    answer = await _ask(make_manager, registry, host, message="Pick", schema=schema)
    [question] = host.questions
    assert question.schema["properties"]["pick"] == {
        "type": "string", "default": "keep", "enum": ["keep", "wipe"], "enumNames": ["Keep my files", "wipe"]}
    assert answer["content"] == {"pick": "wipe"}


async def test_a_question_past_the_line_cap_fails_the_call_saying_what_happened(make_manager, registry) -> None:
    """No dialog; the call's error says what happened, whole, and so does the size bench's table:
    it cut the error at 100 characters and the 20 MB row ended in "the most Echo Desk reads: ".
    One byte past the cap is enough: the line's last read once reset the count before it was
    checked, and this question reached the host (``line_cap``)."""
    config = parse_server("q", {"command": sys.executable, "args": ["-S", str(QUESTION_SERVER)]})
    host = AnsweringHost(Answer(action="accept"))
    manager = make_manager({"q": config}, host=host)
    await manager.start("q")
    result = await get_tool(registry, "q__ask").execute({"message": "Hi", "pad": MAX_LINE_BYTES + 1}, ctx("ask", host))
    assert not host.questions and not result.success
    said = "the server sent a message longer than 16 MB, the most Echo Desk reads: the rest was not read, " \
           "and Echo Desk stopped it"
    assert result.error == f"q/ask: {said}"
    spec = importlib.util.spec_from_file_location("mcp_question_sizes", SIZES_BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.outcome(result).endswith(said)


async def test_titled_list_choices_reach_the_host_as_values_with_titles_and_go_back_as_a_list(
        make_manager, registry) -> None:
    """The one shape a host reads (``items.enum`` and ``items.enumNames``, as a single choice's);
    before, ``anyOf`` reached the hosts unread and the field was asked as a text box."""
    items = {"anyOf": [{"const": "guitar", "title": "Guitar"}, {"const": "piano", "title": "Piano \u202e"},
                       {"const": "violin"}]}
    titles = ["Guitar", "Piano \u202e", "violin"]  # a choice without a title is shown by its value
    schema = {"type": "object", "properties": {"picks": {
        "type": "array", "title": "Instruments", "minItems": 1, "maxItems": 2, "items": items, "default": ["guitar"]}}}
    host = AnsweringHost(Answer(action="accept", values={"picks": ["guitar", "violin"]}))
    answer = await _ask(make_manager, registry, host, message="Pick", schema=schema)
    [question] = host.questions
    shown = question.schema["properties"]["picks"]
    assert shown["items"]["enum"] == ["guitar", "piano", "violin"]
    assert shown["items"].get("enumNames") == titles  # a title's hidden character kept, for the host to show
    assert "anyOf" not in shown["items"]
    assert (shown["minItems"], shown["maxItems"], shown["default"]) == (1, 2, ["guitar"])
    assert answer == {"action": "accept", "content": {"picks": ["guitar", "violin"]}}


async def test_a_kept_list_default_longer_than_a_choice_is_shown_and_goes_back_whole(make_manager, registry) -> None:
    """A default that is not a text is refused past a choice's length, but a list's default is
    checked choice by choice: five chosen titles of 60 characters are not one long value."""
    choices = [f"{i}" * 60 for i in range(5)]
    schema = {"type": "object", "properties": {"picks": {"type": "array", "items": {"enum": choices},
                                                         "default": choices}}}
    host = AnsweringHost(Answer(action="accept"))  # nothing typed: the server's default is the answer
    answer = await _ask(make_manager, registry, host, message="Pick", schema=schema)
    assert host.questions
    assert answer == {"action": "accept", "content": {"picks": choices}}
