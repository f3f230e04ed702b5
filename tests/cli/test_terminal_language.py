"""The terminal's own words follow the person's language; what came from elsewhere (a tool's
name, a path, the keys typed: y / a / n) is shown as it is."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from echo_desk import i18n
from echo_desk.agent.host import ApprovalChoice, ApprovalRequest
from echo_desk.cli.terminal_host import TerminalHost, asker_line, field_value
from echo_desk.tools import RiskLevel
from echo_desk.tools.host import Question

ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.set_language("zh_CN")
    try:
        yield
    finally:
        i18n.set_language("en")


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


def test_form_answers_that_do_not_fit_say_why_in_chinese(chinese: None) -> None:
    for spec, raw, said in (({"type": "integer"}, "x", "需要一个整数"), ({"type": "number", "maximum": 3}, "9", "至多为 3"),
                            ({"type": "boolean"}, "maybe", "请回答 yes 或 no"),
                            ({"enum": ["a", "b"]}, "c", "请从以下选项中选一个：a, b"),
                            ({"type": "string", "minLength": 4}, "ab", "至少 4 个字符")):
        with pytest.raises(ValueError, match=re.escape(said)):
            field_value(spec, raw)


def test_who_asks_is_said_in_chinese(chinese: None) -> None:
    assert asker_line(Question(prompt="?", mcp_server="files")) == "MCP 服务器“files”询问："
    assert asker_line(Question(prompt="?")) == "智能体询问："


def test_the_gateways_help_is_in_the_persons_language(tmp_path: Path) -> None:
    """``echo-desk gateway`` skips the rest of the CLI (clients start it often): its help still
    speaks the system's language."""
    env = {**os.environ, "LANG": "zh_CN.UTF-8", "LANGUAGE": "", "LC_ALL": "",
           "ECHO_DESK_CONFIG_DIR": str(tmp_path / "c"), "ECHO_DESK_DATA_DIR": str(tmp_path / "d")}
    shown = subprocess.run([sys.executable, "-m", "echo_desk", "gateway", "--help"], capture_output=True, text=True,
                           env=env, timeout=60, check=True).stdout
    assert "用法：" in shown and "选项：" in shown and "客户端的名称" in shown, shown
    assert "the client's" not in shown and "machine-readable" not in shown, shown
