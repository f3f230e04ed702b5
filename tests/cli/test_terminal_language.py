"""The terminal's own words follow the person's language; what came from elsewhere (a tool's
name, a path, the keys typed: y / a / n) is shown as it is."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from echo_desk.agent.host import ApprovalChoice, ApprovalRequest
from echo_desk.agent.subagents import Refusal, RefusalReason, SpawnGrants
from echo_desk.cli.terminal_host import TerminalHost, asker_line, field_value
from echo_desk.tools import (
    FileChange,
    FileChangeKind,
    Placement,
    Protection,
    ProtectionReason,
    RiskLevel,
    Target,
    TargetKind,
)
from echo_desk.tools.host import Question

ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")




def _approval(out: io.StringIO, choice: ApprovalChoice) -> None:
    request = ApprovalRequest(call_id="c1", tool_name="run_command", tool_title="Run command", risk=RiskLevel.EXEC,
                              scope_id="s", scope_label="c", scope_chain=("c",), arguments={"command": "ls"},
                              targets=(), file_changes=(), summary="", binding="b")
    asyncio.run(TerminalHost(auto=choice, out=out).request_approval(request))


def test_an_approval_on_the_terminal_is_worded_in_chinese(chinese: None) -> None:
    out = io.StringIO()
    _approval(out, ApprovalChoice.DENY)
    shown = out.getvalue()
    assert "需要审批：运行命令（run_command），风险：执行" in shown, shown  # the title from the catalog
    assert "发起者" in shown and "已拒绝（--no）" in shown, shown
    # Left as they are: the tool's name, the arguments' JSON, the flag typed.
    leftovers = set(ENGLISH_WORD.findall(shown.replace("run_command", ""))) - {"command", "ls"}
    assert leftovers == set(), (leftovers, shown)


def test_the_same_approval_in_english() -> None:
    out = io.StringIO()
    _approval(out, ApprovalChoice.ALLOW_ONCE)
    assert "Approval needed: Run command (run_command), risk: Execute" in out.getvalue()
    assert "allowed (--yes)" in out.getvalue()


def _request_with_targets(**extra: object) -> ApprovalRequest:
    fields: dict[str, object] = dict(
        call_id="c1", tool_name="write_file", tool_title="Write file", risk=RiskLevel.WRITE, scope_id="s",
        scope_label="c", scope_chain=("c",), arguments={},
        targets=(Target(kind=TargetKind.PATH, value="/w/.git/hooks/pre-commit",
                        protections=(Protection(reason=ProtectionReason.GIT_FOLDER),)),
                 Target(kind=TargetKind.COMMAND, value="make build", detail="/w"),
                 Target(kind=TargetKind.SANDBOX, value=Placement.IN_SANDBOX)),
        file_changes=(FileChange(path="/w/notes.txt", kind=FileChangeKind.MODIFY, before_sha256="a",
                                 after_sha256="b", diff="@@ -1 +1 @@\n-old\n+new\n"),),
        summary="", binding="b")
    fields.update(extra)
    return ApprovalRequest(**fields)  # type: ignore[arg-type]


def test_targets_changes_and_protections_on_the_terminal_are_in_chinese(chinese: None) -> None:
    """The kinds (``path``, ``modify``), the protections and where a command runs are the
    window's words, not the engine's ids or its English."""
    out = io.StringIO()
    asyncio.run(TerminalHost(auto=ApprovalChoice.DENY, out=out).request_approval(_request_with_targets()))
    shown = out.getvalue()
    assert "文件：/w/.git/hooks/pre-commit" in shown, shown
    assert "命令：make build" in shown and "工作目录：/w" in shown, shown
    assert "运行位置：在沙箱中" in shown, shown
    assert shown.count("文件：/w/notes.txt（已修改）") == 1, shown  # above its diff, once
    diff_words = {"old", "new"}
    leftovers = set(ENGLISH_WORD.findall(shown.replace("write_file", ""))) - diff_words - {"git", "hooks", "pre", "commit", "make", "build",
                                                                  "notes", "txt"}
    assert leftovers == set(), (leftovers, shown)


def test_the_same_targets_in_english() -> None:
    out = io.StringIO()
    asyncio.run(TerminalHost(auto=ApprovalChoice.DENY, out=out).request_approval(_request_with_targets()))
    shown = out.getvalue()
    assert "File: /w/.git/hooks/pre-commit" in shown and "Protected: inside a .git folder" in shown, shown
    assert "Runs: in the sandbox" in shown and "File: /w/notes.txt (modified)" in shown, shown
    assert "in_sandbox" not in shown and "modify:" not in shown, shown


def test_a_sub_agents_manifest_on_the_terminal_is_in_chinese(chinese: None, tmp_path: Path) -> None:
    grants = SpawnGrants(goal="整理笔记", tools=("read_file", "write_file"), read_only=False,
                         risk_ceiling=RiskLevel.WRITE, write_roots=(tmp_path / "notes",), max_turns=8,
                         time_limit_seconds=90,
                         refused=(Refusal(subject="run_command", reason=RefusalReason.NOT_GRANTED_TO_PARENT),))
    out = io.StringIO()
    asyncio.run(TerminalHost(auto=ApprovalChoice.DENY, out=out).request_approval(
        _request_with_targets(tool_name="delegate", tool_title="", spawn=grants, file_changes=())))
    shown = out.getvalue().replace(str(tmp_path), "")
    assert "目标：整理笔记" in shown and "已授权的工具：read_file、write_file" in shown, shown
    assert "它可以修改的文件夹：/notes" in shown, shown
    names = ("delegate", "read_file", "write_file", "run_command")
    leftovers = set(ENGLISH_WORD.findall(re.sub("|".join(names), "", shown))) - {"notes"}
    assert leftovers == set(), (leftovers, shown)


def test_form_answers_that_do_not_fit_say_why_in_chinese(chinese: None) -> None:
    for spec, raw, said in (({"type": "integer"}, "x", "需要一个整数"), ({"type": "number", "maximum": 3}, "9", "至多为 3"),
                            ({"type": "boolean"}, "maybe", "请回答 yes 或 no"),
                            ({"enum": ["a", "b"]}, "c", "请从以下选项中选一个：a、b"),
                            ({"type": "string", "minLength": 4}, "ab", "至少 4 个字符")):
        with pytest.raises(ValueError, match=re.escape(said)):
            field_value(spec, raw)


def test_who_asks_is_said_in_chinese(chinese: None) -> None:
    assert asker_line(Question(prompt="?", mcp_server="files")) == "MCP 服务器“files”询问："
    assert asker_line(Question(prompt="?")) == "智能体询问："
    # A sub-agent's name in the language's own brackets, not " (researcher)" glued to Chinese.
    assert asker_line(Question(prompt="?", asked_by="researcher")) == "智能体（researcher）询问："


def test_who_asks_names_a_sub_agent_in_english() -> None:
    assert asker_line(Question(prompt="?", asked_by="researcher")) == "The agent (researcher) asks:"


def test_the_gateways_help_is_in_the_persons_language(tmp_path: Path) -> None:
    """``echo-desk gateway`` skips the rest of the CLI (clients start it often): its help still
    speaks the system's language."""
    env = {**os.environ, "LANG": "zh_CN.UTF-8", "LANGUAGE": "", "LC_ALL": "",
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "c"), "ECHO_DESK_DATA_DIR": str(tmp_path / "d")}
    shown = subprocess.run([sys.executable, "-m", "echo_desk", "gateway", "--help"], capture_output=True, text=True,
                           env=env, timeout=60, check=True).stdout
    assert "用法：" in shown and "选项：" in shown and "客户端的名称" in shown, shown
    assert "the client's" not in shown and "machine-readable" not in shown, shown
