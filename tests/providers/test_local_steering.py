"""What the small model's next turn is offered (``providers/local/steering``), exchange by exchange."""

from __future__ import annotations

import json

import pytest

from echo_desk.agent.definitions import ToolDefinition
from echo_desk.agent.model import ChatMessage, ToolCall
from echo_desk.providers.local.steering import Turn, asks_for_change, asks_which_file, named_files, next_turn


def _tool(name: str, **properties: dict[str, object]) -> ToolDefinition:
    return ToolDefinition(name=name, description=name, parameters={
        "type": "object", "properties": properties or {"path": {"type": "string"}}, "required": ["path"]})


TOOLS = [
    _tool("read_file"), _tool("list_dir"),
    _tool("search_files", glob={"type": "string"}, regex={"type": "string"}, path={"type": "string"}),
    _tool("write_file"), _tool("edit_file"), _tool("move_path", source={"type": "string"}),
    _tool("delete_path"), _tool("run_command", command={"type": "string"}),
]


def _result(ok: bool, text: str = "", kind: str = "business") -> str:
    if ok:
        return json.dumps({"ok": True, "content": text})
    return json.dumps({"ok": False, "error": text, "error_kind": kind})


def _after(request: str, *steps: tuple[str, str]) -> list[ChatMessage]:
    """An exchange: the request, then each (tool, result envelope) as a call and its result."""
    messages = [ChatMessage(role="system", content="You are Echo Desk."), ChatMessage(role="user", content=request)]
    for number, (name, envelope) in enumerate(steps):
        call = ToolCall(id=f"c{number}", name=name, arguments=json.dumps({"path": f"f{number}.txt"}))
        messages += [ChatMessage(role="assistant", tool_calls=(call,)),
                     ChatMessage(role="tool", content=envelope, tool_call_id=call.id, name=name)]
    return messages


def _names(turn_tools: tuple[ToolDefinition, ...]) -> list[str]:
    return [t.name for t in turn_tools]


@pytest.mark.parametrize(("request_text", "files"), [
    ("In which room is the meeting? Look in notes.txt.", ["notes.txt"]),
    ("Read src/main.py and name.txt, then main.py again", ["src/main.py", "name.txt", "main.py"]),
    ("把 notes.txt 里的 milk 改成 oat milk", ["notes.txt"]),
    ("Bump the version from 1.4.2 to 1.4.3", []),  # a version is not a file
    ("Say it, e.g. loudly. Then stop.", []),  # neither is "e.g" nor a full stop
    ("What is in /etc/passwd.txt?", []),  # an absolute path is not a name in the workspace
    ("Tell me a joke", []),
])
def test_the_files_a_request_names(request_text: str, files: list[str]) -> None:
    assert named_files(request_text) == files


def test_a_request_naming_a_file_must_start_with_a_call_whose_path_is_one_of_the_names() -> None:
    turn = next_turn(_after("In one sentence, what is README.md about?"), TOOLS)
    assert turn.tool_choice == "required" and _names(turn.tools) == ["read_file", "search_files"]  # looks only
    running = next_turn(_after("Run python3 compute.py and tell me what it prints."), TOOLS)
    assert _names(running.tools) == ["read_file", "search_files", "run_command"]
    renaming = next_turn(_after("Rename draft.txt to final.txt."), TOOLS)
    assert renaming.tool_choice == "required" and _names(renaming.tools) == ["move_path"]
    move = renaming.tools[0]
    assert move.parameters == TOOLS[5].parameters  # not a tool whose "path" is the file itself
    read = next(t for t in turn.tools if t.name == "read_file")
    assert read.parameters["properties"]["path"]["enum"] == ["README.md"]


def test_a_request_naming_no_file_leaves_the_choice_to_the_model() -> None:
    turn = next_turn(_after("Tell me a joke"), TOOLS)
    assert turn.tool_choice == "auto" and turn.tools == tuple(TOOLS)


def test_a_request_to_change_a_file_reads_it_first_then_edits_it_then_answers() -> None:
    request = "Add a line 'Buy butter' at the end of notes.txt"
    first = next_turn(_after(request), TOOLS)
    assert first.tool_choice == "required" and _names(first.tools) == ["read_file"]
    after_read = next_turn(_after(request, ("read_file", _result(True, "milk\neggs\n"))), TOOLS)
    assert after_read.tool_choice == "required" and _names(after_read.tools) == ["edit_file"]
    done = _after(request, ("read_file", _result(True, "milk\n")), ("edit_file", _result(True, "Saved")))
    assert next_turn(done, TOOLS).tool_choice == "none"


def test_a_request_to_create_from_what_was_read_is_offered_the_tool_that_creates() -> None:
    request = "Read name.txt and create greeting.txt that says Hello, followed by that name."
    first = next_turn(_after(request), TOOLS)
    assert first.tool_choice == "required" and "write_file" in _names(first.tools)  # no reading needed first
    turn = next_turn(_after(request, ("read_file", _result(True, "Ada\n"))), TOOLS)
    assert turn.tool_choice == "required" and _names(turn.tools) == ["write_file"]  # not edit_file, not run_command
    moving = next_turn(_after("Read a.txt, then move it to b.txt", ("read_file", _result(True, "a"))), TOOLS)
    assert _names(moving.tools) == ["move_path"]
    unclear = next_turn(_after("Read a.txt, then create b.txt and move a.txt", ("read_file", _result(True, "a"))),
                        TOOLS)
    assert set(_names(unclear.tools)) == {"write_file", "edit_file", "move_path", "delete_path"}


def test_a_question_is_answered_after_the_read() -> None:
    turn = next_turn(_after("What port is set in config.json?", ("read_file", _result(True, "8731"))), TOOLS)
    assert turn.tool_choice == "none"


def test_a_declined_change_is_not_offered_again() -> None:
    request = "Delete the line 'eggs' from notes.txt."
    messages = _after(request, ("read_file", _result(True, "milk\neggs\n")),
                      ("edit_file", _result(False, "the person denied this call", kind="rejected")))
    assert next_turn(messages, TOOLS).tool_choice == "none"


def test_after_a_failed_call_the_model_may_call_anything_again() -> None:
    messages = _after("Add a line to notes.txt", ("edit_file", _result(False, "old text was not found")))
    turn = next_turn(messages, TOOLS)
    assert turn.tool_choice == "auto" and turn.tools == tuple(TOOLS)


def test_asked_which_file_holds_a_text_the_first_turn_is_a_search_by_text_only() -> None:
    for request in ("Which log file contains the text 'ERROR 503'?", "哪个文件定义了函数 parse_date？"):
        assert asks_which_file(request)
        turn = next_turn(_after(request), TOOLS)
        assert turn.tool_choice == "required" and _names(turn.tools) == ["search_files"]
        assert list(turn.tools[0].parameters["properties"]) == ["regex"]
        assert turn.tools[0].parameters["required"] == ["regex"]
    assert not asks_which_file("Which files are in the docs folder?")  # a listing, not a search


def test_a_caller_s_own_choice_is_kept() -> None:
    assert next_turn(_after("Read notes.txt"), TOOLS, "none").tool_choice == "none"
    assert next_turn(_after("Read notes.txt"), TOOLS, "write_file").tool_choice == "write_file"


@pytest.mark.parametrize(("request_text", "change"), [
    ("What port is set in config.json?", False),
    ("How many lines does todo.txt have?", False),
    ("Make sense of report.csv", False),
    ("Rename draft.txt to final.txt.", True),
    ("在 shopping.txt 末尾加一行：面包", True),
    ("创建文件 todo.txt，内容是：买牛奶", True),
    ("todo.txt 有几行？", False),
])
def test_what_counts_as_asking_for_a_change(request_text: str, change: bool) -> None:
    assert asks_for_change(request_text) is change


def test_a_request_to_add_at_the_end_of_a_named_file_is_an_append_at_once() -> None:
    tools = [*TOOLS, _tool("append_to_file", path={"type": "string"}, text={"type": "string"})]
    for request in ("Add a line 'Buy butter' at the end of notes.txt", "在 notes.txt 末尾加一行：面包"):
        turn = next_turn(_after(request), tools)
        assert turn.tool_choice == "required" and _names(turn.tools) == ["append_to_file"]
        assert turn.tools[0].parameters["properties"]["path"]["enum"] == ["notes.txt"]
    # Without the tool (a profile that hides it) the file is read first, as any change.
    assert _names(next_turn(_after("Add a line at the end of notes.txt"), TOOLS).tools) == ["read_file"]


@pytest.mark.parametrize(("request_text", "modify"), [
    ("Create a file add.py with a Python function add(a, b) that returns a + b.", False),  # names, code
    ("Add a line 'Buy butter' at the end of notes.txt", True),
    ("Fix the typo in greet.py: the function helo should be called hello.", True),
    ("Read name.txt and create greeting.txt that says Hello", False),
])
def test_a_change_to_what_is_there_is_told_from_a_new_file(request_text: str, modify: bool) -> None:
    first = next_turn(_after(request_text), TOOLS)
    assert (_names(first.tools) == ["read_file"]) is modify


def test_a_larger_model_is_not_steered_only_held_to_an_answer_after_a_result() -> None:
    assert next_turn(_after("Add a line at the end of notes.txt"), TOOLS, steer=False) == Turn("auto", tuple(TOOLS))
    after_read = _after("Fix notes.txt", ("read_file", _result(True, "milk\n")))
    assert next_turn(after_read, TOOLS, steer=False).tool_choice == "none"
    after_error = _after("Fix notes.txt", ("read_file", _result(False, "no such file")))
    assert next_turn(after_error, TOOLS, steer=False).tool_choice == "auto"


def test_a_request_naming_a_tool_starts_with_a_call_of_that_tool() -> None:
    turn = next_turn(_after("Overwrite todo.txt with the text 'eggs' using write_file."), TOOLS)
    assert turn.tool_choice == "required" and _names(turn.tools) == ["write_file"]
    assert turn.tools[0].parameters["properties"]["path"]["enum"] == ["todo.txt"]
    assert asks_for_change("Overwrite todo.txt with the text 'eggs'.")  # a new content, not a question
    assert _names(next_turn(_after("Is read_files a tool?"), TOOLS).tools) == _names(tuple(TOOLS))  # not a name


@pytest.mark.parametrize(("request_text", "first"), [
    # A function or a variable renamed is an edit of the file: read it first, not a move.
    ("In util.py, rename the function slugify to make_slug.", ["read_file"]),
    ("把 util.py 里的函数 slugify 重命名为 make_slug", ["read_file"]),
    # "Set … to …" as an order is a change; "what port is set" stays a question.
    ("Set the port in server.conf to 9090 instead of 8000.", ["read_file"]),
    ("What port is set in config.json?", ["read_file", "search_files"]),
    # A new file with what the request says is written at once; made from another file, it is not.
    ("Make a new file ideas.md with the heading # Ideas", ["write_file"]),
])
def test_the_first_turn_of_a_change_by_its_words(request_text: str, first: list[str]) -> None:
    assert _names(next_turn(_after(request_text), TOOLS).tools) == first


def test_a_file_renamed_or_moved_is_a_move_and_a_summary_into_a_new_file_may_read_first() -> None:
    for request in ("Rename draft.txt to final.txt.", "把 draft.txt 重命名为 final.txt", "Move report.csv into archive"):
        assert _names(next_turn(_after(request), TOOLS).tools) == ["move_path"]
    summary = next_turn(_after("Write summary.md summarising the project"), TOOLS)
    assert "read_file" in _names(summary.tools)


def test_adding_a_line_at_the_end_in_chinese_is_an_append_whatever_the_wording() -> None:
    tools = [*TOOLS, _tool("append_to_file", path={"type": "string"}, text={"type": "string"})]
    for request in ("在 todo.txt 最后添加一行：买鸡蛋", "给 todo.txt 加一行：买鸡蛋"):
        assert _names(next_turn(_after(request), tools).tools) == ["append_to_file"]
    # "最后" opening a last step is no append.
    assert _names(next_turn(_after("最后，告诉我 notes.txt 有几行"), tools).tools) != ["append_to_file"]


@pytest.mark.parametrize("request_text", ["Which file imports datetime?", "Which files call parse_date?",
                                          "哪个文件导入了 datetime？"])
def test_asking_which_file_imports_or_calls_something_is_a_search(request_text: str) -> None:
    assert asks_which_file(request_text)
