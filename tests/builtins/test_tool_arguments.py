"""Every built-in tool with normal, empty, oversized and missing arguments; catalog metadata."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
from tool_test_helpers import LoopbackServer, MakeCtx, RecordingHost, run_tool

from echo_desk.builtins import builtin_tools
from echo_desk.store.settings import DEFAULT_PROFILES
from echo_desk.tools import Answer, ErrorKind, RiskLevel, Tool

BIG = "x" * 3_000_000
KNOWN_CAPABILITIES = {"basic", "files.read", "files.write", "shell", "web", "ask", "todos"}


def _cases(url: str) -> dict[str, dict[str, Any]]:
    """normal / empty / oversized / missing arguments for each tool."""
    return {
        "echo_text": {"normal": {"text": "hello"}, "empty": {"text": ""}, "oversized": {"text": "x" * 201},
                      "missing": {}},
        "read_file": {"normal": {"path": "a.txt"}, "empty": {"path": ""}, "oversized": {"path": "a" * 5000},
                      "missing": {}},
        "list_dir": {"normal": {"path": "."}, "empty": {"path": ""}, "oversized": {"path": ".", "depth": 99},
                     "missing": None},
        "search_files": {"normal": {"glob": "*.txt"}, "empty": {"glob": ""}, "oversized": {"regex": "a" * 1001},
                         "missing": {}},
        "write_file": {"normal": {"path": "new.txt", "content": "hi\n"}, "empty": {"path": "", "content": "x"},
                       "oversized": {"path": "big.txt", "content": BIG}, "missing": {"path": "new2.txt"}},
        "edit_file": {"normal": {"path": "a.txt", "edits": [{"old": "alpha", "new": "beta"}]},
                      "empty": {"path": "a.txt", "edits": []},
                      "oversized": {"path": "a.txt", "edits": [{"old": "a", "new": str(i)} for i in range(51)]},
                      "missing": {"path": "a.txt"}},
        "append_to_file": {"normal": {"path": "a.txt", "text": "gamma"}, "empty": {"path": "a.txt", "text": ""},
                           "oversized": {"path": "a.txt", "text": BIG}, "missing": {"path": "a.txt"}},
        "move_path": {"normal": {"source": "new.txt", "destination": "moved.txt"},
                      "empty": {"source": "", "destination": "x.txt"},
                      "oversized": {"source": "a" * 5000, "destination": "x.txt"}, "missing": {"source": "a.txt"}},
        "copy_path": {"normal": {"source": "moved.txt", "destination": "copied.txt"},
                      "empty": {"source": "moved.txt", "destination": ""},
                      "oversized": {"source": "moved.txt", "destination": "b" * 5000}, "missing": {}},
        "delete_path": {"normal": {"path": "copied.txt"}, "empty": {"path": ""}, "oversized": {"path": "c" * 5000},
                        "missing": {}},
        "create_folder": {"normal": {"path": "made"}, "empty": {"path": ""}, "oversized": {"path": "d" * 5000},
                          "missing": {}},
        "run_command": {"normal": {"command": "echo hi"}, "empty": {"command": ""},
                        "oversized": {"command": "x" * 10_001}, "missing": {}},
        "fetch_url": {"normal": {"url": f"{url}/t"}, "empty": {"url": ""}, "oversized": {"url": url + "/" + "a" * 9000},
                      "missing": {}},
        "ask_user": {"normal": {"question": "Which one?", "choices": ["a", "b"]}, "empty": {"question": ""},
                     "oversized": {"question": "x" * 2001}, "missing": {}},
        "update_todos": {"normal": {"todos": [{"text": "step", "status": "in_progress"}]},
                         "empty": {"todos": [{"text": ""}]},
                         "oversized": {"todos": [{"text": str(i)} for i in range(51)]}, "missing": {}},
    }


@pytest.fixture
def server() -> LoopbackServer:
    with LoopbackServer({"/t": (200, {"Content-Type": "text/plain"}, b"fetched")}) as srv:
        yield srv


def test_every_tool_has_complete_catalog_metadata() -> None:
    tools = builtin_tools()
    assert [t.name for t in tools] == ["echo_text", "read_file", "list_dir", "search_files", "write_file",
                                       "edit_file", "append_to_file", "move_path", "copy_path", "delete_path", "create_folder",
                                       "run_command", "fetch_url", "ask_user", "update_todos"]
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
        assert tool.description and tool.description.isascii(), tool.name
        assert tool.title and tool.catalog_description and tool.title != tool.name
        assert tool.capabilities and tool.capabilities <= KNOWN_CAPABILITIES, tool.name
        assert 0 < tool.timeout_seconds <= 3600
        assert tool.parameters.get("additionalProperties") is False
    risks = {t.name: t.risk_level for t in tools}
    assert risks["write_file"] is risks["edit_file"] is risks["append_to_file"] is RiskLevel.WRITE
    assert risks["run_command"] is RiskLevel.EXEC
    assert {n for n, r in risks.items() if r is RiskLevel.READ} == {
        "echo_text", "read_file", "list_dir", "search_files", "fetch_url", "ask_user", "update_todos"}
    coding = set(DEFAULT_PROFILES["coding"])
    assert all(t.capabilities <= coding for t in tools)  # the coding profile reaches every built-in
    assert {t.name for t in tools if t.capabilities <= set(DEFAULT_PROFILES["read-only"])} == {
        "echo_text", "read_file", "list_dir", "search_files", "fetch_url", "ask_user", "update_todos"}
    previewing = {t.name for t in tools if t.has_preview}
    assert previewing == {"write_file", "edit_file", "append_to_file", "run_command", "fetch_url", "move_path", "copy_path",
                          "delete_path", "create_folder"}


@pytest.mark.parametrize("variant", ["normal", "empty", "oversized", "missing"])
async def test_arguments(variant: str, workspace: Path, make_ctx: MakeCtx, server: LoopbackServer) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    cases = _cases(server.url)
    for tool in builtin_tools():
        params = cases[tool.name][variant]
        if params is None:  # list_dir has no required argument: "missing" means the defaults
            params = {}
            expect_ok = True
        else:
            expect_ok = variant == "normal"
        host = RecordingHost(answers=[Answer(action="accept", text="a")])
        # The test server is on 127.0.0.1, which fetch_url reaches only on the person's approval.
        result = await run_tool(tool, params, make_ctx(tool, host=host, approved_by_person=tool.name == "fetch_url"))
        if expect_ok:
            assert result.success, (tool.name, result.error)
            _check_normal(tool, result.output, host, workspace)
        else:
            assert result.error_kind is ErrorKind.VALIDATION, (tool.name, variant, result.error_kind, result.error)
            # "glob or regex" would need a top-level anyOf, which some providers refuse: the tool checks it.
            if (tool.name, variant) != ("search_files", "missing"):
                assert _schema_rejects(tool, params), (tool.name, variant)
        assert (workspace / "a.txt").read_text() in ("alpha\n", "beta\n", "beta\ngamma\n")


def _schema_rejects(tool: Tool, params: dict[str, Any]) -> bool:
    return any(True for _ in jsonschema.Draft202012Validator(tool.parameters).iter_errors(params))


def _check_normal(tool: Tool, output: str, host: RecordingHost, workspace: Path) -> None:
    checks = {
        "echo_text": lambda: output == "hello",
        "read_file": lambda: output.endswith("alpha\n"),
        "list_dir": lambda: "a.txt" in output,
        "search_files": lambda: "a.txt" in output,
        "write_file": lambda: (workspace / "new.txt").read_text() == "hi\n",
        "edit_file": lambda: (workspace / "a.txt").read_text() == "beta\n",
        "append_to_file": lambda: (workspace / "a.txt").read_text() == "beta\ngamma\n",
        "move_path": lambda: (workspace / "moved.txt").read_text() == "hi\n" and not (workspace / "new.txt").exists(),
        "copy_path": lambda: (workspace / "copied.txt").read_text() == "hi\n",
        "delete_path": lambda: not (workspace / "copied.txt").exists() and "trash" in output,
        "create_folder": lambda: (workspace / "made").is_dir(),
        "run_command": lambda: output == "exit code 0\nhi\n",
        "fetch_url": lambda: output.endswith("fetched"),
        "ask_user": lambda: output == "a" and host.questions[0].choices == ("a", "b"),
        "update_todos": lambda: host.todos[0][1][0].status == "in_progress" and "[~] step" in output,
    }
    assert checks[tool.name](), (tool.name, output)


async def test_echo_text_returns_text_unchanged(make_ctx: MakeCtx) -> None:
    from echo_desk.builtins import EchoText

    text = "  Spaces, ünïcödé 中文 and\nnewlines  "
    assert (await EchoText().execute({"text": text}, make_ctx("echo_text"))).output == text
    wrong = await EchoText().execute({"text": 5}, make_ctx("echo_text"))
    assert wrong.error_kind is ErrorKind.VALIDATION
    extra = await EchoText().execute({"text": "a", "more": 1}, make_ctx("echo_text"))
    assert extra.error_kind is ErrorKind.VALIDATION and "more" in extra.error
