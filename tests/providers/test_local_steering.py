"""What the small model's next turn is offered (``providers/local/steering``): from the intent the
model stated, the tools' declared roles and the structure of the exchange — never the request's words."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.providers.local.intent import QUESTIONS, Intent, StatedIntent
from echo_desk.providers.local.steering import Turn, next_turn
from echo_desk.tools import CHANGING_ROLES, LOOKING_ROLES, ToolRole


def _tool(name: str, role: ToolRole) -> ToolDefinition:
    # Names no built-in has: what is offered follows the role, never the name.
    return ToolDefinition(name=name, description=name, role=role, parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})


LOOK, LIST, SEARCH = _tool("peek", ToolRole.LOOK), _tool("tour", ToolRole.LIST), _tool("seek", ToolRole.SEARCH)
CHANGE, APPEND, CREATE = _tool("alter", ToolRole.CHANGE), _tool("extend", ToolRole.APPEND), _tool("make", ToolRole.CREATE)
MOVE, DELETE, RUN = _tool("shift", ToolRole.MOVE), _tool("erase", ToolRole.DELETE), _tool("execute", ToolRole.RUN)
UNKNOWN = _tool("mystery", ToolRole.UNKNOWN)
TOOLS = [LOOK, LIST, SEARCH, CHANGE, APPEND, CREATE, MOVE, DELETE, RUN, UNKNOWN]
ROLES = {t.name: t.role for t in TOOLS}

#: One request per language, each naming the file a.txt: the offer must not depend on which.
REQUESTS = ["Tell me about a.txt", "a.txt 是什么？", "Parle-moi de a.txt", "Was steht in a.txt?",
            "¿Qué hay en a.txt?", "a.txt には何がありますか？"]


def _ok(text: str = "") -> str:
    return json.dumps({"ok": True, "content": text})


def _failed(text: str, kind: str = "business") -> str:
    return json.dumps({"ok": False, "error": text, "error_kind": kind})


def _after(request: str, *steps: tuple[ToolDefinition, str]) -> list[ChatMessage]:
    """An exchange: the request, then each (tool, result envelope) as a call and its result."""
    messages = [ChatMessage(role="system", content="You are Echo Desk."), ChatMessage(role="user", content=request)]
    for number, (tool, envelope) in enumerate(steps):
        call = ToolCall(id=f"c{number}", name=tool.name, arguments=json.dumps({"path": f"f{number}.txt"}))
        messages += [ChatMessage(role="assistant", tool_calls=(call,)),
                     ChatMessage(role="tool", content=envelope, tool_call_id=call.id, name=tool.name)]
    return messages


def _offer(turn: Turn) -> tuple[str, list[str], bool]:
    """What a turn offers, by tool name (a path held to the target changes the definition)."""
    return turn.tool_choice, [t.name for t in turn.tools], turn.decide


def _roles(turn: Turn) -> set[ToolRole]:
    return {t.role for t in turn.tools}


def _stated(intent: Intent, target: str = "a.txt") -> StatedIntent:
    return StatedIntent(intent, target)


def _offers_a_change(turn: Turn) -> bool:
    return turn.tool_choice != "none" and bool(_roles(turn) & (CHANGING_ROLES | {ToolRole.RUN, ToolRole.UNKNOWN}))


@pytest.mark.parametrize("request_text", REQUESTS)
def test_a_question_is_offered_only_tools_that_look_in_every_state_of_its_exchange(request_text: str) -> None:
    question = _stated(Intent.LOOK)
    states = [
        _after(request_text),
        _after(request_text, (LOOK, _failed("no such file"))),
        _after(request_text, (SEARCH, _failed("bad regex")), (LOOK, _failed("no such file"))),
        _after(request_text, (LIST, _ok("a.txt"))),
        _after(request_text, (LOOK, _ok("milk"))),
    ]
    for messages in states:
        for intent in QUESTIONS:
            turn = next_turn(messages, TOOLS, stated=_stated(intent))
            assert not _offers_a_change(turn), (intent, turn)
    first = next_turn(states[0], TOOLS, stated=question)
    assert _offer(first) == _offer(Turn("required", (LOOK,)))  # the look the model named
    after_failure = next_turn(states[1], TOOLS, stated=question)
    assert after_failure.tool_choice == "auto" and _roles(after_failure) == set(LOOKING_ROLES)
    assert next_turn(states[-1], TOOLS, stated=question).tool_choice == "none"  # answer after the look


@pytest.mark.parametrize(("intent", "role"), [(Intent.LOOK, ToolRole.LOOK), (Intent.LIST, ToolRole.LIST),
                                              (Intent.SEARCH, ToolRole.SEARCH)])
def test_a_question_first_looks_with_the_role_the_model_named(intent: Intent, role: ToolRole) -> None:
    turn = next_turn(_after("a.txt"), TOOLS, stated=_stated(intent))
    assert _roles(turn) == {role}
    # Held to a call only when the call is held to the file the request names (a look's path,
    # or a search's: a target in the form of a file's name is where to search).
    assert turn.tool_choice == ("required" if role in (ToolRole.LOOK, ToolRole.SEARCH) else "auto")
    answer = next_turn(_after("a.txt"), TOOLS, stated=_stated(Intent.ANSWER))
    assert answer.tool_choice == "auto" and _roles(answer) == set(LOOKING_ROLES)  # it may still look


@pytest.mark.parametrize("request_text", REQUESTS)
@pytest.mark.parametrize("intent", sorted(QUESTIONS))
def test_a_question_is_held_to_a_call_only_when_a_look_s_path_is_held_to_the_named_target(
        request_text: str, intent: Intent) -> None:
    # Whatever word of the request the model stated as the target: the turn is forced only when
    # the call it forces is about that very file (a look whose path the grammar holds to it).
    turn = next_turn(_after(request_text), TOOLS, stated=_stated(intent))
    held = [t for t in turn.tools if "enum" in t.parameters["properties"]["path"]]
    assert (turn.tool_choice == "required") is bool(held)
    assert bool(held) is (intent in (Intent.LOOK, Intent.SEARCH))
    # A tool that looks but takes no path (a plugin's, by its declared role) holds nothing.
    weather = ToolDefinition(name="sky", description="sky", role=ToolRole.LOOK, parameters={
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
    unheld = next_turn(_after(request_text), [weather, CHANGE], stated=_stated(intent))
    assert unheld.tool_choice != "required" and CHANGE not in unheld.tools


def test_a_question_whose_target_the_request_does_not_name_may_be_answered_in_text() -> None:
    turn = next_turn(_after("Hello!"), TOOLS, stated=StatedIntent(Intent.LOOK, ""))
    assert turn.tool_choice == "auto" and _roles(turn) == {ToolRole.LOOK}
    invented = next_turn(_after("What is 2 + 2?"), TOOLS, stated=StatedIntent(Intent.LOOK, "math.txt"))
    assert invented.tool_choice == "auto"  # a target the request never named is not something to look at


@pytest.mark.parametrize("request_text", REQUESTS)
def test_an_edit_looks_first_then_is_offered_to_change_content_once_then_answers(request_text: str) -> None:
    edit = _stated(Intent.EDIT)
    first = next_turn(_after(request_text), TOOLS, stated=edit)
    assert _offer(first) == _offer(Turn("required", (LOOK,)))
    then = next_turn(_after(request_text, (LOOK, _ok("milk\n"))), TOOLS, stated=edit)
    # Not a rewrite, not a new file; the model makes the change, or answers if it was asked a question.
    assert _offer(then) == _offer(Turn("auto", (CHANGE,), decide=True))
    done = next_turn(_after(request_text, (LOOK, _ok("milk\n")), (CHANGE, _ok("Saved"))), TOOLS, stated=edit)
    assert done.tool_choice == "none"
    retry = next_turn(_after(request_text, (LOOK, _ok("milk\n")), (CHANGE, _failed("old text not found"))),
                      TOOLS, stated=edit)
    assert retry.tool_choice == "auto" and ToolRole.CHANGE in _roles(retry) and ToolRole.UNKNOWN not in _roles(retry)
    missing = next_turn(_after(request_text, (LOOK, _failed("no such file"))), TOOLS, stated=edit)
    assert missing.tool_choice == "auto" and {ToolRole.CHANGE, ToolRole.CREATE} <= _roles(missing)


@pytest.mark.parametrize(("intent", "role"), [
    (Intent.APPEND, ToolRole.APPEND), (Intent.CREATE, ToolRole.CREATE), (Intent.MOVE, ToolRole.MOVE),
    (Intent.DELETE, ToolRole.DELETE), (Intent.RUN, ToolRole.RUN),
])
def test_a_change_that_needs_no_look_first_is_offered_its_role_or_a_look(intent: Intent, role: ToolRole) -> None:
    turn = next_turn(_after("a.txt"), TOOLS, stated=_stated(intent))
    assert turn.tool_choice == "required" and _roles(turn) == {role, ToolRole.LOOK}
    made = next_turn(_after("a.txt", (next(t for t in TOOLS if t.role is role), _ok("done"))), TOOLS,
                     stated=_stated(intent))
    assert made.tool_choice == "none"
    # The model chose to look first: then it makes the change, or answers if it was asked a question.
    looked = next_turn(_after("a.txt", (LOOK, _ok("x"))), TOOLS, stated=_stated(intent))
    if intent is Intent.RUN:
        assert looked.tool_choice == "none"  # a command is run, or the look answers
    else:
        assert _offer(looked) == _offer(Turn("auto", tuple(t for t in TOOLS if t.role is role), decide=True))


def test_something_looked_at_before_a_new_file_is_made_leads_to_the_making() -> None:
    # The model chose to look first (a failed make showed it the file is needed): then it makes.
    messages = _after("a.txt", (CREATE, _failed("what to write?")), (LOOK, _ok("Ada\n")))
    assert _offer(next_turn(messages, TOOLS, stated=_stated(Intent.CREATE))) == _offer(Turn("auto", (CREATE,), decide=True))


def test_an_unclear_intent_is_offered_every_tool_and_never_forced() -> None:
    unclear = _stated(Intent.UNCLEAR)
    assert _offer(next_turn(_after("a.txt"), TOOLS, stated=unclear)) == _offer(Turn("auto", tuple(TOOLS)))
    assert next_turn(_after("a.txt"), TOOLS) == Turn("auto", tuple(TOOLS))  # nothing stated: unclear
    assert next_turn(_after("a.txt", (LOOK, _ok("x"))), TOOLS, stated=unclear).tool_choice == "none"
    assert _offer(next_turn(_after("a.txt", (CHANGE, _failed("no"))), TOOLS, stated=unclear)) == _offer(Turn("auto", tuple(TOOLS)))


def test_a_tool_of_unknown_role_is_offered_only_when_the_intent_is_unclear() -> None:
    for intent in Intent:
        turn = next_turn(_after("a.txt"), TOOLS, stated=_stated(intent))
        assert (UNKNOWN in turn.tools) is (intent is Intent.UNCLEAR)


def test_when_an_intent_s_own_role_has_no_tool_what_stands_in_is_offered() -> None:
    without_append = [t for t in TOOLS if t.role is not ToolRole.APPEND]
    assert _offer(next_turn(_after("a.txt"), without_append, stated=_stated(Intent.APPEND))) == _offer(Turn("required", (LOOK,)))
    without_move = [t for t in TOOLS if t.role is not ToolRole.MOVE]
    assert next_turn(_after("a.txt"), without_move, stated=_stated(Intent.MOVE)).tool_choice == "none"
    after_look = next_turn(_after("a.txt", (LOOK, _ok("x"))), without_append, stated=_stated(Intent.APPEND))
    assert _offer(after_look) == _offer(Turn("auto", (CHANGE,), decide=True))  # text at the end is an edit of what was read
    without_run = [t for t in TOOLS if t.role is not ToolRole.RUN]
    assert _roles(next_turn(_after("a.txt"), without_run, stated=_stated(Intent.RUN))) == {ToolRole.LOOK}
    without_search = [t for t in TOOLS if t.role is not ToolRole.SEARCH]
    assert _roles(next_turn(_after("a.txt"), without_search, stated=_stated(Intent.SEARCH))) == set(LOOKING_ROLES) - {
        ToolRole.SEARCH}
    only_looks = [LOOK, LIST, SEARCH]
    assert next_turn(_after("a.txt"), only_looks, stated=_stated(Intent.MOVE)).tool_choice == "none"


def test_a_call_the_person_declined_or_a_repeated_call_gets_the_answer() -> None:
    declined = _after("a.txt", (LOOK, _ok("x")), (CHANGE, _failed("the person denied this call", "rejected")))
    assert next_turn(declined, TOOLS, stated=_stated(Intent.EDIT)).tool_choice == "none"
    repeated = _after("a.txt", (LOOK, _failed("busy")))
    repeated += [ChatMessage(role="assistant", tool_calls=(ToolCall(id="again", name=LOOK.name,
                                                                     arguments='{"path": "f0.txt"}'),)),
                 ChatMessage(role="tool", content=_failed("busy"), tool_call_id="again", name=LOOK.name)]
    assert next_turn(repeated, TOOLS, stated=_stated(Intent.LOOK)).tool_choice == "none"


def test_a_tool_the_request_names_is_offered_when_the_intent_allows_its_role() -> None:
    asked = next_turn(_after("Overwrite a.txt with 'x' using make"), TOOLS, stated=_stated(Intent.CREATE))
    assert _offer(asked) == _offer(Turn("required", (CREATE,)))
    question = next_turn(_after("What does the make tool do to a.txt?"), TOOLS, stated=_stated(Intent.LOOK))
    assert CREATE not in question.tools  # a question never gets a change tool, even one it names


CHANGERS = [t for t in TOOLS if t.role.changes]
CHANGE_INTENTS = [Intent.EDIT, Intent.APPEND, Intent.CREATE, Intent.MOVE, Intent.DELETE]


@pytest.mark.parametrize("intent", CHANGE_INTENTS)
@pytest.mark.parametrize("tool", CHANGERS, ids=lambda t: t.role.value)
def test_a_change_is_offered_the_changing_tool_the_request_names_whatever_change_it_stated(
        intent: Intent, tool: ToolDefinition) -> None:
    request = f"a.txt {tool.name}"  # the tool's exact name, in any sentence
    first = next_turn(_after(request), TOOLS, stated=_stated(intent))
    assert _offer(first) == _offer(Turn("required", (tool,)))
    # Refused (for a file it had not read, say): offered again beside the intent's own, to correct it.
    failed = next_turn(_after(request, (tool, _failed("read it first"))), TOOLS, stated=_stated(intent))
    assert failed.tool_choice == "auto" and tool in failed.tools
    # After a look, the change is made with the tool the person named or the intent's own.
    looked = next_turn(_after(request, (LOOK, _ok("milk"))), TOOLS, stated=_stated(intent))
    assert looked.decide and tool in looked.tools and not _roles(looked) & {ToolRole.UNKNOWN}
    for question in QUESTIONS:
        for turn in (next_turn(_after(request), TOOLS, stated=_stated(question)),
                     next_turn(_after(request, (LOOK, _failed("no"))), TOOLS, stated=_stated(question))):
            assert not _offers_a_change(turn)


def test_a_caller_s_own_choice_is_kept() -> None:
    assert next_turn(_after("a.txt"), TOOLS, "none", stated=_stated(Intent.EDIT)).tool_choice == "none"
    assert next_turn(_after("a.txt"), TOOLS, "make", stated=_stated(Intent.LOOK)).tool_choice == "make"


def test_a_larger_model_is_not_steered_only_held_to_an_answer_after_a_result() -> None:
    assert _offer(next_turn(_after("a.txt"), TOOLS, steer=False, stated=_stated(Intent.LOOK))) == _offer(Turn("auto", tuple(TOOLS)))
    assert next_turn(_after("a.txt", (LOOK, _ok("x"))), TOOLS, steer=False).tool_choice == "none"
    assert next_turn(_after("a.txt", (LOOK, _failed("no"))), TOOLS, steer=False).tool_choice == "auto"


@settings(derandomize=True, max_examples=200, deadline=None)
@given(request=st.text(max_size=80), intent=st.sampled_from(list(Intent)), looked=st.booleans())
def test_the_offer_depends_on_the_stated_intent_never_on_the_request_s_words(request: str, intent: Intent,
                                                                              looked: bool) -> None:
    # Any text at all (any language, any word: "save", "update", "删除"): the same intent and the
    # same structure give the same offer, the target named or not aside.
    steps = ((LOOK, _ok("x")),) if looked else ()
    stated = StatedIntent(intent, "")
    turn = next_turn(_after(request, *steps), TOOLS, stated=stated)
    reference = next_turn(_after("-", *steps), TOOLS, stated=stated)
    if not any(t.name in request for t in TOOLS):
        assert turn == reference
    if intent.is_question:
        assert not _offers_a_change(turn)


@pytest.mark.parametrize(("target", "names"), [
    ("a.txt", ["a.txt"]),
    ("in a.txt", ["in", "a.txt"]),  # each word of it the request holds
    ("a.txt?", ["a.txt"]),  # without what surrounds a name in a sentence
])
def test_when_the_request_names_the_target_a_file_tool_s_path_is_held_to_it(target: str, names: list[str]) -> None:
    request = "Was steht in a.txt?"
    for intent in (Intent.LOOK, Intent.EDIT):
        turn = next_turn(_after(request), TOOLS, stated=StatedIntent(intent, target))
        look = next(t for t in turn.tools if t.role is ToolRole.LOOK)
        assert look.parameters["properties"]["path"]["enum"] == names
        assert LOOK.parameters["properties"]["path"] == {"type": "string"}  # the tool itself is unchanged
    search = next_turn(_after(request), TOOLS, stated=StatedIntent(Intent.SEARCH, target)).tools[0]
    assert search.parameters["properties"]["path"]["enum"] == ["a.txt"]  # the file, not the other words
    elsewhere = next_turn(_after("Was steht da?"), TOOLS, stated=StatedIntent(Intent.LOOK, target)).tools[0]
    assert "enum" not in elsewhere.parameters["properties"]["path"]  # a target the request never named


def _search_tool(query_is_regex: bool, query_argument: str | None = "needle") -> ToolDefinition:
    return ToolDefinition(name="hunt", description="hunt", role=ToolRole.SEARCH, query_argument=query_argument,
                          query_is_regex=query_is_regex, parameters={"type": "object", "properties": {
                              "needle": {"type": "string"}, "path": {"type": "string"}}})


#: A search in six languages, each for a name the request holds, as the model would state it.
SEARCHES = [("Which file mentions Anna Lee?", "Anna Lee"), ("哪个文件提到 Anna Lee？", "Anna Lee"),
            ("Quel fichier parle de Anna Lee ?", "Anna Lee"), ("Welche Datei erwähnt Anna Lee?", "Anna Lee"),
            ("¿Qué archivo menciona a Anna Lee?", "Anna Lee"), ("Anna Lee が出てくるファイルは？", "Anna Lee")]


@pytest.mark.parametrize(("request_text", "target"), SEARCHES)
def test_a_search_s_query_is_held_to_what_the_model_said_it_looks_for(request_text: str, target: str) -> None:
    for regex, held in ((False, ["Anna Lee", "Anna", "Lee"]), (True, [r"Anna\ Lee", "Anna", "Lee"])):
        tool = _search_tool(regex)
        turn = next_turn(_after(request_text), [tool, LOOK], stated=StatedIntent(Intent.SEARCH, target))
        [search] = [t for t in turn.tools if t.role is ToolRole.SEARCH]
        assert search.parameters["properties"]["needle"]["enum"] == held  # the whole target first
        assert "enum" not in search.parameters["properties"]["path"]  # the place to search stays free
        assert turn.tool_choice == "auto"  # held, not forced: the model may still answer
        assert tool.parameters["properties"]["needle"] == {"type": "string"}  # the tool itself is unchanged


def test_a_query_is_escaped_for_a_regular_expression_and_never_held_without_a_declaration() -> None:
    request = "Which log has the text 'ERROR (503)'?"
    stated = StatedIntent(Intent.SEARCH, "ERROR (503)")
    regex = next_turn(_after(request), [_search_tool(True)], stated=stated).tools[0]
    assert regex.parameters["properties"]["needle"]["enum"][0] == r"ERROR\ \(503\)"
    undeclared = next_turn(_after(request), [_search_tool(True, None)], stated=stated).tools[0]
    assert "enum" not in undeclared.parameters["properties"]["needle"]
    elsewhere = next_turn(_after("Which log has an error?"), [_search_tool(True)], stated=stated).tools[0]
    assert "enum" not in elsewhere.parameters["properties"]["needle"]  # a target the request never named


@pytest.mark.parametrize("request_text", [r.replace("a.txt", "docs/owners.txt") for r in REQUESTS])
def test_a_search_whose_target_is_a_file_s_name_searches_that_file_with_a_free_query(request_text: str) -> None:
    tool = _search_tool(True)
    turn = next_turn(_after(request_text), [tool, LOOK], stated=StatedIntent(Intent.SEARCH, "docs/owners.txt"))
    [search] = [t for t in turn.tools if t.role is ToolRole.SEARCH]
    assert search.parameters["properties"]["path"]["enum"] == ["docs/owners.txt"]
    assert "enum" not in search.parameters["properties"]["needle"]  # not held to find the file's own name
    assert turn.tool_choice == "required"  # a call about the very file the request names
