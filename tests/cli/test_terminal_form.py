"""The terminal's question form gives values of the schema's type, as the app's form does."""

from __future__ import annotations

import asyncio
import io

import pytest

from echo_desk.cli.terminal_host import TerminalHost, field_value
from echo_desk.tools import AnswerAction, Question


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


SCHEMA = {"type": "object", "properties": {
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number", "default": 0.5},
    "confirm": {"type": "boolean"},
    "colour": {"type": "string", "enum": ["red", "green"]},
    "note": {"type": "string"},
    "limit": {"type": "integer"},
}}


def _ask(typed: str) -> tuple[object, str]:
    out = io.StringIO()
    host = TerminalHost(inp=_Terminal(typed), out=out)
    answer = asyncio.run(host.ask(Question(prompt="Settings?", schema=SCHEMA)))
    return answer, out.getvalue()


def test_typed_text_becomes_the_schema_type_and_bad_text_is_asked_again():
    # count: "many" and "42" do not fit, "3" does; ratio: default; confirm: "maybe" then "yes";
    # colour: "blue" then "green"; note: text; limit: left empty, no default → left out.
    answer, shown = _ask("many\n42\n3\n\nmaybe\nyes\nblue\ngreen\nhello 1\n\n")
    assert answer.action is AnswerAction.ACCEPT
    assert answer.values == {"count": 3, "ratio": 0.5, "confirm": True, "colour": "green", "note": "hello 1"}
    assert type(answer.values["count"]) is int
    for reason in ("a whole number is needed", "at most 10", "answer yes or no", "choose one of red, green"):
        assert reason in shown


@pytest.mark.parametrize(("spec", "raw", "value"), [
    ({"type": "number"}, "2.5", 2.5),
    ({"type": "number"}, "-3", -3.0),
    ({"type": "integer"}, "7", 7),
    ({"type": "boolean"}, "No", False),
    ({"type": "string", "maxLength": 3}, "abc", "abc"),
    ({"enum": [1, 2]}, "2", 2),
])
def test_values_that_fit(spec, raw, value):
    assert field_value(spec, raw) == value and type(field_value(spec, raw)) is type(value)


@pytest.mark.parametrize(("spec", "raw"), [
    ({"type": "integer"}, "2.5"),
    ({"type": "number"}, "nan"),
    ({"type": "number"}, "inf"),
    ({"type": "number", "minimum": 0}, "-1"),
    ({"type": "string", "minLength": 2}, "a"),
    ({"type": "boolean"}, "sure"),
])
def test_values_that_do_not_fit(spec, raw):
    with pytest.raises(ValueError):
        field_value(spec, raw)


def test_titled_choices_are_offered_with_their_titles_and_answered_by_value():
    """An MCP server's titled choices reach every host as enum + enumNames (the core's one
    shape): the terminal offered the bare values, the titles the server wrote for them unseen."""
    schema = {"type": "object", "properties": {"what": {
        "type": "string", "enum": ["keep", "wipe"], "enumNames": ["Keep my files", "wipe"]}}}
    out = io.StringIO()
    host = TerminalHost(inp=_Terminal("Keep my files\nwipe\n"), out=out)
    answer = asyncio.run(host.ask(Question(prompt="What now?", schema=schema)))
    assert "what (keep = Keep my files / wipe)" in out.getvalue()
    assert answer.values == {"what": "wipe"}  # typed by value; a title is not one


def test_a_sub_agent_start_shows_its_manifest_in_the_terminal(tmp_path):
    from pathlib import Path

    from echo_desk.agent.host import ApprovalChoice, ApprovalRequest
    from echo_desk.agent.subagents import Refusal, RefusalReason, SpawnGrants
    from echo_desk.tools import RiskLevel

    root = Path("/home/me/Smith, John")
    spawn = SpawnGrants(goal="sum up", tools=("read_file",), read_only=False, risk_ceiling=RiskLevel.WRITE,
                        write_roots=(root,), max_turns=4, time_limit_seconds=60,
                        refused=(Refusal(reason=RefusalReason.NO_SUCH_TOOL, subject="nope"),))
    request = ApprovalRequest(call_id="d1", tool_name="delegate", tool_title="Delegate", risk=RiskLevel.READ,
                              scope_id="s", scope_label="c", scope_chain=("c",), arguments={"goal": "sum up"},
                              targets=(), file_changes=(), summary="", binding="b", spawn=spawn)
    out = io.StringIO()
    decision = asyncio.run(TerminalHost(auto=ApprovalChoice.DENY, out=out).request_approval(request))
    shown = out.getvalue()
    assert not decision.allowed
    for line in ("Goal: sum up", "Tools granted: read_file", f"Folders it may change: {root}",
                 "Limits: at most 4 turns and 1 min", "Refused: nope: there is no such tool"):
        assert line in shown


@pytest.mark.parametrize(("typed", "action", "opened"), [("y\n", AnswerAction.ACCEPT, True),
                                                        ("\n", AnswerAction.DECLINE, False),
                                                        ("open it\n", AnswerAction.DECLINE, False)])
def test_a_url_question_shows_the_whole_address_and_opens_it_only_on_yes(monkeypatch, typed, action, opened):
    import echo_desk.cli.terminal_host as terminal

    urls: list[str] = []

    async def fake_open(url: str) -> bool:  # the real one would start a browser
        urls.append(url)
        return False

    monkeypatch.setattr(terminal, "open_in_browser", fake_open)
    out = io.StringIO()
    host = TerminalHost(inp=_Terminal(typed), out=out)
    url = "https://pay.example.com/\u202eexe.pdf?x=1"
    answer = asyncio.run(host.ask(Question(prompt="Pay", url=url, mcp_server="shop")))
    assert answer.action is action
    assert urls == ([url] if opened else [])
    shown = out.getvalue()
    # the whole address, the bidi control written out (ASCII here: the test's terminal is no tty font)
    assert "https://pay.example.com/\\u202eexe.pdf?x=1" in shown and "\u202e" not in shown
    assert ("open the address above yourself" in shown) is opened


LISTS = {"type": "object", "properties": {
    "fish": {"type": "array", "title": "Fish", "minItems": 1, "maxItems": 2, "default": ["fish-2"],
             "items": {"enum": ["fish-1", "fish-2", "3"], "enumNames": ["Tuna", "Salmon\u202e", "3"]}},
    "extras": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["a"]},
}}


def _ask_lists(typed: str) -> tuple[object, str]:
    out = io.StringIO()
    answer = asyncio.run(TerminalHost(inp=_Terminal(typed), out=out).ask(Question(prompt="Which?", schema=LISTS)))
    return answer, out.getvalue()


def test_several_choices_are_typed_as_numbers_or_values_and_asked_again_until_they_fit():
    """Before, the field was asked as a text and its answer sent as one string."""
    # fish: "1,2,3" is too many, "trout" no choice, "-" none (too few), then "fish-1, 3" (the
    # value "3", not the third choice); extras: "-" chooses none over the default.
    answer, shown = _ask_lists("1,2,3\ntrout\n-\nfish-1, 3\n-\n")
    assert answer.values == {"fish": ["fish-1", "3"], "extras": []}
    for line in ("   Fish: Choose 1 to 2.", "     1. [ ] fish-1 = Tuna", "     2. [x] fish-2 = Salmon\\u202e",
                 "     3. [ ] 3", "Choose at most 2 to answer (3 chosen).",
                 "“trout” is not one of the choices: type their numbers or values, separated by commas",
                 "Choose at least 1 to answer (0 chosen).", "   extras: Choose any number.",
                 "Numbers or values, separated by commas (- for none) [2]: "):
        assert line in shown


def test_several_choices_left_empty_keep_the_default():
    answer, shown = _ask_lists("\n\n")
    assert answer.values == {"fish": ["fish-2"], "extras": ["a"]}
    assert "     1. [x] a" in shown  # each choice listed, the default's ticked
